package memstore

import (
	"context"

	"github.com/hopperq/hopper/store"
)

var _ store.WorkflowWaiter = (*Store)(nil)

// WatchWorkflow watches workflow id until it ends or ctx is done (see
// store.WorkflowWaiter). Watching costs the workflow nothing and holds no
// goroutine.
func (s *Store) WatchWorkflow(ctx context.Context, id string) (<-chan store.WorkflowEnd, error) {
	if err := store.ValidateWorkflowID(id); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now, _ := s.now()
	s.wf.mu.Lock()
	defer s.wf.mu.Unlock()
	wf := s.getWorkflow(id, now)
	if wf == nil {
		return nil, notFound(id)
	}
	if wf.state != store.WorkflowRunning {
		return alreadyEnded(store.WorkflowEnd{Workflow: wf.fullRecord()}), nil
	}
	return s.wf.watches.add(ctx, &s.wf.mu, id, func(err error) store.WorkflowEnd { return store.WorkflowEnd{Err: err} }), nil
}

// workflowEnded hands w's end to its watchers. s.wf.mu must be held.
func (s *Store) workflowEnded(w *workflow) {
	s.wf.watches.end(w.id, func() store.WorkflowEnd { return store.WorkflowEnd{Workflow: w.fullRecord()} })
}
