package redisstore

import (
	"context"
	"errors"
	"time"

	"github.com/hopperq/hopper/store"
)

var _ store.WorkflowWaiter = (*Store)(nil)

// Watching a workflow. The script that ends a workflow (lua/wfgraph/
// flow.lua's end_check, run by whichever script applies its last task's
// end) publishes on "<prefix>:done", where job ends go too, a message of
// the queue "~wf" naming the workflow. WatchWorkflow holds the key on the
// Store's watch subscription before it reads the workflow, so the message
// cannot come too early; it then reads the workflow whole when the message
// comes, and after the subscription was lost and made again. Every
// workflow end costs one PUBLISH, watched or not.

// wfDoneQueue is the queue of a workflow's end message ('~' is in no
// queue name).
const wfDoneQueue = "~wf"

// WatchWorkflow watches workflow id until it ends or ctx is done (see
// store.WorkflowWaiter). The workflow comes back whole, as GetWorkflow
// reads it once it ended. A watch holds one goroutine until it ends, and
// without the end message looks at the workflow's state every watchPoll
// (5 s): a message that never comes (an ACL user without +publish or the
// channels' rights, a failover) delays it by that much at most.
func (s *Store) WatchWorkflow(ctx context.Context, id string) (<-chan store.WorkflowEnd, error) {
	if err := store.ValidateWorkflowID(id); err != nil {
		return nil, err
	}
	if err := s.begin(ctx); err != nil {
		return nil, err
	}
	key := wfDoneQueue + "\x00" + id
	// A subscription the server refuses or cannot make yet leaves the
	// watch to its poll; the read below says whether the server answers.
	if err := s.watch.waitLive(ctx); err != nil && ctx.Err() != nil {
		return nil, err
	}
	snap := s.watch.hold(kindDone, key)
	rec, err := s.GetWorkflow(ctx, id)
	if err != nil {
		s.watch.forget(kindDone, key)
		return nil, err
	}
	ch := make(chan store.WorkflowEnd, 1)
	if rec.State != store.WorkflowRunning {
		s.watch.forget(kindDone, key)
		ch <- store.WorkflowEnd{Workflow: rec}
		close(ch)
		return ch, nil
	}
	go func() {
		defer close(ch)
		defer s.watch.forget(kindDone, key)
		ch <- s.awaitWorkflow(ctx, id, key, snap)
	}()
	return ch, nil
}

// awaitWorkflow waits for workflow id's end message, counting from snap,
// and reads the workflow whenever one came or the subscription came back,
// until it has ended.
func (s *Store) awaitWorkflow(ctx context.Context, id, key string, snap uint64) store.WorkflowEnd {
	keys := []string{key}
	for {
		got, _, err := s.watch.waitFrom(ctx, kindDone, keys, []uint64{snap}, s.watchPoll)
		if ctx.Err() != nil {
			return store.WorkflowEnd{Err: ctx.Err()}
		}
		if err != nil {
			// The subscription failed (it is being made again): look
			// again after a pause.
			sleepCtx(ctx, time.Second)
			if ctx.Err() != nil {
				return store.WorkflowEnd{Err: ctx.Err()}
			}
		} else if len(got) == 0 && s.workflowRunning(ctx, id) {
			continue // watchPoll without news, and it runs on
		}
		snap = s.watch.seqs(kindDone, keys)[0]
		rec, err := s.GetWorkflow(ctx, id)
		switch {
		case err == nil && rec.State != store.WorkflowRunning:
			return store.WorkflowEnd{Workflow: rec}
		case err == nil:
			// Re-opened (a retry) before the read, or the subscription came
			// back: wait on.
		case ctx.Err() != nil:
			return store.WorkflowEnd{Err: ctx.Err()}
		case isWorkflowGone(err):
			return store.WorkflowEnd{Err: err}
		default:
			sleepCtx(ctx, time.Second) // the server is unreachable: try again
		}
	}
}

// isWorkflowGone reports whether err says the workflow is not stored.
func isWorkflowGone(err error) bool { return errors.Is(err, store.ErrWorkflowNotFound) }

// workflowRunning reports whether workflow id is stored and running, as
// its record without tasks says (one HMGET, what a watch's poll costs a
// workflow of any size); true when the read fails, for the watch to wait
// on.
func (s *Store) workflowRunning(ctx context.Context, id string) bool {
	recs, err := s.workflowMetas(ctx, []string{id})
	if err != nil {
		return true
	}
	return len(recs) == 1 && recs[0].State == store.WorkflowRunning
}
