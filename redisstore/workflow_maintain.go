package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// wfSweepEvery is how often MaintainWorkflows looks for task ends no
// process delivered, in wfSweepQueues queues.
const wfSweepEvery = 2 * time.Second

// wfSweepQueues is how many queues one look for task ends covers: the
// looks go round the queues, so that what a process sends for them does
// not grow with the queues (one look took every queue every 2 s: 500
// commands a second for 1,000 queues, workflows or not). A task end left
// by a process that died mid-delivery is found within the time one
// round takes: 2 s for every 20 queues.
const wfSweepQueues = 20

// MaintainWorkflows finishes what dead processes left half done and
// removes workflows past their retention (see store.Workflows): task ends
// whose delivery lease passed (a look at the wq sets of 20 queues at a
// time, going round them, at most every 2 s), index entries that no longer match their workflow
// (repairIndex, batch of them at most once a minute), releases begun by
// EnqueueWorkflow or AddTasks (the index's chk set), then ended workflows
// whose retention passed, at most batch of each (zero:
// store.DefaultMaintainBatch). A workflow is removed
// with its marks in its tasks' queues; its tasks' jobs stay under their
// queues' own rules. A pass with nothing to
// do sends one script call (wf_due.lua), and the look at 20 queues; a
// store that holds no workflow (nor one being created) one EXISTS.
func (s *Store) MaintainWorkflows(ctx context.Context, batch int) (_ time.Duration, err error) {
	defer func() { err = s.closedCheck(ctx, err) }()
	if err := store.ValidateWorkflowBatch(batch); err != nil {
		return 0, err
	}
	if batch == 0 {
		batch = store.DefaultMaintainBatch
	}
	if err := s.begin(ctx); err != nil {
		return 0, err
	}
	// A store that holds no workflow, nor one being created, has nothing
	// to maintain: one look at the index, not the pass's script and the
	// task ends' look.
	if n, err := s.rdb.Exists(ctx, s.wfi.all, s.wfi.chk, s.wfi.steps).Result(); err != nil {
		return 0, wrap("sweep workflows", err)
	} else if n == 0 {
		return wfSweepEvery, nil
	}
	due, err := s.run(ctx, fullScript("wf_due"), s.scriptKeys(fullScript("wf_due"), nil, ""), batch).Slice()
	if err == nil && len(due) != 5 {
		err = fmt.Errorf("wf_due.lua returned %d values", len(due))
	}
	if err != nil {
		return 0, wrap("sweep workflows", err)
	}
	now, _ := due[0].(int64)
	chkIDs, _ := due[1].([]any)
	oldIDs, _ := due[2].([]any)
	stepMarks, _ := due[4].([]any)
	chk, old, steps := stringsOf(chkIDs), stringsOf(oldIDs), stringsOf(stepMarks)
	more := len(chk) == batch || len(old) == batch || len(steps) == batch
	if last := s.wfSwept.Load(); time.Since(time.Unix(0, last)) >= wfSweepEvery {
		s.wfSwept.Store(time.Now().UnixNano())
		if err := s.sweepEnds(ctx, now); err != nil {
			return 0, err
		}
	}
	if last := s.wfChecked.Load(); time.Since(time.Unix(0, last)) >= wfCheckEvery {
		s.wfChecked.Store(time.Now().UnixNano())
		if err := s.repairIndex(ctx, batch); err != nil {
			return 0, err
		}
	}
	// The steps' marks (chkMark), and an older release's (the ID in chk).
	for _, mark := range steps {
		if err := s.sweepMarked(ctx, chkWorkflow(mark)); err != nil {
			return 0, err
		}
		s.unmarkCheck(ctx, mark)
	}
	for _, id := range chk {
		if err := s.sweepMarked(ctx, id); err != nil {
			return 0, err
		}
		s.rdb.ZRem(ctx, s.wfi.chk, id)
	}
	for _, id := range old {
		if err := s.dropWorkflow(ctx, id); err != nil {
			return 0, err
		}
	}
	if more {
		return 0, nil
	}
	next := wfSweepEvery
	if first, err := strconv.ParseFloat(fmt.Sprint(due[3]), 64); err == nil {
		// The first retention to end after those collected now.
		next = min(next, time.Duration(int64(first)-now)*time.Millisecond)
	}
	return max(next, 0), nil
}

// sweepMarked finishes what a step left of workflow id: the tasks being
// released are enqueued and confirmed, the index brought up to date.
func (s *Store) sweepMarked(ctx context.Context, id string) error {
	res, err := s.runWf(ctx, fullScript("wf_apply"), id).Slice()
	if err != nil {
		return wrap("sweep workflow "+strconv.Quote(id), err)
	}
	return s.settle(ctx, id, res)
}

// wfCheckEvery is how often MaintainWorkflows checks a page of the
// workflows the index lists as running against their own state.
const wfCheckEvery = time.Minute

// repairIndex checks up to batch workflows of the index's running list,
// from the created time where the last check stopped (from the start
// again after the end), against their own state: one that ended is
// indexed under its state, with its expiry; one that no longer exists
// leaves the index. A late index write did leave such entries before
// syncIndex read the state again (v0.1.0): a workflow listed as running
// for ever, never removed. The check costs one read of the list and one of
// each workflow's state, in one round trip each.
func (s *Store) repairIndex(ctx context.Context, batch int) error {
	from := s.wfCheckFrom.Load()
	zs, err := s.rdb.ZRangeArgsWithScores(ctx, redis.ZRangeArgs{
		Key: s.wfi.running, ByScore: true, Start: strconv.FormatInt(from, 10), Stop: "+inf", Count: int64(batch),
	}).Result()
	if err != nil {
		return wrap("check the workflow index", err)
	}
	switch {
	case len(zs) < batch:
		s.wfCheckFrom.Store(0) // the end of the list: from the start next time
	case int64(zs[len(zs)-1].Score) == from:
		s.wfCheckFrom.Store(from + 1) // a whole page created in one ms: on
	default:
		s.wfCheckFrom.Store(int64(zs[len(zs)-1].Score))
	}
	if len(zs) == 0 {
		return nil
	}
	ids := make([]string, len(zs))
	metas := make([]*redis.SliceCmd, len(zs))
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, z := range zs {
			ids[i], _ = z.Member.(string)
			metas[i] = p.HMGet(ctx, s.wfKeys(ids[i])[0], "st", "cr", "en", "ret")
		}
		return nil
	})
	if err != nil {
		return wrap("check the workflow index", err)
	}
	var moved []wfReply
	var gone []any
	for i, m := range metas {
		r, err := metaReply(ids[i], m.Val())
		switch {
		case err != nil:
			return wrap("check the workflow index", err)
		case r.gone:
			gone = append(gone, ids[i])
		case r.state != string(store.WorkflowRunning):
			moved = append(moved, r)
		}
	}
	if err := s.unindex(ctx, gone); err != nil {
		return err
	}
	return s.syncIndex(ctx, moved)
}

// sweepEnds delivers the task ends whose lease passed, in the next
// wfSweepQueues queues after the last it looked at (by name, round and
// round).
func (s *Store) sweepEnds(ctx context.Context, now int64) error {
	queues, err := s.ListQueues(ctx)
	if err != nil {
		return err
	}
	queues = s.sweepTurn(queues)
	cmds := make([]*redis.StringSliceCmd, len(queues))
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, q := range queues {
			cmds[i] = p.ZRangeByScore(ctx, s.queueKeys(q).wfDue, &redis.ZRangeBy{Min: "-inf", Max: strconv.FormatInt(now, 10), Count: 1})
		}
		return nil
	})
	if err != nil {
		return wrap("sweep workflow task ends", err)
	}
	var ends []queueEnds
	for i, c := range cmds {
		if len(c.Val()) > 0 {
			ends = append(ends, queueEnds{queue: queues[i], due: true})
		}
	}
	if len(ends) == 0 {
		return nil
	}
	return s.deliverEnds(ctx, ends)
}

// sweepTurn returns the wfSweepQueues queues of queues that come after
// the last one the sweep looked at, in name order, going on from the
// first after the last, and records where it stopped.
func (s *Store) sweepTurn(queues []string) []string {
	slices.Sort(queues)
	s.wfSweepAfter.Lock()
	defer s.wfSweepAfter.Unlock()
	if len(queues) <= wfSweepQueues {
		s.wfSweepAfter.queue = ""
		return queues
	}
	from, _ := slices.BinarySearch(queues, s.wfSweepAfter.queue+"\x00")
	turn := make([]string, 0, wfSweepQueues)
	for i := 0; i < wfSweepQueues; i++ {
		turn = append(turn, queues[(from+i)%len(queues)])
	}
	s.wfSweepAfter.queue = turn[len(turn)-1]
	return turn
}

// dropWorkflow removes ended workflow id: the marks of its tasks' jobs in
// their queues, its record, then its index entries. A workflow re-opened
// meanwhile stays.
func (s *Store) dropWorkflow(ctx context.Context, id string) error {
	v, err := s.runWf(ctx, fullScript("wf_drop"), id, "check").StringSlice()
	if err != nil {
		return wrap("collect workflow "+strconv.Quote(id), err)
	}
	if len(v) == 1 && v[0] == "running" {
		return nil
	}
	if !(len(v) == 1 && v[0] == "gone") {
		byQueue := map[string][]any{}
		for i := 0; i+1 < len(v); i += 2 {
			q, _, _ := strings.Cut(v[i+1], "\n")
			byQueue[q] = append(byQueue[q], store.TaskJobID(id, v[i]))
		}
		_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for q, ids := range byQueue {
				qk := s.queueKeys(q)
				p.SRem(ctx, qk.wfTasks, ids...)
			}
			return nil
		})
		if err != nil {
			return wrap("collect workflow "+strconv.Quote(id), err)
		}
		if err := s.runWf(ctx, fullScript("wf_drop"), id, "delete").Err(); err != nil {
			return wrap("collect workflow "+strconv.Quote(id), err)
		}
	}
	return s.unindex(ctx, []any{id})
}
