package store_test

import (
	"errors"
	"testing"

	"github.com/hopperq/hopper/store"
)

// task returns task name of workflow wf, waiting for deps.
func task(wf, name string, deps ...string) *store.NewTask {
	return &store.NewTask{Name: name, Deps: deps, Job: &store.NewJob{
		ID: store.TaskJobID(wf, name), Queue: "q", Kind: "k", Args: []byte{0xc0},
		JobSpec: store.JobSpec{Meta: map[string]string{store.MetaWorkflow: wf, store.MetaTask: name}},
	}}
}

// TestSelfDependencyIsACycle: a task depending on itself is reported as
// the other cycles are, "dependency cycle a -> a", by Validate and by
// ValidateAddedTasks; it was prefixed with the task's index ("task 1:").
func TestSelfDependencyIsACycle(t *testing.T) {
	const want = "hopper: invalid workflow: dependency cycle a -> a"
	w := &store.NewWorkflow{ID: "wf", Tasks: []*store.NewTask{task("wf", "first"), task("wf", "a", "a")}}
	if err := w.Validate(); !errors.Is(err, store.ErrInvalidWorkflow) || err.Error() != want {
		t.Errorf("Validate: %v, want %q", err, want)
	}
	added := []*store.NewTask{task("wf", "b", "first"), task("wf", "a", "a")}
	if err := store.ValidateAddedTasks("wf", "first", added); !errors.Is(err, store.ErrInvalidWorkflow) || err.Error() != want {
		t.Errorf("ValidateAddedTasks: %v, want %q", err, want)
	}
}
