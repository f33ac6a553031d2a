package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// queueEnds names jobs of one queue whose ends may have left workflow
// records (ids nil: any record of the queue, or with due only those whose
// lease passed, which no live process is delivering).
type queueEnds struct {
	queue string
	ids   []string
	due   bool
}

// endsOf returns the ends to deliver after an operator action on ids of
// queue (nil for every job of a state): none when no ID is a task's.
func endsOf(queue string, ids []string) []queueEnds {
	if ids == nil {
		return []queueEnds{{queue: queue}}
	}
	var tasks []string
	for _, id := range ids {
		if _, _, ok := store.ParseTaskJobID(id); ok {
			tasks = append(tasks, id)
		}
	}
	if len(tasks) == 0 {
		return nil
	}
	return []queueEnds{{queue: queue, ids: tasks}}
}

// endRecord is one task end taken for delivery.
type endRecord struct {
	queue, id, wf, task string
	seq, outcome        string
	result              string
}

// wfReply is what a wf script said about one workflow.
type wfReply struct {
	wf                 string
	gone               bool
	state, indexed     string
	created, ended, rt int64
	releases           []wfRelease
}

func parseWfReply(wf string, v []any) (wfReply, error) {
	r := wfReply{wf: wf}
	if len(v) == 1 && v[0] == "gone" {
		r.gone = true
		return r, nil
	}
	if len(v) < 5 || (len(v)-5)%3 != 0 {
		return r, fmt.Errorf("unexpected workflow reply of %d values", len(v))
	}
	str := func(x any) string { s, _ := x.(string); return s }
	r.state, r.indexed = str(v[0]), str(v[1])
	r.created, _ = strconv.ParseInt(str(v[2]), 10, 64)
	r.ended, _ = strconv.ParseInt(str(v[3]), 10, 64)
	r.rt, _ = strconv.ParseInt(str(v[4]), 10, 64)
	for i := 5; i < len(v); i += 3 {
		r.releases = append(r.releases, wfRelease{wf: wf, task: str(v[i]), queue: str(v[i+1]), payload: str(v[i+2])})
	}
	return r, nil
}

// deliverEnds delivers the workflow records of ends (see workflow.go): take,
// apply, release, confirm, index, drop; each step one round trip for all.
// An error stops it; what it did not finish, a sweeper does.
func (s *Store) deliverEnds(ctx context.Context, ends []queueEnds) error {
	takes := make([]*evalCall, 0, len(ends))
	for _, e := range ends {
		args := []any{"any", wfLeaseMs, 1000}
		if e.due {
			args[0] = "due"
		}
		if e.ids != nil {
			args = make([]any, 0, 3+len(e.ids))
			args = append(args, "ids", wfLeaseMs, 0)
			for _, id := range e.ids {
				args = append(args, id)
			}
		}
		takes = append(takes, s.queueCall(fullScript("wf_take"), e.queue, args...))
	}
	s.runAll(ctx, takes, nil)
	var recs []endRecord
	for i, c := range takes {
		v, err := c.cmd.StringSlice()
		if err != nil {
			return wrap("take workflow task ends of "+strconv.Quote(ends[i].queue), err)
		}
		recs = append(recs, parseEnds(ends[i].queue, v)...)
	}
	return s.applyEnds(ctx, recs)
}

// stringsOf returns the strings of a script reply.
func stringsOf(v []any) []string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i], _ = x.(string)
	}
	return out
}

// parseEnds reads job ID and record pairs (wf_take.lua's, or finish.lua's).
func parseEnds(queue string, v []string) []endRecord {
	var out []endRecord
	for i := 0; i+1 < len(v); i += 2 {
		wf, task, ok := store.ParseTaskJobID(v[i])
		seq, rest, ok2 := strings.Cut(v[i+1], ",")
		oc, result, ok3 := strings.Cut(rest, ",")
		if !ok || !ok2 || !ok3 {
			continue
		}
		out = append(out, endRecord{queue: queue, id: v[i], wf: wf, task: task, seq: seq, outcome: oc, result: result})
	}
	return out
}

// applyEnds applies recs to their workflows, finishes the releases they
// cause and drops the records.
func (s *Store) applyEnds(ctx context.Context, recs []endRecord) error {
	if len(recs) == 0 {
		return nil
	}
	if s.crashAt("apply") {
		return errCrash
	}
	// One wf_apply.lua call per workflow (and 1,000 ends), its ends in
	// the order they were taken.
	byWf := map[string][]any{}
	var wfs []string
	for _, r := range recs {
		if _, ok := byWf[r.wf]; !ok {
			wfs = append(wfs, r.wf)
		}
		byWf[r.wf] = append(byWf[r.wf], r.task, r.seq, r.outcome, r.result)
	}
	var applies []*evalCall
	var applyWf []string
	for _, wf := range wfs {
		args := byWf[wf]
		for len(args) > 0 {
			n := min(len(args), 4*maxScriptJobs)
			applies = append(applies, s.wfCall(fullScript("wf_apply"), wf, args[:n]...))
			applyWf = append(applyWf, wf)
			args = args[n:]
		}
	}
	s.runAll(ctx, applies, nil)
	replies := make([]wfReply, 0, len(applies))
	for i, c := range applies {
		v, err := c.cmd.Slice()
		if err == nil {
			var r wfReply
			if r, err = parseWfReply(applyWf[i], v); err == nil {
				replies = append(replies, r)
				continue
			}
		}
		return wrap("apply task ends to workflow "+strconv.Quote(applyWf[i]), err)
	}
	if err := s.settleAll(ctx, replies); err != nil {
		return err
	}
	if s.crashAt("done") {
		return errCrash
	}
	byQueue := map[string][]any{}
	var order []string
	for _, r := range recs {
		if _, ok := byQueue[r.queue]; !ok {
			order = append(order, r.queue)
		}
		byQueue[r.queue] = append(byQueue[r.queue], r.id, r.seq)
	}
	done := make([]*evalCall, 0, len(order))
	for _, q := range order {
		done = append(done, s.queueCall(fullScript("wf_done"), q, byQueue[q]...))
	}
	s.runAll(ctx, done, nil)
	for i, c := range done {
		if err := c.cmd.Err(); err != nil {
			return wrap("drop workflow task ends of "+strconv.Quote(order[i]), err)
		}
	}
	return nil
}

// settle finishes what a wf script's reply v for workflow wf asks for.
func (s *Store) settle(ctx context.Context, wf string, v []any) error {
	r, err := parseWfReply(wf, v)
	if err != nil {
		return wrap("workflow "+strconv.Quote(wf), err)
	}
	return s.settleAll(ctx, []wfReply{r})
}

// settleAll enqueues the jobs of the tasks the replies released, confirms
// them, cancels those whose workflow was cancelled meanwhile, and brings
// the index up to date.
func (s *Store) settleAll(ctx context.Context, replies []wfReply) error {
	var rels []wfRelease
	last := map[string]wfReply{}
	var wfs []string
	for _, r := range replies {
		if r.gone {
			continue
		}
		rels = append(rels, r.releases...)
		if _, ok := last[r.wf]; !ok {
			wfs = append(wfs, r.wf)
		}
		last[r.wf] = r
	}
	if len(rels) > 0 {
		if s.crashAt("release") {
			return errCrash
		}
		if err := s.release(ctx, rels); err != nil {
			return err
		}
		if s.crashAt("confirm") {
			return errCrash
		}
		if err := s.confirm(ctx, rels); err != nil {
			return err
		}
	}
	var sync []wfReply
	for _, wf := range wfs {
		if r := last[wf]; r.state != r.indexed {
			sync = append(sync, r)
		}
	}
	if f := s.wfBeforeIndex.Swap(nil); f != nil {
		(*f)()
	}
	return s.syncIndex(ctx, sync)
}

// release enqueues released tasks' jobs, one wf_release.lua call per queue
// and chunk, all in one round trip; with Config.Replicas it waits for them
// to reach the replicas, as Enqueue does, before the caller confirms them.
func (s *Store) release(ctx context.Context, rels []wfRelease) error {
	byQueue := map[string][]any{}
	var order []string
	for _, r := range rels {
		if _, ok := byQueue[r.queue]; !ok {
			order = append(order, r.queue)
		}
		due, value, _ := strings.Cut(r.payload, "|")
		byQueue[r.queue] = append(byQueue[r.queue], store.TaskJobID(r.wf, r.task), due, value)
	}
	var calls []*evalCall
	var callQueue []string
	for _, q := range order {
		args := byQueue[q]
		for len(args) > 0 {
			n := min(len(args), 3*wfScriptTasks)
			calls = append(calls, s.queueCall(fullScript("wf_release"), q, args[:n]...))
			callQueue = append(callQueue, q)
			args = args[n:]
		}
	}
	s.send(ctx, calls, nil, true)
	for i, c := range calls {
		if err := c.cmd.Err(); err != nil {
			return wrap("enqueue workflow tasks into "+strconv.Quote(callQueue[i]), err)
		}
	}
	return nil
}

// confirm takes released tasks out of their workflows' rel sets and
// cancels the jobs of those whose workflow was cancelled meanwhile.
func (s *Store) confirm(ctx context.Context, rels []wfRelease) error {
	byWf := map[string][]any{}
	var order []string
	for _, r := range rels {
		if _, ok := byWf[r.wf]; !ok {
			order = append(order, r.wf)
		}
		byWf[r.wf] = append(byWf[r.wf], r.task)
	}
	var calls []*evalCall
	var callWf []string
	for _, wf := range order {
		tasks := byWf[wf]
		for len(tasks) > 0 {
			n := min(len(tasks), wfScriptTasks)
			calls = append(calls, s.wfCall(fullScript("wf_confirm"), wf, tasks[:n]...))
			callWf = append(callWf, wf)
			tasks = tasks[n:]
		}
	}
	s.runAll(ctx, calls, nil)
	for i, c := range calls {
		v, err := c.cmd.StringSlice()
		if err != nil {
			return wrap("confirm tasks of workflow "+strconv.Quote(callWf[i]), err)
		}
		for j := 0; j+1 < len(v); j += 2 {
			if _, err := s.CancelJob(ctx, v[j+1], store.TaskJobID(callWf[i], v[j])); err != nil && !isNotFound(err) {
				return err
			}
		}
	}
	return nil
}

// syncIndex writes the states of replies into the index, then records in
// each workflow that the index shows it.
//
// A write can come late: between the step that replied and this write,
// another process may have moved the workflow on (its last task ended)
// and indexed its new state, which this write would undo. So the record
// step reads the workflow's state again; where it is no longer the one
// written, the next round writes the current one, until the two agree
// (at most maxIndexRounds rounds: each round needs the workflow to have
// moved again meanwhile). A workflow gone meanwhile leaves the index.
func (s *Store) syncIndex(ctx context.Context, replies []wfReply) error {
	for round := 0; len(replies) > 0 && round < maxIndexRounds; round++ {
		sets := make([]*evalCall, len(replies))
		for i, r := range replies {
			var exp int64
			if r.state != string(store.WorkflowRunning) {
				exp = r.ended + r.rt
			}
			sets[i] = &evalCall{script: fullScript("wfi_set"), keys: s.wfi.setKeys, args: []any{r.wf, r.state, r.created, exp}}
		}
		s.runAll(ctx, sets, nil)
		for _, c := range sets {
			if err := c.cmd.Err(); err != nil {
				return wrap("index workflows", err)
			}
		}
		marks := make([]*evalCall, len(replies))
		for i, r := range replies {
			marks[i] = s.wfCall(fullScript("wf_synced"), r.wf, r.state)
		}
		s.runAll(ctx, marks, nil)
		var moved []wfReply
		var gone []any
		for i, c := range marks {
			r, err := syncedReply(replies[i].wf, c.cmd)
			if err != nil {
				return wrap("index workflows", err)
			}
			switch {
			case r.gone:
				gone = append(gone, r.wf)
			case r.state != "":
				moved = append(moved, r)
			}
		}
		if err := s.unindex(ctx, gone); err != nil {
			return err
		}
		replies = moved
	}
	return nil
}

// maxIndexRounds bounds syncIndex's rounds for one call. A workflow that
// is still moving after them is indexed by the process that moves it.
const maxIndexRounds = 4

// syncedReply reads wf_synced.lua's reply for workflow wf: the zero
// wfReply when the index now shows the workflow's state, gone when the
// workflow no longer exists, else its current state to index.
func syncedReply(wf string, cmd *redis.Cmd) (wfReply, error) {
	v, err := cmd.Result()
	if err != nil {
		return wfReply{}, err
	}
	switch v := v.(type) {
	case int64:
		return wfReply{}, nil
	case string:
		if v == "gone" {
			return wfReply{wf: wf, gone: true}, nil
		}
	case []any:
		if len(v) == 4 {
			return metaReply(wf, v)
		}
	}
	return wfReply{}, fmt.Errorf("unexpected reply %v marking workflow %q indexed", v, wf)
}

// metaReply reads workflow wf's meta fields st, cr, en and ret (v, in that
// order) as a reply to index: gone when st is missing.
func metaReply(wf string, v []any) (wfReply, error) {
	if st, _ := v[0].(string); st == "" {
		return wfReply{wf: wf, gone: true}, nil
	}
	return parseWfReply(wf, []any{v[0], "", v[1], v[2], v[3]})
}

// unindex takes workflows ids out of the index (wfi_del.lua).
func (s *Store) unindex(ctx context.Context, ids []any) error {
	if len(ids) == 0 {
		return nil
	}
	return wrap("unindex workflows", s.run(ctx, fullScript("wfi_del"), s.wfi.setKeys, ids...).Err())
}

// wfLocal reports whether the scripts that end tasks' jobs apply the ends
// to their workflows themselves, in the same step (lua/wf/local.lua): on
// one server, where one script reaches every key. On a Cluster, with
// Config.OneSlotPerScript, or under a test's crash point, they leave
// records to deliver.
func (s *Store) wfLocal() bool {
	return !s.sharded && !s.opts.OneSlotPerScript && s.wfCrash.Load() == nil
}

// errCrash is what a delivery step returns where a test makes the process
// "die" (crashAt).
var errCrash = errors.New("redisstore: test crash")

// crashAt reports whether a test asked this Store to stop at step.
func (s *Store) crashAt(step string) bool {
	p := s.wfCrash.Load()
	return p != nil && *p == step
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrJobNotFound) }
