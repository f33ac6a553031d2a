package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// These tests stop a Store's workflow delivery at each step, as if its
// process died there, and check that a sweeper (another Store's
// MaintainWorkflows) finishes the job: the dependent runs, once.

func wfTask(wf, name, queue string, deps ...string) *store.NewTask {
	return &store.NewTask{Name: name, Deps: deps, Job: &store.NewJob{
		ID: store.TaskJobID(wf, name), Queue: queue, Kind: "k",
		JobSpec: store.JobSpec{Meta: map[string]string{store.MetaWorkflow: wf, store.MetaTask: name}},
	}}
}

// claimAck claims every ready job of queue and acks it, returning the IDs.
func claimAck(t *testing.T, s store.Store, queue string) []string {
	t.Helper()
	ctx := context.Background()
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: queue, Max: 100, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	var reqs []store.AttemptEnd
	for _, j := range res.Jobs {
		ids = append(ids, j.ID)
		reqs = append(reqs, store.AttemptEnd{Queue: queue, ID: j.ID, Token: j.Token, Attempt: j.Attempt, Outcome: store.OutcomeAck})
	}
	if len(reqs) > 0 {
		errs, err := s.Finish(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range errs {
			if e != nil {
				t.Fatal(e)
			}
		}
	}
	return ids
}

// sweepUntil runs MaintainWorkflows on s until cond holds, for at most 20 s
// (a record's lease is 5 s and the queues are looked at every 2 s).
func sweepUntil(t *testing.T, s *redisstore.Store, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no sweeper finished it: %s", what)
		}
		if _, err := s.MaintainWorkflows(context.Background(), 100); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // a poll interval, not a synchronisation
	}
}

func readyIDs(t *testing.T, s store.Admin, queue string) []string {
	t.Helper()
	page, err := s.ListJobs(context.Background(), store.ListJobsOpts{Queue: queue, State: store.StateReady, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, j := range page.Jobs {
		ids = append(ids, j.ID)
	}
	return ids
}

func TestWorkflowCrashBetweenAckAndDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a delivery lease")
	}
	for _, step := range []string{"apply", "release", "confirm", "done"} {
		t.Run(step, func(t *testing.T) {
			t.Parallel()
			o := &redisstore.Config{Prefix: redistest.Prefix(t)}
			dying, rdb := newStore(t, o)
			sweeper := storeOn(t, rdb, o)
			ctx := context.Background()
			wf, qa, qb := "crash-"+step, "qa-"+step, "qb-"+step
			if _, err := dying.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: wf, Tasks: []*store.NewTask{
				wfTask(wf, "a", qa), wfTask(wf, "b", qb, "a"),
			}}); err != nil {
				t.Fatal(err)
			}
			redisstore.CrashWorkflowsAt(dying, step)
			if got := claimAck(t, dying, qa); len(got) != 1 {
				t.Fatalf("claimed %v from %s, want the root task", got, qa)
			}
			b := store.TaskJobID(wf, "b")
			// After "confirm" and "done" the dependent is already in its
			// queue: run it now, so that a second release would show.
			if step == "confirm" || step == "done" {
				if got := claimAck(t, sweeper, qb); len(got) != 1 || got[0] != b {
					t.Fatalf("claimed %v from %s before the sweep, want %s", got, qb, b)
				}
			}
			sweepUntil(t, sweeper, "the workflow ends", func() bool {
				rec, err := sweeper.GetWorkflow(ctx, wf)
				if err != nil {
					t.Fatal(err)
				}
				if rec.State == store.WorkflowSucceeded {
					return true
				}
				// The dependent, once the sweep released it, runs.
				claimAck(t, sweeper, qb)
				return false
			})
			// The dead process's record of a's end is delivered in the
			// end, whatever state the workflow reached meanwhile, and
			// releases nothing twice.
			records := "{" + o.Prefix + ":" + qa + "}:wd"
			sweepUntil(t, sweeper, "the record of a's end is delivered", func() bool {
				n, err := rdb.HLen(ctx, records).Result()
				if err != nil {
					t.Fatal(err)
				}
				return n == 0
			})
			if ids := readyIDs(t, sweeper, qb); len(ids) != 0 {
				t.Fatalf("%s holds %v after the workflow ended: a task was enqueued twice", qb, ids)
			}
			page, err := sweeper.ListWorkflows(ctx, store.ListWorkflowsOpts{State: store.WorkflowSucceeded, Search: wf})
			if err != nil || page.Total != 1 {
				t.Fatalf("index after the sweep: %+v, %v; want the workflow under succeeded", page, err)
			}
		})
	}
}

func TestWorkflowCrashDuringEnqueue(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a sweep")
	}
	t.Parallel()
	o := &redisstore.Config{Prefix: redistest.Prefix(t)}
	dying, rdb := newStore(t, o)
	sweeper := storeOn(t, rdb, o)
	ctx := context.Background()
	redisstore.CrashWorkflowsAt(dying, "release")
	_, err := dying.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "half", Tasks: []*store.NewTask{
		wfTask("half", "a", "qh"), wfTask("half", "b", "qh", "a"),
	}})
	if err == nil {
		t.Fatal("EnqueueWorkflow returned nil where the process died")
	}
	if ids := readyIDs(t, sweeper, "qh"); len(ids) != 0 {
		t.Fatalf("root released before the crash point: %v", ids)
	}
	sweepUntil(t, sweeper, "the root task is released", func() bool { return len(readyIDs(t, sweeper, "qh")) == 1 })
	// Enqueueing it again (the caller retrying) is a duplicate.
	dup, err := sweeper.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "half", Tasks: []*store.NewTask{wfTask("half", "a", "qh")}})
	if err != nil || !dup {
		t.Fatalf("enqueue again: duplicate %v, %v; want a duplicate", dup, err)
	}
}

func TestWorkflowLostRecordIsSafe(t *testing.T) {
	// A record delivered twice (two sweepers, or a sweeper and a slow
	// owner) changes the workflow once.
	t.Parallel()
	s, _ := newStore(t, nil)
	ctx := context.Background()
	wf := "twice"
	if _, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: wf, Tasks: []*store.NewTask{
		wfTask(wf, "a", "qt"), wfTask(wf, "b", "qt", "a"), wfTask(wf, "c", "qt", "b"),
	}}); err != nil {
		t.Fatal(err)
	}
	claimAck(t, s, "qt") // a
	claimAck(t, s, "qt") // b
	rec, err := s.GetWorkflow(ctx, wf)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Counts[store.TaskSucceeded] != 2 || rec.Counts[store.TaskEnqueued] != 1 {
		t.Fatalf("counts %v, want 2 succeeded and 1 enqueued", rec.Counts)
	}
	if err := s.CancelWorkflow(ctx, "nope"); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("cancel of an unknown workflow: %v", err)
	}
}

// On one server a finish applies a task's end to its workflow itself. An
// end another process recorded earlier and applies only now (it took the
// record, then stalled) is older, and changes nothing when it arrives.
func TestWorkflowLateRecordAfterEndOnOneServer(t *testing.T) {
	o := &redisstore.Config{Prefix: redistest.Prefix(t)}
	s, _ := newStore(t, o)
	ctx := context.Background()
	wf := "late"
	if _, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: wf, Tasks: []*store.NewTask{
		wfTask(wf, "a", "qa"), wfTask(wf, "b", "qb", "a"),
	}}); err != nil {
		t.Fatal(err)
	}
	a := store.TaskJobID(wf, "a")
	if got := claimAck(t, s, "qa"); len(got) != 1 || got[0] != a {
		t.Fatalf("acked %v, want %s", got, a)
	}
	// A cancel of a's earlier run, recorded with the queue's first seq.
	if err := redisstore.ApplyTaskEnd(ctx, s, "qa", a, 1, "c"); err != nil {
		t.Fatal(err)
	}
	rec, err := s.GetWorkflow(ctx, wf)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rec.Tasks {
		if tr.Name == "a" && tr.State != store.TaskSucceeded {
			t.Fatalf("a is %s after the late record, want succeeded", tr.State)
		}
	}
	if got := claimAck(t, s, "qb"); len(got) != 1 {
		t.Fatalf("claimed %v from qb, want b", got)
	}
	if rec, err = s.GetWorkflow(ctx, wf); err != nil || rec.State != store.WorkflowSucceeded {
		t.Fatalf("workflow %+v, %v; want succeeded", rec, err)
	}
}

// TestWorkflowCrashAfterLocalEnd: on one server the finish of a task's job
// applies its end in the same step and enqueues the tasks it releases into
// its own queue there; those of other queues it leaves for the process,
// which enqueues them next. A process that dies between leaves them to a
// sweeper: the dependent of another queue runs, once, and the one of the
// same queue was enqueued by the step itself.
func TestWorkflowCrashAfterLocalEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a sweep")
	}
	t.Parallel()
	o := &redisstore.Config{Prefix: redistest.Prefix(t)}
	dying, rdb := newStore(t, o)
	sweeper := storeOn(t, rdb, o)
	ctx := context.Background()
	if _, err := dying.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "lc", Tasks: []*store.NewTask{
		wfTask("lc", "a", "la"), wfTask("lc", "same", "la", "a"), wfTask("lc", "other", "lb", "a"),
	}}); err != nil {
		t.Fatal(err)
	}
	redisstore.DropLocalReleases(dying, true)
	if got := claimAck(t, dying, "la"); len(got) != 1 {
		t.Fatalf("claimed %v, want the root alone", got)
	}
	if ids := readyIDs(t, sweeper, "la"); len(ids) != 1 || ids[0] != store.TaskJobID("lc", "same") {
		t.Fatalf("la holds %v after the root's ack; want the dependent of the same queue, enqueued in that step", ids)
	}
	if ids := readyIDs(t, sweeper, "lb"); len(ids) != 0 {
		t.Fatalf("lb holds %v before anyone enqueued its task", ids)
	}
	sweepUntil(t, sweeper, "the task of the other queue is released", func() bool { return len(readyIDs(t, sweeper, "lb")) == 1 })
	claimAck(t, sweeper, "la")
	claimAck(t, sweeper, "lb")
	sweepUntil(t, sweeper, "the workflow ends", func() bool {
		w, err := sweeper.GetWorkflow(ctx, "lc")
		return err == nil && w.State == store.WorkflowSucceeded
	})
	if ids := readyIDs(t, sweeper, "lb"); len(ids) != 0 {
		t.Fatalf("lb holds %v after the workflow ended: a task was enqueued twice", ids)
	}
}

// crashPair returns a Store whose process "dies" (DropLocalReleases) and
// a sweeper on the same Redis. The test waits for a sweep: -short skips it.
func crashPair(t *testing.T) (dying, sweeper *redisstore.Store) {
	t.Helper()
	if testing.Short() {
		t.Skip("waits for a sweep")
	}
	t.Parallel()
	o := &redisstore.Config{Prefix: redistest.Prefix(t)}
	dying, rdb := newStore(t, o)
	redisstore.DropLocalReleases(dying, true)
	return dying, storeOn(t, rdb, o)
}

// wantReady fails t unless queue holds n ready jobs.
func wantReady(t *testing.T, s store.Admin, queue string, n int, when string) {
	t.Helper()
	if ids := readyIDs(t, s, queue); len(ids) != n {
		t.Fatalf("%s holds %v %s; want %d", queue, ids, when, n)
	}
}

// wantEnded fails t unless workflow id succeeded and queue holds no
// second copy of the task the sweeper enqueued there.
func wantEnded(t *testing.T, s *redisstore.Store, id, queue string) {
	t.Helper()
	w, err := s.GetWorkflow(context.Background(), id)
	if err != nil || w.State != store.WorkflowSucceeded {
		t.Fatalf("workflow %v, %v; want succeeded", w, err)
	}
	wantReady(t, s, queue, 0, "after the workflow ended (a task enqueued twice)")
}

// On one server the create step enqueues the first tasks of one queue and
// indexes the workflow; a process that dies before it enqueued the first
// tasks of the other queues leaves them to a sweeper, which enqueues them
// once.
func TestWorkflowCrashAfterLocalCreate(t *testing.T) {
	dying, sweeper := crashPair(t)
	ctx := context.Background()
	if _, err := dying.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "cc", Tasks: []*store.NewTask{
		wfTask("cc", "a", "ca"), wfTask("cc", "b", "ca"), wfTask("cc", "other", "cb"), wfTask("cc", "join", "ca", "a", "b", "other"),
	}}); err != nil {
		t.Fatal(err)
	}
	wantReady(t, sweeper, "ca", 2, "after the create step (its first tasks, enqueued in that step)")
	wantReady(t, sweeper, "cb", 0, "before anyone enqueued its task")
	page, err := sweeper.ListWorkflows(ctx, store.ListWorkflowsOpts{State: store.WorkflowRunning})
	if err != nil || page.Total != 1 {
		t.Fatalf("running workflows listed: %d, %v; want the one created", page.Total, err)
	}
	sweepUntil(t, sweeper, "the task of the other queue is released", func() bool { return len(readyIDs(t, sweeper, "cb")) == 1 })
	claimAck(t, sweeper, "ca")
	claimAck(t, sweeper, "cb")
	if got := claimAck(t, sweeper, "ca"); len(got) != 1 || got[0] != store.TaskJobID("cc", "join") {
		t.Fatalf("claimed %v after the first tasks; want the join", got)
	}
	wantEnded(t, sweeper, "cc", "cb")
}

// On one server the step that adds tasks enqueues those of the first
// added task's queue that wait for nothing; a process that dies before it
// enqueued the others leaves them to a sweeper, which enqueues them once.
func TestWorkflowCrashAfterLocalAdd(t *testing.T) {
	dying, sweeper := crashPair(t)
	ctx := context.Background()
	if _, err := sweeper.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "ad", Tasks: []*store.NewTask{wfTask("ad", "root", "da")}}); err != nil {
		t.Fatal(err)
	}
	err := dying.AddTasks(ctx, "ad", "root", []*store.NewTask{wfTask("ad", "same", "da"), wfTask("ad", "other", "db")})
	if err != nil {
		t.Fatal(err)
	}
	wantReady(t, sweeper, "da", 2, "after the adding step (the root and the added task, enqueued in that step)")
	wantReady(t, sweeper, "db", 0, "before anyone enqueued its task")
	sweepUntil(t, sweeper, "the added task of the other queue is released", func() bool { return len(readyIDs(t, sweeper, "db")) == 1 })
	claimAck(t, sweeper, "da")
	claimAck(t, sweeper, "db")
	wantEnded(t, sweeper, "ad", "db")
}

// TestAddTasksRetriedAfterItsProcessDied: on one server, a handler retried
// after its process died having added its tasks (those of the other
// queues left being released) adds them again, finds them there, and
// enqueues what the dead call left: at once, not after a sweeper's lease
// (an outside trial saw them start 5 to 11 s late).
func TestAddTasksRetriedAfterItsProcessDied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := &redisstore.Config{Prefix: redistest.Prefix(t)}
	dying, rdb := newStore(t, o)
	redisstore.DropLocalReleases(dying, true)
	retry := storeOn(t, rdb, o)
	if _, err := retry.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "ra", Tasks: []*store.NewTask{wfTask("ra", "root", "ra")}}); err != nil {
		t.Fatal(err)
	}
	added := func() []*store.NewTask {
		return []*store.NewTask{wfTask("ra", "same", "ra"), wfTask("ra", "other", "rb"), wfTask("ra", "third", "rc")}
	}
	if err := dying.AddTasks(ctx, "ra", "root", added()); err != nil {
		t.Fatal(err)
	}
	wantReady(t, retry, "rb", 0, "after the dying call (its tasks of other queues left being released)")
	if err := retry.AddTasks(ctx, "ra", "root", added()); err != nil {
		t.Fatal(err)
	}
	wantReady(t, retry, "ra", 2, "after the retry (the root and the task added into its queue, once)")
	wantReady(t, retry, "rb", 1, "after the retry")
	wantReady(t, retry, "rc", 1, "after the retry")
	for _, q := range []string{"ra", "ra", "rb", "rc"} {
		claimAck(t, retry, q)
	}
	wantEnded(t, retry, "ra", "rc")
}

// TestWorkflowEnqueuedAgainAfterItsProcessDied: a workflow enqueued again
// by a producer whose first call stored it and died before enqueueing its
// first tasks (those of its other queues, or a large workflow's staged
// ones) is a duplicate, and the call enqueues what the first left: at
// once, not after a sweeper's lease (an outside trial saw them start 5 to
// 11 s late). On one server in one step; with OneSlotPerScript (as on a
// Cluster) released and then confirmed.
func TestWorkflowEnqueuedAgainAfterItsProcessDied(t *testing.T) {
	for _, c := range []struct {
		name     string
		stage    int
		slotEach bool
	}{{"one step", 0, false}, {"staged", 2, false}, {"one slot per script", 0, true}, {"one slot per script, staged", 2, true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			o := &redisstore.Config{Prefix: redistest.Prefix(t), OneSlotPerScript: c.slotEach}
			dying, rdb := newStore(t, o)
			if c.slotEach {
				redisstore.CrashWorkflowsAt(dying, "release")
			} else {
				redisstore.DropLocalReleases(dying, true)
			}
			again := storeOn(t, rdb, o)
			if c.stage > 0 {
				redisstore.StageWorkflowTasks(dying, c.stage)
				redisstore.StageWorkflowTasks(again, c.stage)
			}
			dup, err := dying.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb"))
			if dup || (err != nil) != c.slotEach {
				t.Fatalf("first EnqueueWorkflow: dup %v, %v", dup, err)
			}
			if got := readyIDs(t, again, "qb"); len(got) != 0 {
				t.Fatalf("qb holds %v after the dying call; want nothing yet", got)
			}
			if dup, err := again.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb")); err != nil || !dup {
				t.Fatalf("EnqueueWorkflow again: dup %v, %v; want a duplicate", dup, err)
			}
			if got := append(readyIDs(t, again, "qa"), readyIDs(t, again, "qb")...); len(got) != 9 {
				t.Fatalf("ready after the second call: %v, want the nine first tasks once each", got)
			}
			if ran := runAll(t, again, "w", "qa", "qb"); len(ran) != 11 {
				t.Fatalf("tasks ran %v, want each of the 11 once", ran)
			}
		})
	}
}

// failingRelease starts a server, and on it, with one slot per script
// (as on a Cluster), a store whose releases fail (failing) and workflow
// id, a -> b in queue qa: a call that stores it cannot enqueue its first
// task. o makes more stores of the same prefix.
func failingRelease(t *testing.T, id string) (context.Context, *redis.Client, *redisstore.Config, *redisstore.Store, *store.NewWorkflow) {
	ctx, prefix, rdb := leaseServer(t)
	o := &redisstore.Config{Prefix: prefix, OneSlotPerScript: true}
	failing := storeOn(t, rdb, o)
	redisstore.CrashWorkflowsAt(failing, "release")
	w := &store.NewWorkflow{ID: id, Tasks: []*store.NewTask{wfTask(id, "a", "qa"), wfTask(id, "b", "qa", "a")}}
	return ctx, rdb, o, failing, w
}

// TestWorkflowEnqueuedAgainWhileItsReleaseStillFails: a retry of an
// EnqueueWorkflow whose first tasks were not enqueued, made while they
// still cannot be (a Cluster shard still down), fails as the first call
// did, saying the workflow is stored; it reported a duplicate and no
// error, and its caller took the workflow for started while its first
// tasks waited for a sweeper (an outside trial on a Cluster whose master
// died). The next retry, once Redis takes them, enqueues them at once.
func TestWorkflowEnqueuedAgainWhileItsReleaseStillFails(t *testing.T) {
	ctx, rdb, o, failing, w := failingRelease(t, "still")
	for _, call := range []string{"the first call", "its retry while the release still fails"} {
		dup, err := failing.EnqueueWorkflow(ctx, w)
		if err == nil || !strings.Contains(err.Error(), "the workflow is stored") {
			t.Fatalf("%s: dup %v, %v; want an error saying the workflow is stored", call, dup, err)
		}
	}
	if got := readyIDs(t, failing, "qa"); len(got) != 0 {
		t.Fatalf("qa holds %v after the failed releases; want nothing", got)
	}
	retry := storeOn(t, rdb, o)
	if dup, err := retry.EnqueueWorkflow(ctx, w); err != nil || !dup {
		t.Fatalf("EnqueueWorkflow once the release works: dup %v, %v; want a duplicate", dup, err)
	}
	if got := readyIDs(t, retry, "qa"); len(got) != 1 || got[0] != store.TaskJobID("still", "a") {
		t.Fatalf("qa holds %v after the retry that worked; want the first task, at once", got)
	}
}

// TestWorkflowMarkFailedSaysNothingIsStored: with one slot per script (as
// on a Cluster) EnqueueWorkflow first marks the workflow for the sweeper;
// when Redis refuses that, the call's error says nothing is stored, where
// it said "mark workflow" alone (an outside trial's CLUSTERDOWN), and
// nothing is.
func TestWorkflowMarkFailedSaysNothingIsStored(t *testing.T) {
	ctx, prefix, rdb := leaseServer(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, OneSlotPerScript: true})
	// The marks' key of the wrong type: Redis refuses the mark.
	if err := rdb.Set(ctx, "{"+prefix+":~wf}:steps", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "unmarked", Tasks: []*store.NewTask{wfTask("unmarked", "a", "qa")}})
	if err == nil || !strings.Contains(err.Error(), `workflow "unmarked": nothing is stored`) {
		t.Fatalf("EnqueueWorkflow whose mark failed: %v; want an error saying nothing is stored", err)
	}
	if _, err := s.GetWorkflow(ctx, "unmarked"); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("GetWorkflow after the failed call: %v, want ErrWorkflowNotFound", err)
	}
}

// TestWorkflowEnqueuedAgainAfterItsReleaseFailed: a call that stored its
// workflow and could not enqueue the first tasks says the workflow is
// stored; enqueued again (the retry a caller makes) it is a duplicate,
// and a sweeper still enqueues those tasks. The duplicate removed the
// first call's mark for the sweeper, and the workflow waited forever (an
// outside trial on a Cluster, whose release failed on a shard at
// maxmemory).
func TestWorkflowEnqueuedAgainAfterItsReleaseFailed(t *testing.T) {
	ctx, rdb, o, first, w := failingRelease(t, "again")
	_, err := first.EnqueueWorkflow(ctx, w)
	if err == nil || !strings.Contains(err.Error(), "the workflow is stored") {
		t.Fatalf("EnqueueWorkflow whose release failed: %v, want an error saying the workflow is stored", err)
	}
	retry := storeOn(t, rdb, o)
	if dup, err := retry.EnqueueWorkflow(ctx, w); err != nil || !dup {
		t.Fatalf("EnqueueWorkflow again: dup %v, %v; want a duplicate", dup, err)
	}
	sweepUntil(t, retry, "the first task is ready", func() bool {
		return len(readyIDs(t, retry, "qa")) == 1
	})
	if got := claimAck(t, retry, "qa"); len(got) != 1 || got[0] != store.TaskJobID("again", "a") {
		t.Fatalf("claimed %v, want the first task", got)
	}
	page, err := retry.ListWorkflows(ctx, store.ListWorkflowsOpts{State: store.WorkflowRunning})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Workflows) != 1 || page.Workflows[0].ID != "again" {
		t.Fatalf("running workflows listed: %+v, want the one enqueued", page.Workflows)
	}
}

// TestAStepsMarkOutlivesAnotherStepsRelease: a finish that leaves a task
// being released marks the workflow for the sweeper, and the process
// that created the workflow, finishing its own releases in between, must
// not take that mark out: when the finishing process dies before its
// release, a sweeper releases the task. With one mark a workflow, the
// creator's took it out, and the workflow waited forever (an outside
// soak on one server: 1 SIGKILL of a worker in 5).
func TestAStepsMarkOutlivesAnotherStepsRelease(t *testing.T) {
	ctx, prefix, rdb := leaseServer(t)
	o := &redisstore.Config{Prefix: prefix}
	creator, worker, sweeper := storeOn(t, rdb, o), storeOn(t, rdb, o), storeOn(t, rdb, o)
	const wf = "marks"
	// t0 and t1 go to qa with the workflow; r, in qc, is left for the
	// creator to enqueue; fanin, in qb, waits for t0 and t1.
	w := &store.NewWorkflow{ID: wf, Tasks: []*store.NewTask{
		wfTask(wf, "t0", "qa"), wfTask(wf, "t1", "qa"), wfTask(wf, "r", "qc"), wfTask(wf, "fanin", "qb", "t0", "t1"),
	}}
	// Between the creator's release of r and the end of its call, the
	// worker runs t0 and t1 and dies before it enqueues fanin.
	redisstore.DropLocalReleases(worker, true)
	redisstore.BeforeWorkflowIndex(creator, func() {
		if got := claimAck(t, worker, "qa"); len(got) != 2 {
			t.Errorf("the worker ran %v, want t0 and t1", got)
		}
	})
	if dup, err := creator.EnqueueWorkflow(ctx, w); err != nil || dup {
		t.Fatalf("EnqueueWorkflow: dup %v, %v", dup, err)
	}
	sweepUntil(t, sweeper, "fanin is ready", func() bool {
		return len(readyIDs(t, sweeper, "qb")) == 1
	})
}

// TestAnOlderReleasesMarkIsSwept: a mark an older release left (the
// workflow's ID in the index's chk set) still has a sweeper finish the
// releases its step left.
func TestAnOlderReleasesMarkIsSwept(t *testing.T) {
	ctx, prefix, rdb := leaseServer(t)
	o := &redisstore.Config{Prefix: prefix}
	dying, sweeper := storeOn(t, rdb, o), storeOn(t, rdb, o)
	redisstore.DropLocalReleases(dying, true)
	const wf = "older"
	w := &store.NewWorkflow{ID: wf, Tasks: []*store.NewTask{wfTask(wf, "a", "qa"), wfTask(wf, "b", "qb")}}
	if dup, err := dying.EnqueueWorkflow(ctx, w); err != nil || dup {
		t.Fatalf("EnqueueWorkflow: dup %v, %v", dup, err)
	}
	// The mark as an older release wrote it.
	steps, chk := "{"+prefix+":~wf}:steps", "{"+prefix+":~wf}:chk"
	if n := rdb.ZRem(ctx, steps, wf+"~+").Val(); n != 1 {
		t.Fatalf("the creation's mark: %d removed from %s, want 1", n, steps)
	}
	if err := rdb.ZAdd(ctx, chk, redis.Z{Score: 0, Member: wf}).Err(); err != nil {
		t.Fatal(err)
	}
	sweepUntil(t, sweeper, "b is ready", func() bool {
		return len(readyIDs(t, sweeper, "qb")) == 1
	})
	if n := rdb.Exists(ctx, chk).Val(); n != 0 {
		t.Fatal("the older mark stayed after the sweep")
	}
}

// leaseServer skips t in -short mode (it waits out a release lease, 5 s)
// and returns a context, a fresh key prefix and a client of the shared
// server.
func leaseServer(t *testing.T) (context.Context, string, *redis.Client) {
	t.Helper()
	if testing.Short() {
		t.Skip("waits for a release lease")
	}
	return context.Background(), redistest.Prefix(t), redistest.Start(t).Client(t)
}
