package storetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/hopperq/hopper/store"
)

// testTaskDeps: TaskDeps lists a task's dependencies, those it was stored
// with in their order and then those a running task added with Blocks
// naming it, each with its state and, when asked, the result it recorded
// (a succeeded one's only).
func testTaskDeps(t *testing.T, s store.Store, w store.Workflows, _ store.Admin) {
	q := newQueues(t, 5)
	wf := newWorkflowID(t)
	tc := wfTask(wf, q[2], "c")
	tc.AllowFailure = true
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q[0], "a"), wfTask(wf, q[1], "b"), tc, wfTask(wf, q[3], "join", "c", "a", "b")))
	resA, resMore := []byte("result of a \x00\xff{}"), []byte("result of more")
	a := claimTask(t, s, q[0], wf, "a")
	more := wfTask(wf, q[4], "more", "a")
	more.Blocks = []string{"join"}
	if err := w.AddTasks(t.Context(), wf, "a", []*store.NewTask{more}); err != nil {
		t.Fatalf("AddTasks by the running task: unexpected error: %v", err)
	}
	if got := taskDeps(t, w, wf, "a", true); len(got) != 0 {
		t.Fatalf("TaskDeps of a task with no dependencies: %v, want none", got)
	}
	ack(t, s, a, resA)
	ack(t, s, claimTask(t, s, q[1], wf, "b"), nil)
	failTask(t, s, q[2], wf, "c")
	ack(t, s, claimTask(t, s, q[4], wf, "more"), resMore)
	claimTask(t, s, q[3], wf, "join")

	want := []store.TaskDep{{Name: "c", State: store.TaskFailed}, {Name: "a", State: store.TaskSucceeded, Result: resA},
		{Name: "b", State: store.TaskSucceeded}, {Name: "more", State: store.TaskSucceeded, Result: resMore}}
	if got := taskDeps(t, w, wf, "join", true); !sameDeps(got, want) {
		t.Fatalf("TaskDeps(join, results) read by the fan-in task: %s; want %s (stored ones in order, then the added one)", fmtDeps(got), fmtDeps(want))
	}
	for i := range want {
		want[i].Result = nil
	}
	if got := taskDeps(t, w, wf, "join", false); !sameDeps(got, want) {
		t.Fatalf("TaskDeps(join) without results: %s; want %s", fmtDeps(got), fmtDeps(want))
	}
	_, err := w.TaskDeps(t.Context(), wf, "nope", false)
	requireErrIs(t, "TaskDeps of a task the workflow does not have", err, store.ErrInvalidWorkflow)
}

// taskDeps calls TaskDeps or fails the test.
func taskDeps(t *testing.T, w store.Workflows, wf, task string, results bool) []store.TaskDep {
	t.Helper()
	deps, err := w.TaskDeps(t.Context(), wf, task, results)
	if err != nil {
		t.Fatalf("TaskDeps(%q, %q, %v): unexpected error: %v", wf, task, results, err)
	}
	return deps
}

func sameDeps(a, b []store.TaskDep) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].State != b[i].State || !bytes.Equal(a[i].Result, b[i].Result) ||
			(a[i].Result == nil) != (b[i].Result == nil) {
			return false
		}
	}
	return true
}

func fmtDeps(deps []store.TaskDep) string {
	s := "["
	for i, d := range deps {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s:%s", d.Name, d.State)
		if d.Result != nil {
			s += fmt.Sprintf(":%q", d.Result)
		}
	}
	return s + "]"
}
