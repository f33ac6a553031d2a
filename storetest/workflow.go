package storetest

import (
	"bytes"
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// workflowCases check store.Workflows: tasks held back until their
// dependencies end as the contract's table says, released into their
// queues the moment the call that ended the last one returns, skipped,
// cancelled and re-opened; the workflow's state as it follows its tasks;
// AddTasks, TaskResults, TaskDeps, ListWorkflows and retention.
func workflowCases() []workflowCase {
	return []workflowCase{
		{name: "Record", fn: testWorkflowRecord},
		{name: "Chain", fn: testWorkflowChain},
		{name: "Diamond", fn: testWorkflowDiamond},
		{name: "FanIn1000", fn: testWorkflowFanIn},
		{name: "FanInRacingAcks", fn: testWorkflowFanInRacing},
		{name: "OneFinishManyEnds", fn: testWorkflowOneFinishManyEnds},
		{name: "OneFinishTwoWorkflows", fn: testWorkflowOneFinishTwoWorkflows},
		{name: "OneFinishFanIn", fn: testWorkflowOneFinishFanIn},
		{name: "DelayFromRelease", fn: testWorkflowDelayed},
		{name: "Priority", fn: testWorkflowPriority},
		{name: "RetryIsNotAnEnd", fn: testWorkflowRetryNotEnd},
		{name: "FailedDependency", sub: []workflowCase{
			{name: "SkipsDependents", fn: testWorkflowSkips},
			{name: "AllowFailure", fn: testWorkflowAllowFailure},
			{name: "AllowFailureOnSkipped", fn: testWorkflowAllowFailureSkipped},
			{name: "AnyOutcome", fn: testWorkflowAnyOutcome},
			{name: "AnyOutcomeAfterSkipped", fn: testWorkflowAnyOutcomeSkipped},
			{name: "CancelOutcome", fn: testWorkflowCancelOutcome},
			{name: "CancelledJob", fn: testWorkflowCancelledJob},
			{name: "DeletedJob", fn: testWorkflowDeletedJob},
			{name: "LeaseExpired", fn: testWorkflowLeaseExpired},
		}},
		{name: "DeletedAfterSuccess", fn: testWorkflowDeletedDone},
		{name: "CancelWorkflow", sub: []workflowCase{
			{name: "WaitingReadyRunning", fn: testCancelWorkflow},
			{name: "RunningTaskAcked", fn: testCancelWorkflowAcked},
			{name: "NothingRunning", fn: testCancelWorkflowIdle},
			{name: "Ended", fn: testCancelWorkflowEnded},
		}},
		{name: "Requeue", sub: []workflowCase{
			{name: "DeadTaskReopens", fn: testWorkflowRequeueDead},
			{name: "DoneTaskRunsAgain", fn: testWorkflowRequeueDone},
		}},
		{name: "RetryWorkflow", sub: []workflowCase{
			{name: "FailedTasks", fn: testRetryWorkflow},
			{name: "NothingFailed", fn: testRetryWorkflowNothing},
			{name: "AnyOutcomeRanAlready", fn: testRetryWorkflowAnyOutcomeRan},
			{name: "CancelledRefused", fn: testRetryWorkflowCancelled},
		}},
		{name: "AddTasks", sub: []workflowCase{
			{name: "FanOut", fn: testAddTasksFanOut},
			{name: "SameNamesAgain", fn: testAddTasksAgain},
			{name: "InvalidReferences", fn: testAddTasksInvalid},
			{name: "AfterEnd", fn: testAddTasksEnded},
			{name: "None", fn: testAddTasksNone},
		}},
		{name: "Invalid", sub: invalidWorkflowCases()},
		{name: "DuplicateID", fn: testWorkflowDuplicate},
		{name: "TaskResults", fn: testTaskResults},
		{name: "TaskDeps", fn: testTaskDeps},
		{name: "ListWorkflows", sub: []workflowCase{
			{name: "StateAndSearch", fn: testListWorkflows},
			{name: "Pages", fn: testListWorkflowsPages},
		}},
		{name: "Retention", sub: []workflowCase{
			{name: "Removed", fn: testWorkflowRetention},
			{name: "IDFreeAgain", fn: testWorkflowIDReused},
		}},
		{name: "HeldJobID", sub: []workflowCase{
			{name: "Finished", fn: testWorkflowHeldFinished},
			{name: "Live", fn: testWorkflowHeldLive},
		}},
		{name: "UnknownWorkflow", fn: testWorkflowUnknown},
		{name: "InvalidIDs", fn: testWorkflowInvalidIDs},
	}
}

// testWorkflowRecord: GetWorkflow reports a new workflow as it was given
// (name, default retention, creation time, every task in order with its
// queue, kind, job ID, dependencies and flags), running with its first
// task enqueued and the others waiting; the first task's job is ready in
// its queue as it was given, the others' are nowhere.
func testWorkflowRecord(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	ta := wfTask(wf, q[0], "a")
	ta.Job.Meta["tenant"] = "acme"
	tb := wfTask(wf, q[1], "b", "a")
	tb.AllowFailure = true
	tc := wfTask(wf, q[0], "c", "a", "b")
	tc.AnyOutcome = true
	before := time.Now()
	enqueueWorkflow(t, w, &store.NewWorkflow{ID: wf, Name: "nightly report", Tasks: []*store.NewTask{ta, tb, tc}})
	after := time.Now()

	r := requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskEnqueued, "b": store.TaskWaiting, "c": store.TaskWaiting})
	if r.Name != "nightly report" || r.Cancelled || r.Retention != store.DefaultWorkflowRetention {
		t.Fatalf("new workflow: Name %q, Cancelled %v, Retention %v; want %q, not cancelled, DefaultWorkflowRetention (%v)",
			r.Name, r.Cancelled, r.Retention, "nightly report", store.DefaultWorkflowRetention)
	}
	requireNow(t, "CreatedAt of a new workflow", r.CreatedAt, before, after)
	want := []store.TaskRecord{
		{Name: "a", Queue: q[0], Kind: kind, JobID: store.TaskJobID(wf, "a"), State: store.TaskEnqueued},
		{Name: "b", Queue: q[1], Kind: kind, JobID: store.TaskJobID(wf, "b"), Deps: []string{"a"}, AllowFailure: true, State: store.TaskWaiting},
		{Name: "c", Queue: q[0], Kind: kind, JobID: store.TaskJobID(wf, "c"), Deps: []string{"a", "b"}, AnyOutcome: true, State: store.TaskWaiting},
	}
	if !slices.EqualFunc(r.Tasks, want, sameTask) {
		t.Fatalf("tasks of a new workflow: %+v, want %+v (in the order given)", r.Tasks, want)
	}
	got := requireReady(t, s, q[0], store.TaskJobID(wf, "a"))[0]
	if got.Kind != kind || string(got.Args) != "args of a" || !maps.Equal(got.Meta, ta.Job.Meta) {
		t.Fatalf("job of the first task: Kind %q, Args %q, Meta %v; want %q, %q, %v (the task's job as given)", got.Kind, got.Args, got.Meta, kind, "args of a", ta.Job.Meta)
	}
	requireReady(t, s, q[1])
	requireNoTaskJob(t, a, q[1], wf, "b", "its dependency has not ended")
	requireNoTaskJob(t, a, q[0], wf, "c", "its dependencies have not ended")
}

// sameTask compares task records, dependencies as sets.
func sameTask(got, want store.TaskRecord) bool {
	return got.Name == want.Name && got.Queue == want.Queue && got.Kind == want.Kind && got.JobID == want.JobID &&
		got.AllowFailure == want.AllowFailure && got.AnyOutcome == want.AnyOutcome && got.AddedBy == want.AddedBy &&
		got.State == want.State && sameSet(got.Deps, want.Deps)
}

// testWorkflowChain: in a chain a -> b -> c over three queues, each task
// is claimable only once the one before was acked (not while it runs), and
// at once then; the workflow succeeds with the last ack.
func testWorkflowChain(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 3)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a"), wfTask(wf, q[2], "c", "b")))
	requireNoJobs(t, s, "b and c wait for a", q[1], q[2])

	ca := claimTask(t, s, q[0], wf, "a")
	if string(ca.Args) != "args of a" || ca.Kind != kind {
		t.Fatalf("claimed task a: Kind %q, Args %q; want its job's", ca.Kind, ca.Args)
	}
	requireNoJobs(t, s, "b waits until a is acked, not while it runs", q[1])
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskEnqueued, "b": store.TaskWaiting, "c": store.TaskWaiting})
	ack(t, s, ca, nil)
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskSucceeded, "b": store.TaskEnqueued, "c": store.TaskWaiting})
	requireNoJobs(t, s, "c waits for b", q[2])

	runTask(t, s, q[1], wf, "b")
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskEnqueued})
	cc := claimTask(t, s, q[2], wf, "c")
	before := time.Now()
	ack(t, s, cc, nil)
	r := requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded})
	requireNow(t, "EndedAt of a workflow whose last task was acked", r.EndedAt, before, time.Now())
	requireNoJobs(t, s, "every task ran once", q...)
}

// testWorkflowDiamond: a -> (b, c) -> d: b and c are released together
// when a is acked, and d only when both are.
func testWorkflowDiamond(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 4)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf,
		wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a"), wfTask(wf, q[2], "c", "a"), wfTask(wf, q[3], "d", "b", "c")))
	requireNoJobs(t, s, "b, c and d wait for a", q[1], q[2], q[3])
	runTask(t, s, q[0], wf, "a")
	cb := claimTask(t, s, q[1], wf, "b")
	cc := claimTask(t, s, q[2], wf, "c")
	ack(t, s, cc, nil)
	requireNoJobs(t, s, "d waits for b too", q[3])
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskSucceeded, "b": store.TaskEnqueued, "c": store.TaskSucceeded, "d": store.TaskWaiting})
	ack(t, s, cb, nil)
	runTask(t, s, q[3], wf, "d")
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded, "d": store.TaskSucceeded})
	requireNoJobs(t, s, "every task ran once", q...)
}

// testWorkflowFanIn: 1,000 tasks over four queues, all feeding one: the
// fan-in task is released only by the last ack (999 acks sent at once
// from several goroutines leave it waiting), and exactly once.
func testWorkflowFanIn(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	const n = 1000
	q := newQueues(t, 4)
	jq := newQueue(t)
	wf := newWorkflowID(t)
	names := seqIDs("t", n)
	tasks := make([]*store.NewTask, 0, n+1)
	for i, name := range names {
		tasks = append(tasks, wfTask(wf, q[i%len(q)], name))
	}
	tasks = append(tasks, wfTask(wf, jq, "join", names...))
	enqueueWorkflow(t, w, newWorkflow(wf, tasks...))
	requireNoJobs(t, s, "the fan-in waits for its 1,000 dependencies", jq)

	var reqs []store.AttemptEnd
	for _, qn := range q {
		for _, c := range claimAll(t, s, qn, 500) {
			reqs = append(reqs, outcome(c, store.OutcomeAck))
		}
	}
	if len(reqs) != n {
		t.Fatalf("claimed %d jobs from the four queues, want the %d tasks with no dependencies", len(reqs), n)
	}
	rand.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
	finishConcurrently(t, s, reqs[:n-1], 8, 25)
	requireNoJobs(t, s, "the fan-in waits for its last dependency", jq)
	want := taskStates{"join": store.TaskWaiting}
	for _, name := range names {
		want[name] = store.TaskSucceeded
	}
	_, last, _ := store.ParseTaskJobID(reqs[n-1].ID)
	want[last] = store.TaskEnqueued
	r := requireWorkflow(t, w, wf, store.WorkflowRunning, want)
	if deps := taskRecord(t, r, "join").Deps; len(deps) != n {
		t.Fatalf("the fan-in task lists %d dependencies, want %d", len(deps), n)
	}

	finishOK(t, s, reqs[n-1])
	got := claimAll(t, s, jq, 10)
	join := got[store.TaskJobID(wf, "join")]
	if len(got) != 1 || join == nil {
		t.Fatalf("after the last dependency's ack, the fan-in's queue held %v, want the fan-in task's job once", slices.Sorted(maps.Keys(got)))
	}
	ack(t, s, join, nil)
	want[last], want["join"] = store.TaskSucceeded, store.TaskSucceeded
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, want)
	requireNoJobs(t, s, "every task ran once", append(q, jq)...)
}

// testWorkflowFanInRacing: the acks of every dependency of a fan-in sent
// at once, one per Finish call from many goroutines, release it exactly
// once.
func testWorkflowFanInRacing(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	const n = 64
	q := newQueues(t, 2)
	jq := newQueue(t)
	wf := newWorkflowID(t)
	names := seqIDs("t", n)
	tasks := make([]*store.NewTask, 0, n+1)
	for i, name := range names {
		tasks = append(tasks, wfTask(wf, q[i%len(q)], name))
	}
	tasks = append(tasks, wfTask(wf, jq, "join", names...))
	enqueueWorkflow(t, w, newWorkflow(wf, tasks...))
	var reqs []store.AttemptEnd
	for _, qn := range q {
		for _, c := range claimAll(t, s, qn, n) {
			reqs = append(reqs, outcome(c, store.OutcomeAck))
		}
	}
	if len(reqs) != n {
		t.Fatalf("claimed %d jobs, want the %d tasks with no dependencies", len(reqs), n)
	}
	finishConcurrently(t, s, reqs, n, 1)
	got := claimAll(t, s, jq, 10)
	join := got[store.TaskJobID(wf, "join")]
	if len(got) != 1 || join == nil {
		t.Fatalf("after %d acks sent at once, the fan-in's queue held %v, want the fan-in task's job once", n, slices.Sorted(maps.Keys(got)))
	}
	ack(t, s, join, nil)
	r := getWorkflow(t, w, wf)
	if r.State != store.WorkflowSucceeded || nonZero(r.Counts)[store.TaskSucceeded] != n+1 {
		t.Fatalf("workflow after every task was acked: %s, Counts %v; want succeeded with %d tasks succeeded", r.State, r.Counts, n+1)
	}
	requireNoJobs(t, s, "every task ran once", append(q, jq)...)
}

// testWorkflowDelayed: a task's job with a Delay is released into pending,
// due that long after its release.
func testWorkflowDelayed(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	tb := wfTask(wf, q[1], "b", "a")
	tb.Job.Delay = long
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), tb))
	runTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskSucceeded, "b": store.TaskEnqueued})
	requireNoJobs(t, s, "b's job is due an hour after its release", q[1])
	requireNextIn(t, maintain(t, s, q[1], store.MaintainOpts{}), long, "a task released with Delay 1h")
	requireHeld(t, s, q[1], store.TaskJobID(wf, "b"), "b was released, due in an hour")
}

// testWorkflowRetryNotEnd: a task's job released, snoozed or retried
// has not ended: its dependent keeps waiting; moved to garbage at last, it
// has failed.
func testWorkflowRetryNotEnd(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	ta := wfTask(wf, q[0], "a")
	ta.Job.MaxRetries = 3
	enqueueWorkflow(t, w, newWorkflow(wf, ta, wfTask(wf, q[1], "b", "a")))
	running := taskStates{"a": store.TaskEnqueued, "b": store.TaskWaiting}

	c := claimTask(t, s, q[0], wf, "a")
	finishOK(t, s, outcome(c, store.OutcomeRelease))
	requireWorkflow(t, w, wf, store.WorkflowRunning, running)
	c = claimTask(t, s, q[0], wf, "a")
	finishOK(t, s, outcome(c, store.OutcomeSnooze))
	requireWorkflow(t, w, wf, store.WorkflowRunning, running)
	c = claimWhenDue(t, s, q[0], long)
	finishOK(t, s, failed(c, store.OutcomeRetry, "try again", 0))
	requireWorkflow(t, w, wf, store.WorkflowRunning, running)
	requireNoJobs(t, s, "a has not ended", q[1])

	c = claimWhenDue(t, s, q[0], long)
	if c.ID != store.TaskJobID(wf, "a") {
		t.Fatalf("claimed %q, want task a's job again", c.ID)
	}
	kill(t, s, c)
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped})
}

// testWorkflowSkips: a task that dies skips its dependents, and theirs in
// turn; their jobs never appear in any queue. The workflow runs on while
// another task does, then fails.
func testWorkflowSkips(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
	q := newQueues(t, 4)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf,
		wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a"), wfTask(wf, q[2], "c", "b"), wfTask(wf, q[3], "d")))
	failTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskSkipped, "d": store.TaskEnqueued})
	requireNoJobs(t, s, "b and c were skipped", q[1], q[2])
	requireNoTaskJob(t, a, q[1], wf, "b", "b was skipped")
	requireNoTaskJob(t, a, q[2], wf, "c", "c was skipped")

	runTask(t, s, q[3], wf, "d")
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskSkipped, "d": store.TaskSucceeded})
	requireNoJobs(t, s, "b and c were skipped", q[1], q[2])
}

// testWorkflowAllowFailure: the dependent of a task with AllowFailure runs
// when it fails, and the workflow succeeds.
func testWorkflowAllowFailure(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	ta := wfTask(wf, q[0], "a")
	ta.AllowFailure = true
	enqueueWorkflow(t, w, newWorkflow(wf, ta, wfTask(wf, q[1], "b", "a")))
	failTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskFailed, "b": store.TaskEnqueued})
	runTask(t, s, q[1], wf, "b")
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskFailed, "b": store.TaskSucceeded})
}

// testWorkflowAllowFailureSkipped: a task with AllowFailure that is
// skipped lets its dependent run; the workflow fails (a task was skipped).
func testWorkflowAllowFailureSkipped(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q, wf := chainOfThree(t, w, func(b *store.NewTask) { b.AllowFailure = true })
	failTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskEnqueued})
	requireNoJobs(t, s, "b was skipped", q[1])
	runTask(t, s, q[2], wf, "c")
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskSucceeded})
}

// testWorkflowAnyOutcome: a task with AnyOutcome runs when its dependency
// fails, and its own dependents follow it; the workflow fails (a task
// failed without AllowFailure).
func testWorkflowAnyOutcome(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q, wf := chainOfThree(t, w, func(b *store.NewTask) { b.AnyOutcome = true })
	failTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskFailed, "b": store.TaskEnqueued, "c": store.TaskWaiting})
	runTask(t, s, q[1], wf, "b")
	runTask(t, s, q[2], wf, "c")
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSucceeded, "c": store.TaskSucceeded})
}

// testWorkflowAnyOutcomeSkipped: a task with AnyOutcome runs when its
// dependency was skipped.
func testWorkflowAnyOutcomeSkipped(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 3)
	wf := newWorkflowID(t)
	tc := wfTask(wf, q[2], "c", "b")
	tc.AnyOutcome = true
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a"), tc))
	failTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskEnqueued})
	runTask(t, s, q[2], wf, "c")
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskSucceeded})
	requireNoJobs(t, s, "b was skipped", q[1])
}

// testWorkflowCancelOutcome: a task's job its worker finishes as cancelled
// makes the task cancelled, which counts as failed: its dependent is
// skipped, and the workflow fails (it was not cancelled).
func testWorkflowCancelOutcome(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	finishOK(t, s, outcome(claimTask(t, s, q[0], wf, "a"), store.OutcomeCancel))
	r := requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskCancelled, "b": store.TaskSkipped})
	if r.Cancelled {
		t.Fatalf("workflow whose task's job was cancelled reports Cancelled, want not (CancelWorkflow was not called)")
	}
	requireNoJobs(t, s, "b was skipped", q[1])
}

// testWorkflowCancelledJob: Admin.CancelJob of a task's ready job cancels the
// task, which counts as failed.
func testWorkflowCancelledJob(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
	needAdmin(t, a)
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	cancel(t, a, q[0], store.TaskJobID(wf, "a"), store.StateReady)
	r := requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskCancelled, "b": store.TaskSkipped})
	if r.Cancelled {
		t.Fatalf("workflow whose task's job was cancelled reports Cancelled, want not (CancelWorkflow was not called)")
	}
	requireNoJobs(t, s, "a was cancelled and b skipped", q...)
	requireNoTaskJob(t, a, q[1], wf, "b", "b was skipped")
}

// testWorkflowDeletedJob: a task's job deleted before it was done makes
// the task failed.
func testWorkflowDeletedJob(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
	needAdmin(t, a)
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	del(t, a, q[0], store.StateReady, []string{store.TaskJobID(wf, "a")}, 1)
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped})
	requireNoJobs(t, s, "a was deleted and b skipped", q...)
}

// testWorkflowLeaseExpired: a task's job whose lease expires with no
// attempts left reaches garbage through Maintain, and the task has failed
// when Maintain returns.
func testWorkflowLeaseExpired(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	claimOne(t, s, q[0], store.TaskJobID(wf, "a"), 50*time.Millisecond)
	awaitReclaim(t, s, q[0])
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped})
	requireNoJobs(t, s, "a's job died and b was skipped", q...)
}

// testWorkflowDeletedDone: deleting a task's job kept in done changes
// nothing: the task had succeeded.
func testWorkflowDeletedDone(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
	needAdmin(t, a)
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	r := outcome(claimTask(t, s, q[0], wf, "a"), store.OutcomeAck)
	r.Retention = long
	finishOK(t, s, r)
	del(t, a, q[0], store.StateDone, []string{store.TaskJobID(wf, "a")}, 1)
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskSucceeded, "b": store.TaskEnqueued})
	runTask(t, s, q[1], wf, "b")
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded})
}

// testCancelWorkflow: CancelWorkflow cancels the waiting tasks, moves the
// ready released job to garbage cancelled, and flags the running one
// (Extend reports it); the workflow, marked cancelled, runs until that job
// ends, then ends as cancelled.
func testCancelWorkflow(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
	needAdmin(t, a)
	q := newQueues(t, 4)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf,
		wfTask(wf, q[0], "run"), wfTask(wf, q[1], "ready"), wfTask(wf, q[2], "after", "run"), wfTask(wf, q[3], "later", "ready")))
	c := claimTask(t, s, q[0], wf, "run")
	if err := w.CancelWorkflow(t.Context(), wf); err != nil {
		t.Fatalf("CancelWorkflow(%q): unexpected error: %v", wf, err)
	}
	r := requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{
		"run": store.TaskEnqueued, "ready": store.TaskCancelled, "after": store.TaskCancelled, "later": store.TaskCancelled})
	if !r.Cancelled {
		t.Fatalf("workflow after CancelWorkflow, its running task not ended: Cancelled false, want true")
	}
	if g := requireState(t, a, q[1], store.TaskJobID(wf, "ready"), store.StateGarbage); !g.Cancelled {
		t.Fatalf("ready task's job after CancelWorkflow: in garbage, Cancelled false; want it cancelled")
	}
	requireNoJobs(t, s, "the workflow was cancelled", q[1], q[2], q[3])
	requireNoTaskJob(t, a, q[2], wf, "after", "its workflow was cancelled before it was released")
	if st := extend(t, s, long, ref(c))[0]; !st.Held || !st.Cancel {
		t.Fatalf("Extend of the running task's job after CancelWorkflow: %+v, want Held and Cancel", st)
	}
	if g := requireState(t, a, q[0], c.ID, store.StateUnack); !g.Cancelled {
		t.Fatalf("running task's job after CancelWorkflow: Cancelled false, want flagged")
	}

	before := time.Now()
	finishOK(t, s, outcome(c, store.OutcomeCancel))
	r = requireWorkflow(t, w, wf, store.WorkflowCancelled, taskStates{
		"run": store.TaskCancelled, "ready": store.TaskCancelled, "after": store.TaskCancelled, "later": store.TaskCancelled})
	requireNow(t, "EndedAt of a cancelled workflow", r.EndedAt, before, time.Now())
	requireNoJobs(t, s, "the workflow was cancelled", q...)
}

// testCancelWorkflowAcked: a running task acked after CancelWorkflow has
// succeeded, yet its dependents, cancelled, never run, and the workflow
// ends as cancelled.
func testCancelWorkflowAcked(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "run"), wfTask(wf, q[1], "after", "run")))
	c := claimTask(t, s, q[0], wf, "run")
	if err := w.CancelWorkflow(t.Context(), wf); err != nil {
		t.Fatalf("CancelWorkflow(%q): unexpected error: %v", wf, err)
	}
	ack(t, s, c, nil)
	r := requireWorkflow(t, w, wf, store.WorkflowCancelled, taskStates{"run": store.TaskSucceeded, "after": store.TaskCancelled})
	if !r.Cancelled {
		t.Fatalf("cancelled workflow: Cancelled false, want true")
	}
	requireNoJobs(t, s, "the workflow was cancelled", q[1])
}

// testCancelWorkflowIdle: a workflow with no running task ends as
// cancelled when CancelWorkflow returns; its ready job is never claimed.
func testCancelWorkflowIdle(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	before := time.Now()
	if err := w.CancelWorkflow(t.Context(), wf); err != nil {
		t.Fatalf("CancelWorkflow(%q): unexpected error: %v", wf, err)
	}
	r := requireWorkflow(t, w, wf, store.WorkflowCancelled, taskStates{"a": store.TaskCancelled, "b": store.TaskCancelled})
	if !r.Cancelled {
		t.Fatalf("cancelled workflow: Cancelled false, want true")
	}
	requireNow(t, "EndedAt of a workflow cancelled with nothing running", r.EndedAt, before, time.Now())
	requireNoJobs(t, s, "the workflow was cancelled", q...)
}

// testCancelWorkflowEnded: cancelling an ended workflow changes nothing.
func testCancelWorkflowEnded(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueue(t)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q, "a")))
	runTask(t, s, q, wf, "a")
	was := requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded})
	if err := w.CancelWorkflow(t.Context(), wf); err != nil {
		t.Fatalf("CancelWorkflow of a succeeded workflow: got %v, want nil (nothing to do)", err)
	}
	r := requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded})
	if r.Cancelled || !r.EndedAt.Equal(was.EndedAt) {
		t.Fatalf("succeeded workflow after CancelWorkflow: Cancelled %v, EndedAt %v; want unchanged (not cancelled, %v)", r.Cancelled, r.EndedAt, was.EndedAt)
	}
}

// testWorkflowRequeueDead: Admin.RequeueJobs of a dead task's job re-opens its
// failed workflow: the task runs again, the tasks it skipped wait again,
// and the workflow can then succeed.
func testWorkflowRequeueDead(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
	needAdmin(t, a)
	q := newQueues(t, 3)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a"), wfTask(wf, q[2], "c", "b")))
	failTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskSkipped})

	requeue(t, a, q[0], store.StateGarbage, []string{store.TaskJobID(wf, "a")}, 1)
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskEnqueued, "b": store.TaskWaiting, "c": store.TaskWaiting})
	requireNoJobs(t, s, "b and c wait for a again", q[1], q[2])
	c := claimTask(t, s, q[0], wf, "a")
	if c.Attempt != 2 {
		t.Fatalf("requeued task's job claimed with Attempt %d, want 2 (attempts kept)", c.Attempt)
	}
	ack(t, s, c, nil)
	runTask(t, s, q[1], wf, "b")
	runTask(t, s, q[2], wf, "c")
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded})
}

// testWorkflowRequeueDone: a done task's job requeued runs again without
// changing its workflow, even when it dies this time.
func testWorkflowRequeueDone(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
	needAdmin(t, a)
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	r := outcome(claimTask(t, s, q[0], wf, "a"), store.OutcomeAck)
	r.Retention = long
	finishOK(t, s, r)
	runTask(t, s, q[1], wf, "b")
	done := taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded}
	was := requireWorkflow(t, w, wf, store.WorkflowSucceeded, done)

	requeue(t, a, q[0], store.StateDone, []string{store.TaskJobID(wf, "a")}, 1)
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, done)
	failTask(t, s, q[0], wf, "a")
	if r := requireWorkflow(t, w, wf, store.WorkflowSucceeded, done); !r.EndedAt.Equal(was.EndedAt) {
		t.Fatalf("workflow after its done task's job was requeued and died: EndedAt %v, want unchanged %v", r.EndedAt, was.EndedAt)
	}
	requireNoJobs(t, s, "b ran once", q[1])
}

// testRetryWorkflow: RetryWorkflow requeues the jobs of the failed tasks
// (in any queue) and says how many; the workflow re-opens, their skipped
// dependent waits again, and all can then succeed.
func testRetryWorkflow(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 4)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf,
		wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b"), wfTask(wf, q[2], "c", "a", "b"), wfTask(wf, q[3], "d")))
	failTask(t, s, q[0], wf, "a")
	failTask(t, s, q[1], wf, "b")
	runTask(t, s, q[3], wf, "d")
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskFailed, "c": store.TaskSkipped, "d": store.TaskSucceeded})

	n, err := w.RetryWorkflow(t.Context(), wf)
	if err != nil || n != 2 {
		t.Fatalf("RetryWorkflow of a workflow with two failed tasks: got %d, %v; want 2, nil", n, err)
	}
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskEnqueued, "b": store.TaskEnqueued, "c": store.TaskWaiting, "d": store.TaskSucceeded})
	requireNoJobs(t, s, "c waits for a and b again; d succeeded", q[2], q[3])
	runTask(t, s, q[0], wf, "a")
	requireNoJobs(t, s, "c waits for b", q[2])
	runTask(t, s, q[1], wf, "b")
	runTask(t, s, q[2], wf, "c")
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded, "d": store.TaskSucceeded})
}

// testRetryWorkflowAnyOutcomeRan: a task that ran on a dependency's
// failure (AnyOutcome) is not run again when RetryWorkflow brings the
// dependency back: the retried task's success ends the workflow
// succeeded, and only it ran again.
func testRetryWorkflowAnyOutcomeRan(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q, wf := chainOfThree(t, w, func(b *store.NewTask) { b.AnyOutcome = true })
	failTask(t, s, q[0], wf, "a")
	runTask(t, s, q[1], wf, "b")
	runTask(t, s, q[2], wf, "c")
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskFailed, "b": store.TaskSucceeded, "c": store.TaskSucceeded})
	if n, err := w.RetryWorkflow(t.Context(), wf); err != nil || n != 1 {
		t.Fatalf("RetryWorkflow with one failed task: got %d, %v; want 1, nil", n, err)
	}
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskEnqueued, "b": store.TaskSucceeded, "c": store.TaskSucceeded})
	runTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded})
	requireNoJobs(t, s, "b and c ran after a's failure and are not run again", q[1], q[2])
}

// testRetryWorkflowNothing: RetryWorkflow of a workflow with no failed
// task requeues nothing and leaves it as it is.
func testRetryWorkflowNothing(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueue(t)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q, "a")))
	runTask(t, s, q, wf, "a")
	if n, err := w.RetryWorkflow(t.Context(), wf); err != nil || n != 0 {
		t.Fatalf("RetryWorkflow of a succeeded workflow: got %d, %v; want 0, nil", n, err)
	}
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded})
	requireNoJobs(t, s, "nothing was retried", q)
}

// testRetryWorkflowCancelled: a cancelled workflow is not retried, even
// with a failed task.
func testRetryWorkflowCancelled(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b")))
	failTask(t, s, q[0], wf, "a")
	if err := w.CancelWorkflow(t.Context(), wf); err != nil {
		t.Fatalf("CancelWorkflow(%q): unexpected error: %v", wf, err)
	}
	want := taskStates{"a": store.TaskFailed, "b": store.TaskCancelled}
	requireWorkflow(t, w, wf, store.WorkflowCancelled, want)
	n, err := w.RetryWorkflow(t.Context(), wf)
	requireErrIs(t, "RetryWorkflow of a cancelled workflow", err, store.ErrWorkflowEnded)
	requireErrText(t, "RetryWorkflow of a cancelled workflow", err, store.WorkflowCancelledError(wf))
	if n != 0 {
		t.Fatalf("RetryWorkflow of a cancelled workflow reported %d jobs requeued, want 0", n)
	}
	requireWorkflow(t, w, wf, store.WorkflowCancelled, want)
	requireNoJobs(t, s, "a cancelled workflow is not retried", q...)
}

// testAddTasksFanOut: a running task adds tasks to its workflow: one with
// no dependency is released at once; ones that wait for the running task
// are released by its ack; one may wait for others of the same call; and
// the waiting fan-in they block waits for every one of them.
func testAddTasksFanOut(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 4)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "split"), wfTask(wf, q[1], "join", "split")))
	split := claimTask(t, s, q[0], wf, "split")

	eager := wfTask(wf, q[2], "eager")
	m0 := wfTask(wf, q[2], "m0", "split")
	m1 := wfTask(wf, q[3], "m1", "split")
	sum := wfTask(wf, q[3], "sum", "m0", "m1")
	for _, nt := range []*store.NewTask{eager, m0, m1, sum} {
		nt.Blocks = []string{"join"}
	}
	if err := w.AddTasks(t.Context(), wf, "split", []*store.NewTask{eager, m0, m1, sum}); err != nil {
		t.Fatalf("AddTasks by the running task: unexpected error: %v", err)
	}
	r := requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{
		"split": store.TaskEnqueued, "join": store.TaskWaiting,
		"eager": store.TaskEnqueued, "m0": store.TaskWaiting, "m1": store.TaskWaiting, "sum": store.TaskWaiting})
	if got := taskNames(r); !slices.Equal(got, []string{"split", "join", "eager", "m0", "m1", "sum"}) {
		t.Fatalf("tasks after AddTasks: %v, want the added ones after the others, in the order given", got)
	}
	for _, name := range []string{"eager", "m0", "m1", "sum"} {
		if tr := taskRecord(t, r, name); tr.AddedBy != "split" {
			t.Fatalf("added task %q: AddedBy %q, want %q", name, tr.AddedBy, "split")
		}
	}
	if tr := taskRecord(t, r, "split"); tr.AddedBy != "" {
		t.Fatalf("task of EnqueueWorkflow: AddedBy %q, want empty", tr.AddedBy)
	}
	wantJoin := store.TaskRecord{Name: "join", Queue: q[1], Kind: kind, JobID: store.TaskJobID(wf, "join"),
		Deps: []string{"split", "eager", "m0", "m1", "sum"}, State: store.TaskWaiting}
	if got := taskRecord(t, r, "join"); !sameTask(got, wantJoin) {
		t.Fatalf("fan-in task after AddTasks: %+v, want %+v (it waits for the added tasks it is blocked by)", got, wantJoin)
	}

	runTask(t, s, q[2], wf, "eager")
	requireNoJobs(t, s, "m0, m1 and sum wait for split", q[2], q[3])
	ack(t, s, split, nil)
	requireNoJobs(t, s, "join waits for the added tasks", q[1])
	runTask(t, s, q[2], wf, "m0")
	cm1 := claimTask(t, s, q[3], wf, "m1")
	requireNoJobs(t, s, "sum waits for m1", q[3])
	ack(t, s, cm1, nil)
	requireNoJobs(t, s, "join waits for sum", q[1])
	runTask(t, s, q[3], wf, "sum")
	runTask(t, s, q[1], wf, "join")
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{
		"split": store.TaskSucceeded, "join": store.TaskSucceeded,
		"eager": store.TaskSucceeded, "m0": store.TaskSucceeded, "m1": store.TaskSucceeded, "sum": store.TaskSucceeded})
	requireNoJobs(t, s, "every task ran once", q...)
}

// testAddTasksAgain: AddTasks with names the workflow already has leaves
// those tasks as they are (a retried handler adds them again), and adds
// the new ones of the same call; each task's job is enqueued once.
func testAddTasksAgain(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 4)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "split"), wfTask(wf, q[1], "join", "split")))
	split := claimTask(t, s, q[0], wf, "split")
	m0 := wfTask(wf, q[2], "m0", "split")
	m0.Blocks = []string{"join"}
	if err := w.AddTasks(t.Context(), wf, "split", []*store.NewTask{m0}); err != nil {
		t.Fatalf("AddTasks: unexpected error: %v", err)
	}
	if err := w.AddTasks(t.Context(), wf, "split", []*store.NewTask{m0}); err != nil {
		t.Fatalf("AddTasks of the same task again: got %v, want nil (nothing to do)", err)
	}
	// m0 again, elsewhere and without dependencies, next to a new task.
	again := wfTask(wf, q[3], "m0")
	again.Blocks = []string{"join"}
	m1 := wfTask(wf, q[2], "m1", "split")
	m1.Blocks = []string{"join"}
	if err := w.AddTasks(t.Context(), wf, "split", []*store.NewTask{again, m1}); err != nil {
		t.Fatalf("AddTasks of a task the workflow has and a new one: unexpected error: %v", err)
	}
	r := requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{
		"split": store.TaskEnqueued, "join": store.TaskWaiting, "m0": store.TaskWaiting, "m1": store.TaskWaiting})
	want := store.TaskRecord{Name: "m0", Queue: q[2], Kind: kind, JobID: store.TaskJobID(wf, "m0"), Deps: []string{"split"}, AddedBy: "split", State: store.TaskWaiting}
	if got := taskRecord(t, r, "m0"); !sameTask(got, want) {
		t.Fatalf("task m0 after it was added again differently: %+v, want it as first added: %+v", got, want)
	}
	requireNoJobs(t, s, "m0 was left waiting for split", q[3])

	ack(t, s, split, nil)
	got := claimAll(t, s, q[2], 10)
	if len(got) != 2 || got[store.TaskJobID(wf, "m0")] == nil || got[store.TaskJobID(wf, "m1")] == nil {
		t.Fatalf("after split's ack, its queue held %v, want the jobs of m0 and m1 once each", slices.Sorted(maps.Keys(got)))
	}
	requireNoJobs(t, s, "m0 was added once, in its first queue", q[3])
	for _, c := range got {
		ack(t, s, c, nil)
	}
	runTask(t, s, q[1], wf, "join")
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{
		"split": store.TaskSucceeded, "join": store.TaskSucceeded, "m0": store.TaskSucceeded, "m1": store.TaskSucceeded})
}

// testAddTasksInvalid: AddTasks fails with ErrInvalidWorkflow, adding
// nothing, for a task that depends on a waiting or unknown task, or blocks
// an unknown task or one no longer waiting.
func testAddTasksInvalid(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 3)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "split"), wfTask(wf, q[1], "join", "split")))
	claimTask(t, s, q[0], wf, "split")
	blocking := func(name string, blocks ...string) *store.NewTask {
		nt := wfTask(wf, q[2], name)
		nt.Blocks = blocks
		return nt
	}
	// Each store words the refusal as store.AddTasksRefused does: the
	// same text from either (they differed).
	bad := []struct {
		what  string
		tasks []*store.NewTask
		want  error
	}{
		{"a task depending on a waiting task", []*store.NewTask{wfTask(wf, q[2], "x", "join")},
			store.AddTasksRefused(wf, store.RefuseDepWaiting, "x", "join")},
		{"a task depending on an unknown task", []*store.NewTask{wfTask(wf, q[2], "x", "ghost")},
			store.AddTasksRefused(wf, store.RefuseDepMissing, "x", "ghost")},
		{"a task blocking an unknown task", []*store.NewTask{blocking("x", "ghost")},
			store.AddTasksRefused(wf, store.RefuseBlocksMissing, "x", "ghost")},
		{"a task blocking a task that is not waiting", []*store.NewTask{blocking("x", "split")},
			store.AddTasksRefused(wf, store.RefuseBlocksStarted, "x", "split")},
		{"a task blocking a task added with it", []*store.NewTask{wfTask(wf, q[2], "y"), blocking("x", "y")},
			store.AddTasksRefused(wf, store.RefuseBlocksAdded, "x", "y")},
		{"a valid task next to one depending on a waiting task", []*store.NewTask{blocking("ok", "join"), wfTask(wf, q[2], "x", "join")},
			store.AddTasksRefused(wf, store.RefuseDepWaiting, "x", "join")},
	}
	for _, b := range bad {
		err := w.AddTasks(t.Context(), wf, "split", b.tasks)
		requireErrIs(t, "AddTasks of "+b.what, err, store.ErrInvalidWorkflow)
		requireErrText(t, "AddTasks of "+b.what, err, b.want)
		r := requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"split": store.TaskEnqueued, "join": store.TaskWaiting})
		if deps := taskRecord(t, r, "join").Deps; !slices.Equal(deps, []string{"split"}) {
			t.Fatalf("after AddTasks of %s failed, join depends on %v, want [split] (nothing added)", b.what, deps)
		}
	}
	requireNoJobs(t, s, "no task was added", q[2])
}

// testAddTasksEnded: AddTasks to a workflow that has ended fails with
// ErrWorkflowEnded.
func testAddTasksEnded(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a")))
	runTask(t, s, q[0], wf, "a")
	err := w.AddTasks(t.Context(), wf, "a", []*store.NewTask{wfTask(wf, q[1], "late", "a")})
	requireErrIs(t, "AddTasks to a succeeded workflow", err, store.ErrWorkflowEnded)
	requireErrText(t, "AddTasks to a succeeded workflow", err, store.WorkflowClosedError(wf))
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded})
	requireNoJobs(t, s, "no task was added", q[1])
}

// testAddTasksNone: AddTasks of no tasks changes nothing and returns
// nil, whatever the workflow: running, ended or unknown (as an Enqueue of
// no jobs does, the store need not look it up). An invalid workflow ID or
// adding task is still refused (testWorkflowInvalidIDs).
func testAddTasksNone(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	running, ended := newWorkflowID(t), newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(running, wfTask(running, q[0], "a")))
	enqueueWorkflow(t, w, newWorkflow(ended, wfTask(ended, q[1], "a")))
	runTask(t, s, q[1], ended, "a")
	for _, c := range []struct{ what, wf string }{
		{"a running workflow", running},
		{"an ended workflow", ended},
		{"an unknown workflow", newWorkflowID(t)},
	} {
		if err := w.AddTasks(t.Context(), c.wf, "a", nil); err != nil {
			t.Fatalf("AddTasks of no tasks to %s: %v, want nil", c.what, err)
		}
	}
	requireWorkflow(t, w, running, store.WorkflowRunning, taskStates{"a": store.TaskEnqueued})
	requireWorkflow(t, w, ended, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded})
}

// invalidWorkflowCases: EnqueueWorkflow of a malformed workflow fails with
// ErrInvalidWorkflow and stores nothing: no workflow, no job of its tasks
// (not even of a valid task with no dependency), and its ID stays free.
func invalidWorkflowCases() []workflowCase {
	bad := []struct {
		name  string
		spoil func(wf, q string) []*store.NewTask
	}{
		{"Cycle", func(wf, q string) []*store.NewTask {
			return []*store.NewTask{wfTask(wf, q, "a", "c"), wfTask(wf, q, "b", "a"), wfTask(wf, q, "c", "b")}
		}},
		{"SelfDependency", func(wf, q string) []*store.NewTask { return []*store.NewTask{wfTask(wf, q, "a", "a")} }},
		{"UnknownDependency", func(wf, q string) []*store.NewTask { return []*store.NewTask{wfTask(wf, q, "a", "ghost")} }},
		{"DuplicateTaskName", func(wf, q string) []*store.NewTask { return []*store.NewTask{wfTask(wf, q, "a"), wfTask(wf, q, "a")} }},
		{"WrongJobID", func(wf, q string) []*store.NewTask {
			nt := wfTask(wf, q, "a")
			nt.Job.ID = "not-the-task-job-id"
			return []*store.NewTask{nt}
		}},
		{"MissingMeta", func(wf, q string) []*store.NewTask {
			nt := wfTask(wf, q, "a")
			delete(nt.Job.Meta, store.MetaTask)
			return []*store.NewTask{nt}
		}},
		{"BlocksAtEnqueue", func(wf, q string) []*store.NewTask {
			nt := wfTask(wf, q, "a")
			nt.Blocks = []string{"root"}
			return []*store.NewTask{nt}
		}},
	}
	var cases []workflowCase
	for _, b := range bad {
		cases = append(cases, workflowCase{name: b.name, fn: func(t *testing.T, s store.Store, w store.Workflows, a store.Admin) {
			q := newQueues(t, 2)
			wf := newWorkflowID(t)
			nw := newWorkflow(wf, append([]*store.NewTask{wfTask(wf, q[0], "root")}, b.spoil(wf, q[1])...)...)
			dup, err := w.EnqueueWorkflow(t.Context(), nw)
			requireErrIs(t, "EnqueueWorkflow of a workflow with a "+b.name, err, store.ErrInvalidWorkflow)
			if dup {
				t.Fatalf("EnqueueWorkflow of an invalid workflow reported a duplicate")
			}
			requireNoWorkflow(t, w, wf, "EnqueueWorkflow of it failed")
			requireNoJobs(t, s, "the workflow was refused", q...)
			requireNoTaskJob(t, a, q[0], wf, "root", "the workflow was refused")
			enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "root")))
			requireReady(t, s, q[0], store.TaskJobID(wf, "root"))
		}})
	}
	return cases
}

// testWorkflowDuplicate: EnqueueWorkflow of an ID already held, running or
// ended, reports a duplicate and stores nothing of the second workflow.
func testWorkflowDuplicate(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 3)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	other := newWorkflow(wf, wfTask(wf, q[2], "x"), wfTask(wf, q[0], "a"))
	for _, when := range []string{"running", "ended"} {
		if when == "ended" {
			runTask(t, s, q[0], wf, "a")
			runTask(t, s, q[1], wf, "b")
		}
		dup, err := w.EnqueueWorkflow(t.Context(), other)
		if err != nil || !dup {
			t.Fatalf("EnqueueWorkflow of the ID of a %s workflow: duplicate %v, error %v; want duplicate, nil", when, dup, err)
		}
		requireNoJobs(t, s, "the duplicate workflow was not stored", q[2])
	}
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded})
	requireNoJobs(t, s, "every task of the first workflow ran once", q...)
}

// testTaskResults: a fan-in task reads the results its dependencies
// recorded with their acks (bytes as given, whatever they hold); a task
// that recorded none, failed, or has not succeeded yet has none.
func testTaskResults(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 4)
	wf := newWorkflowID(t)
	tc := wfTask(wf, q[2], "c")
	tc.AllowFailure = true
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b"), tc, wfTask(wf, q[3], "d", "a", "b", "c")))
	resA := []byte("result of a \x00\xff{}")
	ack(t, s, claimTask(t, s, q[0], wf, "a"), resA)
	ack(t, s, claimTask(t, s, q[1], wf, "b"), nil)
	failTask(t, s, q[2], wf, "c")

	cd := claimTask(t, s, q[3], wf, "d")
	names := []string{"a", "b", "c", "d"}
	res := taskResults(t, w, wf, names)
	if !bytes.Equal(res[0], resA) || res[1] != nil || res[2] != nil || res[3] != nil {
		t.Fatalf("TaskResults(%v) read by the fan-in task: %q; want [%q, nil (none recorded), nil (failed), nil (running)]", names, res, resA)
	}
	ack(t, s, cd, []byte("result of d"))
	res = taskResults(t, w, wf, []string{"d", "a"})
	if string(res[0]) != "result of d" || !bytes.Equal(res[1], resA) {
		t.Fatalf("TaskResults([d a]) once the workflow ended: %q, want [%q %q] (one per name, in order)", res, "result of d", resA)
	}
}

// taskResults calls TaskResults or fails the test; it returns one result
// per name.
func taskResults(t *testing.T, w store.Workflows, wf string, names []string) [][]byte {
	t.Helper()
	res, err := w.TaskResults(t.Context(), wf, names)
	if err != nil {
		t.Fatalf("TaskResults(%q, %v): unexpected error: %v", wf, names, err)
	}
	if len(res) != len(names) {
		t.Fatalf("TaskResults(%q, %v) returned %d results, want one per name", wf, names, len(res))
	}
	return res
}

// testListWorkflows: ListWorkflows keeps the workflows in a state, or
// whose ID starts with or whose name holds the search, newest first,
// without tasks but with their counts; Counts counts every workflow per
// state.
func testListWorkflows(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 3)
	prefix := newWorkflowID(t) + "."
	ok, bad, run := prefix+"ok", prefix+"bad", prefix+"run"
	enqueueWorkflow(t, w, newWorkflow(ok, wfTask(ok, q[0], "a")))
	runTask(t, s, q[0], ok, "a")
	enqueueWorkflow(t, w, newWorkflow(bad, wfTask(bad, q[1], "a"), wfTask(bad, q[1], "b", "a")))
	failTask(t, s, q[1], bad, "a")
	enqueueWorkflow(t, w, newWorkflow(run, wfTask(run, q[2], "a"), wfTask(run, q[2], "b", "a")))
	token := "tok" + randomHex(6)
	other := newWorkflowID(t)
	nw := newWorkflow(other, wfTask(other, q[2], "a"))
	nw.Name = "named " + token + " by its owner"
	enqueueWorkflow(t, w, nw)

	p := listWorkflows(t, w, store.ListWorkflowsOpts{Search: prefix})
	if p.Total != 3 || !sameSet(listedIDs(p), []string{ok, bad, run}) {
		t.Fatalf("ListWorkflows(Search %q): %v, Total %d; want %v, Total 3", prefix, listedIDs(p), p.Total, []string{run, bad, ok})
	}
	want := map[string]struct {
		state  store.WorkflowState
		counts map[store.TaskState]int
	}{
		ok:  {store.WorkflowSucceeded, map[store.TaskState]int{store.TaskSucceeded: 1}},
		bad: {store.WorkflowFailed, map[store.TaskState]int{store.TaskFailed: 1, store.TaskSkipped: 1}},
		run: {store.WorkflowRunning, map[store.TaskState]int{store.TaskEnqueued: 1, store.TaskWaiting: 1}},
	}
	for _, r := range p.Workflows {
		wnt := want[r.ID]
		if r.State != wnt.state || !maps.Equal(nonZero(r.Counts), wnt.counts) || r.Name != "storetest "+r.ID {
			t.Fatalf("listed workflow %q: %s, Counts %v, Name %q; want %s, Counts %v, Name %q", r.ID, r.State, r.Counts, r.Name, wnt.state, wnt.counts, "storetest "+r.ID)
		}
	}
	for _, st := range []store.WorkflowState{store.WorkflowSucceeded, store.WorkflowFailed, store.WorkflowRunning} {
		if p.Counts[st] < 1 {
			t.Fatalf("ListWorkflows Counts %v: %s counts %d, want at least the workflow of this test", p.Counts, st, p.Counts[st])
		}
	}
	if p.Counts[store.WorkflowRunning] < 2 {
		t.Fatalf("ListWorkflows Counts %v: running counts %d, want at least the 2 running workflows of this test", p.Counts, p.Counts[store.WorkflowRunning])
	}

	for id, wnt := range want {
		p := listWorkflows(t, w, store.ListWorkflowsOpts{Search: prefix, State: wnt.state})
		if p.Total != 1 || !slices.Equal(listedIDs(p), []string{id}) {
			t.Fatalf("ListWorkflows(Search %q, State %s): %v, Total %d; want [%s], Total 1", prefix, wnt.state, listedIDs(p), p.Total, id)
		}
	}
	p = listWorkflows(t, w, store.ListWorkflowsOpts{Search: token})
	if p.Total != 1 || !slices.Equal(listedIDs(p), []string{other}) {
		t.Fatalf("ListWorkflows(Search %q, part of a workflow's name): %v, Total %d; want [%s], Total 1", token, listedIDs(p), p.Total, other)
	}
	p = listWorkflows(t, w, store.ListWorkflowsOpts{State: store.WorkflowFailed, Limit: 1000})
	if !slices.Contains(listedIDs(p), bad) || slices.Contains(listedIDs(p), ok) || slices.Contains(listedIDs(p), run) || p.Total < 1 {
		t.Fatalf("ListWorkflows(State failed): %v, Total %d; want %s among them, and neither %s nor %s", listedIDs(p), p.Total, bad, ok, run)
	}
	for _, r := range p.Workflows {
		if r.State != store.WorkflowFailed {
			t.Fatalf("ListWorkflows(State failed) listed %q in state %s", r.ID, r.State)
		}
	}
}

// sameSet reports whether got and want hold the same strings, in any
// order.
func sameSet(got, want []string) bool {
	return slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(want)))
}

// testListWorkflowsPages: Offset and Limit page a listing; Total counts
// every match on each page.
func testListWorkflowsPages(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueue(t)
	prefix := newWorkflowID(t) + "."
	var all []string
	for i := range 5 {
		id := prefix + string(rune('a'+i))
		enqueueWorkflow(t, w, newWorkflow(id, wfTask(id, q, "a")))
		all = append(all, id)
	}
	var listed []store.WorkflowRecord
	for off := 0; off < 6; off += 2 {
		p := listWorkflows(t, w, store.ListWorkflowsOpts{Search: prefix, Offset: off, Limit: 2})
		if wantN := min(2, max(0, 5-off)); p.Total != 5 || len(p.Workflows) != wantN {
			t.Fatalf("ListWorkflows(Search %q, Offset %d, Limit 2): %v, Total %d; want %d workflows, Total 5", prefix, off, listedIDs(p), p.Total, wantN)
		}
		listed = append(listed, p.Workflows...)
	}
	got := listedIDs(store.WorkflowPage{Workflows: listed})
	if !sameSet(got, all) {
		t.Fatalf("pages of 2 of ListWorkflows(Search %q): %v, want each of %v once", prefix, got, all)
	}
	for i := 1; i < len(listed); i++ {
		if listed[i].CreatedAt.After(listed[i-1].CreatedAt) {
			t.Fatalf("pages of ListWorkflows list %q (created %v) after %q (created %v), want newest first across pages",
				listed[i].ID, listed[i].CreatedAt, listed[i-1].ID, listed[i-1].CreatedAt)
		}
	}
	if p := listWorkflows(t, w, store.ListWorkflowsOpts{Search: prefix, Offset: 5, Limit: 2}); len(p.Workflows) != 0 || p.Total != 5 {
		t.Fatalf("ListWorkflows(Search %q, Offset 5): %v, Total %d; want none, Total 5", prefix, listedIDs(p), p.Total)
	}
}

// testWorkflowRetention: an ended workflow is removed by MaintainWorkflows
// once its Retention has passed (GetWorkflow, TaskResults and
// ListWorkflows no longer find it); one still running is kept, whatever
// its retention, and one with a longer retention stays.
func testWorkflowRetention(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	const short = 300 * time.Millisecond
	q := newQueues(t, 3)
	gone, running, kept := newWorkflowID(t), newWorkflowID(t), newWorkflowID(t)
	for _, c := range []struct {
		id        string
		q         string
		retention time.Duration
	}{{gone, q[0], short}, {running, q[1], short}, {kept, q[2], long}} {
		nw := newWorkflow(c.id, wfTask(c.id, c.q, "a"))
		nw.Retention = c.retention
		enqueueWorkflow(t, w, nw)
		if r := getWorkflow(t, w, c.id); r.Retention != c.retention {
			t.Fatalf("workflow enqueued with Retention %v: Retention %v", c.retention, r.Retention)
		}
	}
	runTask(t, s, q[0], gone, "a")
	runTask(t, s, q[2], kept, "a")

	awaitWorkflowGone(t, w, gone)
	_, err := w.TaskResults(t.Context(), gone, []string{"a"})
	requireErrIs(t, "TaskResults of a workflow removed after its retention", err, store.ErrWorkflowNotFound)
	if p := listWorkflows(t, w, store.ListWorkflowsOpts{Search: gone}); len(p.Workflows) != 0 {
		t.Fatalf("ListWorkflows(Search %q) after it was removed: %v, want none", gone, listedIDs(p))
	}
	requireWorkflow(t, w, running, store.WorkflowRunning, taskStates{"a": store.TaskEnqueued})
	requireWorkflow(t, w, kept, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded})
}

// testWorkflowIDReused: once a workflow is removed after its retention,
// its ID is free: a new workflow of that ID is stored, and its task's job
// replaces the old one's, kept in done.
func testWorkflowIDReused(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueue(t)
	wf := newWorkflowID(t)
	nw := newWorkflow(wf, wfTask(wf, q, "a"))
	nw.Retention = 300 * time.Millisecond
	enqueueWorkflow(t, w, nw)
	r := outcome(claimTask(t, s, q, wf, "a"), store.OutcomeAck)
	r.Retention = long
	finishOK(t, s, r)
	awaitWorkflowGone(t, w, wf)

	second := newWorkflow(wf, wfTask(wf, q, "a"))
	second.Tasks[0].Job.Args = []byte("second run")
	enqueueWorkflow(t, w, second)
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskEnqueued})
	c := claimTask(t, s, q, wf, "a")
	if string(c.Args) != "second run" || c.Attempt != 1 {
		t.Fatalf("task of the workflow that reused the ID: Args %q, Attempt %d; want %q, 1 (a new job)", c.Args, c.Attempt, "second run")
	}
	ack(t, s, c, nil)
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded})
}

// testWorkflowHeldFinished: a task released while a finished job (done or
// garbage) holds its job ID replaces that job.
func testWorkflowHeldFinished(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 3)
	wf := newWorkflowID(t)
	drive(t, s, job(q[0], store.TaskJobID(wf, "a")), store.StateDone)
	drive(t, s, job(q[1], store.TaskJobID(wf, "b")), store.StateGarbage)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[2], "c", "a"), wfTask(wf, q[1], "b", "c")))
	ca := claimTask(t, s, q[0], wf, "a")
	if string(ca.Args) != "args of a" || ca.Attempt != 1 {
		t.Fatalf("task released over a done job of its ID: claimed Args %q, Attempt %d; want the task's job (%q, attempt 1)", ca.Args, ca.Attempt, "args of a")
	}
	ack(t, s, ca, nil)
	runTask(t, s, q[2], wf, "c")
	cb := claimTask(t, s, q[1], wf, "b")
	if string(cb.Args) != "args of b" || cb.Attempt != 1 {
		t.Fatalf("task released over a job of its ID in garbage: claimed Args %q, Attempt %d; want the task's job (%q, attempt 1)", cb.Args, cb.Attempt, "args of b")
	}
	ack(t, s, cb, nil)
	requireWorkflow(t, w, wf, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded})
}

// testWorkflowHeldLive: a task released while a waiting job holds its job
// ID takes that job as its own: it is not enqueued twice, and that job's
// end is the task's.
func testWorkflowHeldLive(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	wf := newWorkflowID(t)
	live := job(q[1], store.TaskJobID(wf, "b"))
	live.Args = []byte("already here")
	add(t, s, live)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b", "a")))
	runTask(t, s, q[0], wf, "a")
	requireWorkflow(t, w, wf, store.WorkflowRunning, taskStates{"a": store.TaskSucceeded, "b": store.TaskEnqueued})
	got := claimAll(t, s, q[1], 10)
	c := got[live.ID]
	if len(got) != 1 || c == nil {
		t.Fatalf("queue of task b, whose job ID a ready job held: %v, want that job once", slices.Sorted(maps.Keys(got)))
	}
	kill(t, s, c)
	requireWorkflow(t, w, wf, store.WorkflowFailed, taskStates{"a": store.TaskSucceeded, "b": store.TaskFailed})
}

// testWorkflowUnknown: every method naming a workflow that was never
// stored fails with ErrWorkflowNotFound.
func testWorkflowUnknown(t *testing.T, _ store.Store, w store.Workflows, _ store.Admin) {
	wf := newWorkflowID(t)
	ctx := t.Context()
	_, err := w.GetWorkflow(ctx, wf)
	requireErrIs(t, "GetWorkflow of an unknown workflow", err, store.ErrWorkflowNotFound)
	requireErrText(t, "GetWorkflow of an unknown workflow", err, store.WorkflowNotFound(wf))
	requireErrIs(t, "CancelWorkflow of an unknown workflow", w.CancelWorkflow(ctx, wf), store.ErrWorkflowNotFound)
	_, err = w.RetryWorkflow(ctx, wf)
	requireErrIs(t, "RetryWorkflow of an unknown workflow", err, store.ErrWorkflowNotFound)
	_, err = w.TaskResults(ctx, wf, []string{"a"})
	requireErrIs(t, "TaskResults of an unknown workflow", err, store.ErrWorkflowNotFound)
	_, err = w.TaskDeps(ctx, wf, "a", true)
	requireErrIs(t, "TaskDeps of an unknown workflow", err, store.ErrWorkflowNotFound)
	err = w.AddTasks(ctx, wf, "a", []*store.NewTask{wfTask(wf, newQueue(t), "b")})
	requireErrIs(t, "AddTasks to an unknown workflow", err, store.ErrWorkflowNotFound)
	if errors.Is(err, store.ErrInvalidWorkflow) {
		t.Fatalf("AddTasks to an unknown workflow: %v, want ErrWorkflowNotFound alone", err)
	}
}

// testWorkflowPriority: a task's job keeps its priority when the workflow
// enqueues it, at the start or released by a dependency.
func testWorkflowPriority(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 2)
	add(t, s, job(q[1], "plain"))
	wf := newWorkflowID(t)
	low, high, next := wfTask(wf, q[0], "low"), wfTask(wf, q[0], "high"), wfTask(wf, q[1], "next", "high")
	low.Job.Priority, high.Job.Priority, next.Job.Priority = -1, 2, 3
	enqueueWorkflow(t, w, newWorkflow(wf, low, high, next))
	ch := claimTask(t, s, q[0], wf, "high")
	if ch.Priority != 2 {
		t.Fatalf("claimed task high: Priority %d, want 2", ch.Priority)
	}
	ack(t, s, ch, nil)
	// next, released by high's ack, goes ahead of the plain job that was
	// ready before it.
	claimTask(t, s, q[1], wf, "next")
	claimTask(t, s, q[0], wf, "low")
}

// testWorkflowInvalidIDs: a workflow ID or task name that could never be
// stored (empty, or with a space) gives an error wrapping
// store.ErrInvalidWorkflow, not ErrWorkflowNotFound, from GetWorkflow,
// CancelWorkflow, RetryWorkflow, TaskResults and TaskDeps; MaintainWorkflows refuses a negative batch with one
// wrapping store.ErrInvalidConfig.
func testWorkflowInvalidIDs(t *testing.T, _ store.Store, w store.Workflows, _ store.Admin) {
	ctx := t.Context()
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, newQueue(t), "a")))
	for _, id := range []string{"", "bad id"} {
		_, err := w.GetWorkflow(ctx, id)
		requireErrIs(t, "GetWorkflow("+id+")", err, store.ErrInvalidWorkflow)
		requireErrIs(t, "CancelWorkflow("+id+")", w.CancelWorkflow(ctx, id), store.ErrInvalidWorkflow)
		_, err = w.RetryWorkflow(ctx, id)
		requireErrIs(t, "RetryWorkflow("+id+")", err, store.ErrInvalidWorkflow)
		_, err = w.TaskResults(ctx, id, []string{"a"})
		requireErrIs(t, "TaskResults("+id+")", err, store.ErrInvalidWorkflow)
		_, err = w.TaskDeps(ctx, id, "a", true)
		requireErrIs(t, "TaskDeps("+id+")", err, store.ErrInvalidWorkflow)
		_, err = w.TaskDeps(ctx, wf, id, true)
		requireErrIs(t, "TaskDeps(task "+id+")", err, store.ErrInvalidWorkflow)
		requireErrIs(t, "AddTasks("+id+") of no tasks", w.AddTasks(ctx, id, "a", nil), store.ErrInvalidWorkflow)
		requireErrIs(t, "AddTasks of no tasks by task "+id, w.AddTasks(ctx, wf, id, nil), store.ErrInvalidWorkflow)
	}
	_, err := w.MaintainWorkflows(ctx, -1)
	requireErrIs(t, "MaintainWorkflows(-1)", err, store.ErrInvalidConfig)
}

// chainOfThree enqueues a workflow of tasks a, b after a and c after b,
// in three queues (returned with the workflow's ID), b as set makes it.
func chainOfThree(t *testing.T, w store.Workflows, set func(b *store.NewTask)) ([]string, string) {
	t.Helper()
	q := newQueues(t, 3)
	wf := newWorkflowID(t)
	tb := wfTask(wf, q[1], "b", "a")
	set(tb)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), tb, wfTask(wf, q[2], "c", "b")))
	return q, wf
}
