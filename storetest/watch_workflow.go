package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/hopperq/hopper/store"
)

// watchWorkflowFunc is a WatchWorkflow case: the store as store.Workflows
// and store.WorkflowWaiter.
type watchWorkflowFunc = func(t *testing.T, s store.Store, w store.Workflows, ww store.WorkflowWaiter)

func watchWorkflowCases() []testCase[watchWorkflowFunc] {
	return []testCase[watchWorkflowFunc]{
		{name: "Succeeded", fn: testWatchWorkflowSucceeded},
		{name: "Failed", fn: testWatchWorkflowFailed},
		{name: "Cancelled", fn: testWatchWorkflowCancelled},
		{name: "AlreadyEnded", fn: testWatchWorkflowAlreadyEnded},
		{name: "NotFound", fn: testWatchWorkflowNotFound},
		{name: "ContextEnds", fn: testWatchWorkflowContextEnds},
	}
}

// watchWorkflow starts a watch of id, failing the test on an error.
func watchWorkflow(t *testing.T, ww store.WorkflowWaiter, ctx context.Context, id string) <-chan store.WorkflowEnd {
	t.Helper()
	ch, err := ww.WatchWorkflow(ctx, id)
	if err != nil {
		t.Fatalf("WatchWorkflow(%q): %v", id, err)
	}
	return ch
}

// requireNoEnd fails when ch has delivered.
func requireNoEnd(t *testing.T, ch <-chan store.WorkflowEnd, why string) {
	t.Helper()
	select {
	case e := <-ch:
		t.Fatalf("%s: the watch delivered %+v", why, e)
	default:
	}
}

// awaitWorkflowEnd returns what ch delivers, failing after the suite's wait.
func awaitWorkflowEnd(t *testing.T, ch <-chan store.WorkflowEnd, why string) store.WorkflowEnd {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	select {
	case e, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the watch closed without an end", why)
		}
		return e
	case <-ctx.Done():
		t.Fatalf("%s: no end within %v", why, waitFor)
	}
	return store.WorkflowEnd{}
}

// testWatchWorkflowSucceeded: a watch of a running chain gets nothing while
// it runs and the whole workflow, succeeded, once its last task is acked.
func testWatchWorkflowSucceeded(t *testing.T, s store.Store, w store.Workflows, ww store.WorkflowWaiter) {
	id, qs := newWorkflowID(t), newQueues(t, 2)
	enqueueWorkflow(t, w, newWorkflow(id, wfTask(id, qs[0], "a"), wfTask(id, qs[1], "b", "a")))
	ch := watchWorkflow(t, ww, t.Context(), id)
	second := watchWorkflow(t, ww, t.Context(), id)
	runTask(t, s, qs[0], id, "a")
	requireNoEnd(t, ch, "after the first of two tasks")
	runTask(t, s, qs[1], id, "b")
	for _, c := range []<-chan store.WorkflowEnd{ch, second} {
		e := awaitWorkflowEnd(t, c, "the chain's last ack")
		if e.Err != nil || e.Workflow == nil || e.Workflow.State != store.WorkflowSucceeded || len(e.Workflow.Tasks) != 2 {
			t.Fatalf("end after the last ack: %+v; want the workflow succeeded, with its 2 tasks", e)
		}
	}
}

// testWatchWorkflowFailed: a task that dies ends its workflow failed, and
// the watch says so.
func testWatchWorkflowFailed(t *testing.T, s store.Store, w store.Workflows, ww store.WorkflowWaiter) {
	id, qs := newWorkflowID(t), newQueues(t, 1)
	enqueueWorkflow(t, w, newWorkflow(id, wfTask(id, qs[0], "a"), wfTask(id, qs[0], "b", "a")))
	ch := watchWorkflow(t, ww, t.Context(), id)
	failTask(t, s, qs[0], id, "a")
	if e := awaitWorkflowEnd(t, ch, "the root's death"); e.Err != nil || e.Workflow == nil || e.Workflow.State != store.WorkflowFailed {
		t.Fatalf("end after the root died: %+v; want the workflow failed", e)
	}
}

// testWatchWorkflowCancelled: CancelWorkflow ends a workflow cancelled once
// its running task's job ends.
func testWatchWorkflowCancelled(t *testing.T, s store.Store, w store.Workflows, ww store.WorkflowWaiter) {
	id, qs := newWorkflowID(t), newQueues(t, 1)
	enqueueWorkflow(t, w, newWorkflow(id, wfTask(id, qs[0], "a"), wfTask(id, qs[0], "b", "a")))
	ch := watchWorkflow(t, ww, t.Context(), id)
	c := claimTask(t, s, qs[0], id, "a")
	if err := w.CancelWorkflow(t.Context(), id); err != nil {
		t.Fatalf("CancelWorkflow(%q): %v", id, err)
	}
	ack(t, s, c, nil)
	if e := awaitWorkflowEnd(t, ch, "the cancel"); e.Err != nil || e.Workflow == nil || e.Workflow.State != store.WorkflowCancelled {
		t.Fatalf("end after the cancel: %+v; want the workflow cancelled", e)
	}
}

// testWatchWorkflowAlreadyEnded: a watch of an ended workflow delivers at
// once.
func testWatchWorkflowAlreadyEnded(t *testing.T, s store.Store, w store.Workflows, ww store.WorkflowWaiter) {
	id, qs := newWorkflowID(t), newQueues(t, 1)
	enqueueWorkflow(t, w, newWorkflow(id, wfTask(id, qs[0], "a")))
	runTask(t, s, qs[0], id, "a")
	maintainWorkflows(t, w)
	requireWorkflow(t, w, id, store.WorkflowSucceeded, taskStates{"a": store.TaskSucceeded})
	ch := watchWorkflow(t, ww, t.Context(), id)
	if e := awaitWorkflowEnd(t, ch, "a watch of an ended workflow"); e.Err != nil || e.Workflow == nil || e.Workflow.State != store.WorkflowSucceeded {
		t.Fatalf("watch of an ended workflow: %+v; want it succeeded", e)
	}
	if _, ok := <-ch; ok {
		t.Fatal("the watch delivered twice")
	}
}

// testWatchWorkflowNotFound: an unknown workflow, or an invalid ID, is an
// error at once.
func testWatchWorkflowNotFound(t *testing.T, _ store.Store, _ store.Workflows, ww store.WorkflowWaiter) {
	if _, err := ww.WatchWorkflow(t.Context(), newWorkflowID(t)); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("WatchWorkflow of an unknown workflow: %v, want ErrWorkflowNotFound", err)
	}
	if _, err := ww.WatchWorkflow(t.Context(), "bad id"); !errors.Is(err, store.ErrInvalidWorkflow) {
		t.Fatalf("WatchWorkflow(\"bad id\"): %v, want ErrInvalidWorkflow", err)
	}
}

// testWatchWorkflowContextEnds: a watch whose context ends delivers the
// context's error and closes.
func testWatchWorkflowContextEnds(t *testing.T, _ store.Store, w store.Workflows, ww store.WorkflowWaiter) {
	id, qs := newWorkflowID(t), newQueues(t, 1)
	enqueueWorkflow(t, w, newWorkflow(id, wfTask(id, qs[0], "a")))
	ctx, cancel := context.WithCancel(t.Context())
	ch := watchWorkflow(t, ww, ctx, id)
	cancel()
	if e := awaitWorkflowEnd(t, ch, "the context's end"); !errors.Is(e.Err, context.Canceled) {
		t.Fatalf("end after the context ended: %+v; want context.Canceled", e)
	}
}
