package memstore

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper/store"
)

// TaskDeps returns task's dependencies in workflow wf (see
// store.Workflows), with copies of their results when results is true.
func (s *Store) TaskDeps(ctx context.Context, wf, task string, results bool) ([]store.TaskDep, error) {
	if err := store.ValidateTaskName(task); err != nil {
		return nil, err
	}
	w, unlock, err := s.lockedWorkflow(ctx, wf)
	if err != nil {
		return nil, err
	}
	defer unlock()
	t := w.byName[task]
	if t == nil {
		return nil, fmt.Errorf("%w: workflow %q has no task %q", store.ErrInvalidWorkflow, wf, task)
	}
	out := make([]store.TaskDep, len(t.deps))
	for i, d := range t.deps {
		out[i] = store.TaskDep{Name: d.name, State: d.state}
		if results && d.state == store.TaskSucceeded {
			out[i].Result = cloneBytes(d.result)
		}
	}
	return out, nil
}
