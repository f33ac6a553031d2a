package memstore

import (
	"context"
	"slices"

	"github.com/hopperq/hopper/store"
)

var _ store.WorkflowWaiter = (*Store)(nil)

// wfWatch is one WatchWorkflow call waiting. Its fields are guarded by
// s.wf.mu.
type wfWatch struct {
	ch   chan store.WorkflowEnd // one slot: it receives once
	done bool
	stop func() bool // unregisters the context's callback
}

// send delivers the watch's end once. s.wf.mu must be held.
func (w *wfWatch) send(end store.WorkflowEnd) {
	if w.done {
		return
	}
	w.done = true
	w.ch <- end
	close(w.ch)
	if w.stop != nil {
		w.stop()
	}
}

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
	w := &wfWatch{ch: make(chan store.WorkflowEnd, 1)}
	if wf.state != store.WorkflowRunning {
		w.send(store.WorkflowEnd{Workflow: wf.fullRecord()})
		return w.ch, nil
	}
	if s.wf.watches == nil {
		s.wf.watches = make(map[string][]*wfWatch)
	}
	s.wf.watches[id] = append(s.wf.watches[id], w)
	w.stop = context.AfterFunc(ctx, func() {
		s.wf.mu.Lock()
		defer s.wf.mu.Unlock()
		if ws := slices.DeleteFunc(s.wf.watches[id], func(x *wfWatch) bool { return x == w }); len(ws) > 0 {
			s.wf.watches[id] = ws
		} else {
			delete(s.wf.watches, id)
		}
		w.send(store.WorkflowEnd{Err: ctx.Err()})
	})
	return w.ch, nil
}

// workflowEnded hands w's end to its watchers. s.wf.mu must be held.
func (s *Store) workflowEnded(w *workflow) {
	ws, ok := s.wf.watches[w.id]
	if !ok {
		return
	}
	delete(s.wf.watches, w.id)
	for _, x := range ws {
		x.send(store.WorkflowEnd{Workflow: w.fullRecord()})
	}
}
