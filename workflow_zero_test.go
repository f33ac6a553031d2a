package hopper_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// TestZeroWorkflow: the zero Workflow is an empty, unnamed workflow that
// AddTask builds on and EnqueueWorkflow stores under a generated ID, as
// NewWorkflow("", nil) is; AddTask on it panicked (a nil map). Its errors
// are kept as on any workflow.
func TestZeroWorkflow(t *testing.T) {
	ctx := t.Context()
	st := newStore()
	c := hopper.NewClient(st, nil)
	var wf hopper.Workflow
	var a *hopper.Task
	if p := panicText(func() {
		a = hopper.AddTask(&wf, "a", Echo{}, nil)
		hopper.AddTask(&wf, "b", Echo{}, nil).After(a)
	}); p != "" {
		t.Fatalf("AddTask on a zero Workflow panicked: %s", p)
	}
	info, err := hopper.EnqueueWorkflow(ctx, c, &wf)
	if err != nil || info.ID == "" || info.Duplicate || wf.ID() != info.ID {
		t.Fatalf("EnqueueWorkflow of a zero Workflow: %+v, %v; want it stored under a generated ID (wf.ID() %q)", info, err, wf.ID())
	}
	rec, err := hopper.NewInspector(st).GetWorkflow(ctx, info.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Tasks) != 2 || rec.Tasks[1].Name != "b" || len(rec.Tasks[1].Deps) != 1 || rec.Tasks[1].Deps[0] != "a" {
		t.Errorf("stored tasks %+v, want a and b after a", rec.Tasks)
	}

	var dup hopper.Workflow
	hopper.AddTask(&dup, "a", Echo{}, nil)
	hopper.AddTask(&dup, "a", Echo{}, nil)
	if _, err := hopper.EnqueueWorkflow(ctx, c, &dup); !errors.Is(err, hopper.ErrInvalidWorkflow) || !strings.Contains(err.Error(), `two tasks are named "a"`) {
		t.Errorf("a zero Workflow with two tasks named a: %v, want ErrInvalidWorkflow naming them", err)
	}
}

// TestWorkflowTaskErrorSaysItsKindFirst: an invalid task job's error
// reads as the workflow's own errors do, the kind of error first, then
// the task: "hopper: invalid queue name: task \"a\": ...".
func TestWorkflowTaskErrorSaysItsKindFirst(t *testing.T) {
	c := hopper.NewClient(memstore.New(nil), nil)
	wf := hopper.NewWorkflow("w", nil)
	hopper.AddTask(wf, "a", DepLeaf{}, &hopper.TaskOpts{Queue: "bad queue"})
	_, err := hopper.EnqueueWorkflow(context.Background(), c, wf)
	if !errors.Is(err, hopper.ErrInvalidQueue) {
		t.Fatalf("EnqueueWorkflow with a task in queue %q: %v, want ErrInvalidQueue", "bad queue", err)
	}
	if want := `hopper: invalid queue name: task "a": "bad queue"`; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %q, want it to start %q", err, want)
	}
}
