package hopper_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
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
