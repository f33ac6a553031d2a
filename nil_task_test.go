package hopper_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestNilTask: ID of a nil *Workflow and Name of a nil *Task are empty; its other methods panic at
// the call with a message naming the method and the nil *Task (they
// panicked with a nil dereference), as do those of a Task not made by
// AddTask. A nil task given to Chain, OnSuccess or OnComplete is an error
// EnqueueWorkflow returns, as a nil dependency given to After is.
func TestNilTask(t *testing.T) {
	var nw *hopper.Workflow
	if p := panicText(func() { _ = nw.ID() }); p != "" {
		t.Errorf("ID on a nil *Workflow panicked: %s", p)
	}
	var nt *hopper.Task
	if p := panicText(func() { _ = nt.Name() }); p != "" {
		t.Errorf("Name on a nil *Task panicked: %s", p)
	} else if nt.Name() != "" {
		t.Errorf("Name on a nil *Task: %q, want empty", nt.Name())
	}
	wf := hopper.NewWorkflow("nil task", nil)
	a := hopper.AddTask(wf, "a", Echo{}, nil)
	methods := map[string]func(*hopper.Task){
		"After":        func(t *hopper.Task) { t.After(a) },
		"AfterNamed":   func(t *hopper.Task) { t.AfterNamed("a") },
		"Before":       func(t *hopper.Task) { t.Before("a") },
		"AllowFailure": func(t *hopper.Task) { t.AllowFailure() },
		"AnyOutcome":   func(t *hopper.Task) { t.AnyOutcome() },
	}
	for name, call := range methods {
		if p := panicText(func() { call(nt) }); !strings.HasPrefix(p, "hopper: Task."+name+" on a nil *Task") {
			t.Errorf("%s on a nil *Task panicked with %q, want a message naming Task.%s and the nil *Task", name, p, name)
		}
		if p := panicText(func() { call(&hopper.Task{}) }); !strings.HasPrefix(p, "hopper: Task."+name+" on a Task not made by AddTask") {
			t.Errorf("%s on a zero Task panicked with %q, want a message naming Task.%s and AddTask", name, p, name)
		}
	}

	c := hopper.NewClient(newStore(), nil)
	for name, build := range map[string]func(wf *hopper.Workflow, a *hopper.Task){
		"Chain":      func(wf *hopper.Workflow, a *hopper.Task) { wf.Chain(a, nil) },
		"OnSuccess":  func(wf *hopper.Workflow, a *hopper.Task) { wf.OnSuccess(nil, a) },
		"OnComplete": func(wf *hopper.Workflow, a *hopper.Task) { wf.OnComplete(nil, a) },
	} {
		wf := hopper.NewWorkflow(name, nil)
		a := hopper.AddTask(wf, "a", Echo{}, nil)
		if p := panicText(func() { build(wf, a) }); p != "" {
			t.Errorf("%s with a nil *Task panicked: %s", name, p)
			continue
		}
		_, err := hopper.EnqueueWorkflow(t.Context(), c, wf)
		if !errors.Is(err, hopper.ErrInvalidWorkflow) || !strings.Contains(err.Error(), name+": ") || !strings.Contains(err.Error(), "is a nil *Task") {
			t.Errorf("EnqueueWorkflow after %s with a nil *Task: %v, want ErrInvalidWorkflow naming %s and the nil *Task", name, err, name)
		}
	}
	var nwf *hopper.Workflow
	if p := panicText(func() { nwf.Chain(a, nil) }); !strings.HasPrefix(p, "hopper: Workflow.Chain on a nil *Workflow, with a nil *Task") {
		t.Errorf("Chain on a nil *Workflow with a nil *Task panicked with %q, want a message naming both", p)
	}
}
