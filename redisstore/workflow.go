package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// serverMs returns the Redis server's time in Unix milliseconds.
func (s *Store) serverMs(ctx context.Context) (int64, error) {
	t, err := s.rdb.Time(ctx).Result()
	if err != nil {
		return 0, wrap("read the server's time", err)
	}
	return t.UnixMilli(), nil
}

// Workflows (store.Workflows) on Redis.
//
// A workflow's record lives in a slot of its own, {<prefix>:wf:<id>}
// (lua/lib_wfgraph.lua): each task's state, static info, dependencies,
// dependents, how many dependencies it still waits for, and, until it is
// released, its job. A task's job lives in its queue's slot like any job,
// so on a Redis Cluster a task's end and its workflow's bookkeeping are
// never one script. The design keeps them apart safely:
//
//  1. The script that ends a task's job (finish, maintain, cancel,
//     requeue, delete) also writes, in the job's slot and the same atomic
//     step, a record of the end: "<seq>,<outcome>,<result>" in the queue's
//     wd hash, due for a sweeper 5 s later in wq (lua/lib_wf.lua). seq
//     comes from the queue's token counter, so one job's records are
//     ordered.
//  2. The process that ran the script delivers the record at once
//     (deliverEnds): wf_apply.lua applies it to the workflow, idempotently
//     (a task remembers the seq of the last record applied, and an older
//     or repeated record changes nothing), and moves the dependents it
//     satisfies to "being released" (the rel set) with their jobs.
//  3. The process enqueues those jobs with wf_release.lua, which marks
//     each job ID in the queue's wm set in the same step and refuses an ID
//     it has marked before: a task's job is enqueued at most once, even
//     when two processes deliver the same record.
//  4. wf_confirm.lua takes the tasks out of rel; then wf_done.lua drops
//     the record.
//
// A process that dies anywhere in 2 to 4 leaves the record in place: the
// sweeper (MaintainWorkflows) takes records whose lease passed, and
// wf_apply.lua, seeing a record it has applied, answers with every task
// still being released, so the sweeper finishes the job. Creating a
// workflow (and adding tasks) is one script in the workflow's slot, then
// the first tasks' release: a mark in the index's chk set, written before
// and removed after, lets the sweeper finish a release a dead process
// began. The wm mark of a task's job also tells the scripts of its queue
// that the job is a workflow task; it stays until the workflow is removed
// after its retention.
//
// On one server (a *redis.Client, with or without Sentinel), where one
// script may name keys of several hash tags, finish skips the records
// (lua/wf/local.lua): finish.go passes the keys of every workflow of the
// batch after the queue's own, and finish.lua applies the ends of the
// tasks it acks or fails to their workflows, enqueues the tasks they
// release into its own queue and updates the index, in the same atomic
// step; the tasks released into other queues are enqueued and confirmed
// by the caller as above, under a chk mark. A chain step within one queue
// or a fan-in costs one script call instead of five round trips. Those
// ends carry no seq: a task's job runs again only after a requeue, whose
// record has a later seq than any end of the run before, and a late record
// of an earlier run finds the task ended or compares with that requeue's
// seq. The wm marks stay. Creating a workflow is one step too
// (wf_create_local.lua, in the slot of the first task's queue): it stores
// the workflow, enqueues the first tasks of that queue and indexes the
// workflow; the first tasks of other queues go as above, under a chk mark
// the script writes. Adding tasks likewise (wf_add_local.lua, in the slot
// of the first added task's queue; wfsettle.lua is the part these steps
// share with finish). On a Cluster, or with Config.OneSlotPerScript (a
// proxy that routes by key), the store keeps to the records above
// (wfLocal).

// wfRelease is one released task's job, to enqueue.
type wfRelease struct {
	wf, task, queue string
	payload         string
}

// payload encodes job j for wf_release.lua: the due argument, '|', then
// the envelope.
func payload(j *store.NewJob) string {
	return dueArg(j) + "|" + string(encodeValue(j))
}

// EnqueueWorkflow stores w (see store.Workflows) in one script in its
// slot, then enqueues its tasks without dependencies, one script call per
// queue; on one server (wfLocal) the store step enqueues those of the
// first one's queue itself, and indexes the workflow. It registers every
// queue of w first, so that workers and schedulers find them.
func (s *Store) EnqueueWorkflow(ctx context.Context, w *store.NewWorkflow) (bool, error) {
	if err := w.Validate(); err != nil {
		return false, err
	}
	if err := s.begin(ctx); err != nil {
		return false, err
	}
	if err := s.registerTaskQueues(ctx, w.Tasks); err != nil {
		return false, err
	}
	dependents := make(map[string][]string, len(w.Tasks))
	for _, t := range w.Tasks {
		for _, d := range t.Deps {
			dependents[d] = append(dependents[d], t.Name)
		}
	}
	ret := w.Retention
	if ret == 0 {
		ret = store.DefaultWorkflowRetention
	}
	taskArgs := make([]any, 0, 6*len(w.Tasks))
	dues, vals := make([]string, len(w.Tasks)), make([][]byte, len(w.Tasks))
	for i, t := range w.Tasks {
		dues[i], vals[i] = dueArg(t.Job), encodeValue(t.Job)
		taskArgs = append(taskArgs, t.Name, taskInfo(t.Job.Queue, t.Job.Kind, t.AllowFailure, t.AnyOutcome, "", i),
			strings.Join(t.Deps, "\n"), strings.Join(dependents[t.Name], "\n"), dues[i], vals[i])
	}
	// A large workflow's first tasks are staged, 250 a step, and
	// the last step takes the rest (workflow_stage.go).
	local := s.wfLocal()
	stage, err := s.stageTasks(ctx, w.ID, taskArgs)
	if err != nil {
		return stage.dup, err
	}
	// A duplicate goes on to the last step, which says which tasks the
	// first call left being released.
	last := w.Tasks[stage.tasks:]
	args := make([]any, 0, 6+6*len(last))
	args = append(args, w.ID, w.Name, mstime.Ceil(ret), stage.attempt, stage.tasks, len(stage.roots))
	args = append(args, taskArgs[6*stage.tasks:]...)
	var res []any
	if local {
		// One step: the first tasks of the first one's queue are enqueued
		// with the workflow, which marks itself for the sweeper when it
		// leaves others being released.
		res, err = s.runDurableShaped(ctx, localStep("wf_create_local", rootQueue(last), w.ID, last, args)).Slice()
	} else {
		if err := s.markCheck(ctx, chkMark(w.ID, chkCreated)); err != nil {
			return false, err
		}
		sc := fullScript("wf_create")
		res, err = s.runDurableOne(ctx, sc, s.scriptKeys(sc, nil, w.ID), args).Slice()
	}
	if err != nil {
		return false, wrap("enqueue workflow "+strconv.Quote(w.ID), err)
	}
	// A duplicate keeps the sweeper's mark: it may be the one an earlier
	// call left when it stored the workflow and failed to enqueue its
	// first tasks, and that call's retry is such a duplicate. A look too
	// many costs the sweeper one read. A retry that cannot enqueue what
	// the first call left fails as the first did, so that its caller
	// tries again rather than take the workflow for started.
	if len(res) >= 1 && res[0] == "dup" {
		if err := s.releaseLeft(ctx, w.ID, res[1:], local); err != nil {
			return true, storedNotReleased(err)
		}
		return true, nil
	}
	if len(res) == 1 && res[0] == "expired" {
		return false, stageExpired(w.ID)
	}
	r, err := parseWfReply(w.ID, res)
	if err != nil {
		return false, wrap("enqueue workflow "+strconv.Quote(w.ID), err)
	}
	// The staged tasks released wait in rel, the caller's to enqueue like
	// the reply's, and before them: in the order they were added.
	if len(stage.roots) > 0 {
		rels := make([]wfRelease, 0, len(stage.roots)+len(r.releases))
		for _, t := range stage.roots {
			rels = append(rels, wfRelease{wf: w.ID, task: t})
		}
		r.releases = append(rels, r.releases...)
	}
	byName := make(map[string]int, len(w.Tasks))
	for i, t := range w.Tasks {
		byName[t.Name] = i
	}
	if local {
		if len(r.releases) == 0 || s.wfDropRels.Load() {
			return false, nil
		}
		rels := r.releases[:0]
		for _, x := range r.releases {
			if k, ok := byName[x.task]; ok {
				x.queue = w.Tasks[k].Job.Queue
				rels = append(rels, x)
			}
		}
		r.releases = rels
		s.beforeRelease()
		err = s.settleLocal(ctx, r, func(r wfRelease) shape { return jobShape(w.Tasks[byName[r.task]].Job) })
	} else {
		// The reply names the released tasks only: fill in their jobs.
		for i := range r.releases {
			if k, ok := byName[r.releases[i].task]; ok {
				r.releases[i].queue, r.releases[i].payload = w.Tasks[k].Job.Queue, dues[k]+"|"+string(vals[k])
			}
		}
		s.beforeRelease()
		err = s.settleAll(ctx, []wfReply{r})
	}
	if err != nil {
		return false, storedNotReleased(err)
	}
	s.unmarkCheck(ctx, chkMark(w.ID, chkCreated))
	return false, nil
}

// storedNotReleased is the error of an EnqueueWorkflow that stored its
// workflow and could not enqueue its first tasks (err): a sweeper will.
// It names no workflow: hopper's EnqueueWorkflow says which ahead of it.
func storedNotReleased(err error) error {
	return fmt.Errorf("redisstore: the workflow is stored, but enqueueing its first tasks failed; "+
		"a sweeper (every Worker's Scheduler) enqueues them once Redis takes them, and enqueueing the workflow again is a duplicate: %w", err)
}

// localStep is the shaped call of file (wf_create_local or wf_add_local)
// on workflow wf that enqueues the tasks bound for queue in the same
// step: the variant of queue's shape with the letters those tasks' jobs
// need (jobShape).
func localStep(file, queue, wf string, tasks []*store.NewTask, args []any) *evalCall {
	var sh shape
	for _, t := range tasks {
		if t.Job.Queue == queue {
			sh |= jobShape(t.Job)
		}
	}
	return &evalCall{file: file, queue: queue, wf: wf, vary: variant{shape: sh}, args: args}
}

// rootQueue returns the queue of the first of tasks without dependencies
// (of the first task when none is): on one server, wf_create_local.lua
// enqueues the first tasks of that queue.
func rootQueue(tasks []*store.NewTask) string {
	for _, t := range tasks {
		if len(t.Deps) == 0 {
			return t.Job.Queue
		}
	}
	return tasks[0].Job.Queue
}

// taskQueueError refuses a workflow task's queue: it is both
// store.ErrInvalidJob and store.ErrInvalidQueue, and says "hopper:" once.
type taskQueueError struct{ msg string }

func (e *taskQueueError) Error() string { return e.msg }

// Unwrap returns store.ErrInvalidJob and store.ErrInvalidQueue.
func (e *taskQueueError) Unwrap() []error {
	return []error{store.ErrInvalidJob, store.ErrInvalidQueue}
}

// registerTaskQueues adds the queues of tasks to the queue registry.
func (s *Store) registerTaskQueues(ctx context.Context, tasks []*store.NewTask) error {
	seen := map[string]bool{}
	now := time.Now()
	for _, t := range tasks {
		q := t.Job.Queue
		// A workflow's steps read and write its tasks' queues in one slot:
		// neither a partitioned queue nor one of its partitions serves.
		if n := s.partCount(q); n > 0 {
			return &taskQueueError{fmt.Sprintf("%v: task %q: queue %q has %d partitions; a workflow task needs a queue that is not partitioned", store.ErrInvalidJob, t.Name, q, n)}
		}
		if _, _, ok := store.SplitPartition(q); ok {
			return &taskQueueError{fmt.Sprintf("%v: task %q: queue %q is a partition; a workflow task needs a queue that is not partitioned", store.ErrInvalidJob, t.Name, q)}
		}
		if seen[q] || !s.needsRegister(q, now) {
			continue
		}
		seen[q] = true
		if err := s.register(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// The sweeper's marks. A step that leaves tasks of a workflow being
// released (EnqueueWorkflow, AddTasks, a finish on one server) marks the
// workflow in the index's steps set for a sweeper to look at after
// wfLeaseMs, and its process takes the mark out once it enqueued them. A
// mark is its step's own, "<workflow>~<task>": the first task it leaves
// being released, or "+" for the workflow's creation (a workflow ID and a
// task name hold no '~' or '+'). With one mark a workflow, a process that
// finished its releases took out the mark of another step of the same
// workflow, made in between, whose process then died before its own: its
// tasks were never enqueued and the workflow ran forever (an outside
// soak, on one server). An older release marked the workflow's ID in the
// chk set, which sweepers still read; the marks went to a set of their
// own so that an older sweeper, during a rolling deploy, does not take
// one for an ID and drop it with nothing done.

// chkMark returns the mark of a step of workflow wf that leaves task
// being released first ("+": the creation).
func chkMark(wf, task string) string { return wf + "~" + task }

// chkCreated is the task part of a creation's mark.
const chkCreated = "+"

// chkWorkflow returns the workflow a mark names.
func chkWorkflow(mark string) string {
	wf, _, _ := strings.Cut(mark, "~")
	return wf
}

// markCheck asks the sweeper to look at the workflow of mark (chkMark)
// in a few seconds, unless unmarkCheck comes first.
func (s *Store) markCheck(ctx context.Context, mark string) error {
	at, err := s.serverMs(ctx)
	if err == nil {
		err = s.rdb.ZAdd(ctx, s.wfi.steps, redis.Z{Score: float64(at + wfLeaseMs), Member: mark}).Err()
	}
	if err != nil {
		// It comes before the step it marks: the caller's call stored
		// nothing, which its error says (a trial found "mark workflow"
		// alone told a user nothing).
		return wrap("workflow "+strconv.Quote(chkWorkflow(mark))+": nothing is stored", err)
	}
	return nil
}

// unmarkCheck takes out mark (markCheck's, or a script's); a failure
// leaves it to the sweeper, which finds nothing to do.
func (s *Store) unmarkCheck(ctx context.Context, mark string) {
	s.rdb.ZRem(ctx, s.wfi.steps, mark)
}

// wfLeaseMs is how long a process has to finish a delivery or a release
// before a sweeper does it (lua/lib_wf.lua's WF_LEASE).
const wfLeaseMs = 5000

// AddTasks adds tasks to running workflow wf (see store.Workflows), in one
// script in the workflow's slot, then enqueues those that wait for
// nothing; on one server (wfLocal) the adding step enqueues those of the
// first added task's queue itself.
func (s *Store) AddTasks(ctx context.Context, wf, by string, tasks []*store.NewTask) error {
	if err := store.ValidateAddedTasks(wf, by, tasks); err != nil {
		return err
	}
	if len(tasks) == 0 {
		return nil
	}
	if err := s.begin(ctx); err != nil {
		return err
	}
	if err := s.registerTaskQueues(ctx, tasks); err != nil {
		return err
	}
	args := make([]any, 0, 2+5*len(tasks))
	args = append(args, by, store.MaxWorkflowTasks)
	for _, t := range tasks {
		args = append(args, t.Name, taskInfo(t.Job.Queue, t.Job.Kind, t.AllowFailure, t.AnyOutcome, by, 0),
			strings.Join(t.Deps, "\n"), strings.Join(t.Blocks, "\n"), payload(t.Job))
	}
	local := s.wfLocal()
	var res []any
	var err error
	var mark string // the sweeper's mark of this step (chkMark)
	if local {
		// One step: the tasks released into the first one's queue are
		// enqueued with the addition, which marks the workflow for the
		// sweeper when it leaves others being released.
		res, err = s.runDurableShaped(ctx, localStep("wf_add_local", tasks[0].Job.Queue, wf, tasks, args)).Slice()
	} else {
		mark = chkMark(wf, tasks[0].Name)
		if err := s.markCheck(ctx, mark); err != nil {
			return err
		}
		sc := fullScript("wf_add")
		res, err = s.runDurableOne(ctx, sc, s.scriptKeys(sc, nil, wf), args).Slice()
	}
	if err != nil {
		return wrap("add tasks to workflow "+strconv.Quote(wf), err)
	}
	unmark := func() {
		if mark != "" {
			s.unmarkCheck(ctx, mark)
		}
	}
	if len(res) >= 1 {
		switch res[0] {
		case "gone":
			unmark()
			return store.WorkflowNotFound(wf)
		case "ended":
			unmark()
			return store.WorkflowClosedError(wf)
		case "err":
			unmark()
			var why [3]string
			for i := range why {
				if i+1 < len(res) {
					why[i], _ = res[i+1].(string)
				}
			}
			return store.AddTasksRefused(wf, why[0], why[1], why[2])
		}
	}
	if local && (len(res) <= 5 || s.wfDropRels.Load()) {
		return nil // nothing left being released, or a test's crash
	}
	if local {
		// wfsettle.lua's mark names the first task it left (the reply's
		// releases, from its sixth value on).
		t, _ := res[5].(string)
		mark = chkMark(wf, t)
	}
	if local {
		r, err := parseWfReply(wf, res)
		if err == nil {
			err = s.settleLocal(ctx, r, func(r wfRelease) shape { return payloadShape(r.payload) })
		}
		if err != nil {
			return wrap("add tasks to workflow "+strconv.Quote(wf), err)
		}
	} else if err := s.settle(ctx, wf, res); err != nil {
		return err
	}
	unmark()
	return nil
}

// TaskResults returns what the named tasks of wf recorded (see
// store.Workflows).
func (s *Store) TaskResults(ctx context.Context, wf string, tasks []string) ([][]byte, error) {
	if err := store.ValidateWorkflowID(wf); err != nil {
		return nil, err
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	k := s.wfKeys(wf)
	var exists *redis.IntCmd
	var vals *redis.SliceCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		exists = p.Exists(ctx, k[0])
		if len(tasks) > 0 {
			vals = p.HMGet(ctx, k[6], tasks...)
		}
		return nil
	})
	if err != nil {
		return nil, wrap("read results of workflow "+strconv.Quote(wf), err)
	}
	if exists.Val() == 0 {
		return nil, store.WorkflowNotFound(wf)
	}
	out := make([][]byte, len(tasks))
	if vals == nil {
		return out, nil
	}
	for i, v := range vals.Val() {
		if str, ok := v.(string); ok {
			out[i] = []byte(str)
		}
	}
	return out, nil
}

var _ store.Workflows = (*Store)(nil)
