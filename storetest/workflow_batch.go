package storetest

import (
	"bytes"
	"testing"

	"github.com/hopperq/hopper/store"
)

// testWorkflowOneFinishManyEnds: one Finish call that ends several tasks
// of one workflow in different ways (plain acks of tasks nobody waits for,
// an ack with a result, the ack of a task with a dependent, a failure)
// applies every end: the states, the counts, the result, the dependent
// released, and the workflow's end once the last task ends. A store may
// take the usual end (a success nobody waits for) by a shorter path than
// the others; this mixes both in one step.
func testWorkflowOneFinishManyEnds(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueue(t)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf,
		wfTask(wf, q, "a"), wfTask(wf, q, "b"), wfTask(wf, q, "c"),
		wfTask(wf, q, "d"), wfTask(wf, q, "e"), wfTask(wf, q, "f", "d")))
	tasks := claimTaskJobs(t, s, q, 5)
	job := func(name string) *store.JobRecord { return tasks(wf, name) }
	res := []byte("result of b")
	withResult := ackWithResult(job("b"), res)
	finishOK(t, s,
		outcome(job("a"), store.OutcomeAck),
		withResult,
		failed(job("c"), store.OutcomeGarbage, "boom", 0),
		outcome(job("d"), store.OutcomeAck),
		outcome(job("e"), store.OutcomeAck))
	want := taskStates{
		"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskFailed,
		"d": store.TaskSucceeded, "e": store.TaskSucceeded, "f": store.TaskEnqueued,
	}
	requireWorkflow(t, w, wf, store.WorkflowRunning, want)
	if r := taskResults(t, w, wf, []string{"b", "a"}); !bytes.Equal(r[0], res) || r[1] != nil {
		t.Fatalf("TaskResults([b a]) after one Finish of five ends: %q, want [%q nil]", r, res)
	}

	runTask(t, s, q, wf, "f")
	want["f"] = store.TaskSucceeded
	requireWorkflow(t, w, wf, store.WorkflowFailed, want)
	requireNoJobs(t, s, "every task ran once", q)
}

// testWorkflowOneFinishTwoWorkflows: one Finish call whose ends alternate
// between the tasks of two workflows (a success of one, of the other, a
// failure of the first, a success with a result of the second) applies
// each end to its own workflow: a store that files a step's ends by
// workflow must not mix up where one workflow's ends stop and the
// other's begin.
func testWorkflowOneFinishTwoWorkflows(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueue(t)
	one, two := newWorkflowID(t), newWorkflowID(t)
	for _, wf := range []string{one, two} {
		enqueueWorkflow(t, w, newWorkflow(wf,
			wfTask(wf, q, "a"), wfTask(wf, q, "b"), wfTask(wf, q, "c", "a")))
	}
	job := claimTaskJobs(t, s, q, 4)
	res := []byte("result of two's b")
	withResult := ackWithResult(job(two, "b"), res)
	finishOK(t, s,
		outcome(job(one, "a"), store.OutcomeAck),
		outcome(job(two, "a"), store.OutcomeAck),
		failed(job(one, "b"), store.OutcomeGarbage, "boom", 0),
		withResult)
	requireWorkflow(t, w, one, store.WorkflowRunning, taskStates{
		"a": store.TaskSucceeded, "b": store.TaskFailed, "c": store.TaskEnqueued})
	requireWorkflow(t, w, two, store.WorkflowRunning, taskStates{
		"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskEnqueued})
	if r := taskResults(t, w, two, []string{"b", "a"}); !bytes.Equal(r[0], res) || r[1] != nil {
		t.Fatalf("TaskResults([b a]) of the second workflow: %q, want [%q nil]", r, res)
	}
	if r := taskResults(t, w, one, []string{"b"}); r[0] != nil {
		t.Fatalf("TaskResults([b]) of the first workflow: %q, want [nil] (the result was the other's)", r)
	}

	runTask(t, s, q, one, "c")
	runTask(t, s, q, two, "c")
	requireWorkflow(t, w, one, store.WorkflowFailed, taskStates{
		"a": store.TaskSucceeded, "b": store.TaskFailed, "c": store.TaskSucceeded})
	requireWorkflow(t, w, two, store.WorkflowSucceeded, taskStates{
		"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded})
	requireNoJobs(t, s, "every task ran once", q)
}

// testWorkflowOneFinishFanIn: one Finish call that ends every task a
// fan-in waits for releases the fan-in once; in a second workflow, one
// of them failing in the same step (between two successes) skips the
// fan-in instead, whatever order the store applies the step's ends in.
func testWorkflowOneFinishFanIn(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueue(t)
	ok, bad := newWorkflowID(t), newWorkflowID(t)
	for _, wf := range []string{ok, bad} {
		enqueueWorkflow(t, w, newWorkflow(wf,
			wfTask(wf, q, "a"), wfTask(wf, q, "b"), wfTask(wf, q, "c"), wfTask(wf, q, "join", "a", "b", "c")))
	}
	job := claimTaskJobs(t, s, q, 6)
	finishOK(t, s,
		outcome(job(ok, "a"), store.OutcomeAck),
		outcome(job(ok, "b"), store.OutcomeAck),
		outcome(job(ok, "c"), store.OutcomeAck))
	finishOK(t, s,
		outcome(job(bad, "a"), store.OutcomeAck),
		failed(job(bad, "b"), store.OutcomeGarbage, "boom", 0),
		outcome(job(bad, "c"), store.OutcomeAck))
	requireWorkflow(t, w, ok, store.WorkflowRunning, taskStates{
		"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded, "join": store.TaskEnqueued})
	requireWorkflow(t, w, bad, store.WorkflowFailed, taskStates{
		"a": store.TaskSucceeded, "b": store.TaskFailed, "c": store.TaskSucceeded, "join": store.TaskSkipped})

	runTask(t, s, q, ok, "join")
	requireWorkflow(t, w, ok, store.WorkflowSucceeded, taskStates{
		"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskSucceeded, "join": store.TaskSucceeded})
	requireNoJobs(t, s, "the fan-in ran once, the skipped one never", q)
}

// claimTaskJobs claims every ready job of queue q, which must be the n
// tasks without dependencies of the test's workflows, and returns their
// claimed jobs by workflow and task name.
func claimTaskJobs(t *testing.T, s store.Store, q string, n int) func(wf, name string) *store.JobRecord {
	t.Helper()
	got := claimAll(t, s, q, 10)
	if len(got) != n {
		t.Fatalf("claimed %d jobs, want the %d tasks without dependencies", len(got), n)
	}
	return func(wf, name string) *store.JobRecord { return got[store.TaskJobID(wf, name)] }
}

// ackWithResult is the ack of claimed job j with result res.
func ackWithResult(j *store.JobRecord, res []byte) store.AttemptEnd {
	end := outcome(j, store.OutcomeAck)
	end.Result = res
	return end
}
