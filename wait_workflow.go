package hopper

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper/store"
)

// WaitWorkflow blocks until workflow id ends, or ctx is done, and returns
// it as it ended, with its tasks (as Inspector.GetWorkflow returns it),
// without polling: the store tells waiting callers of each workflow's end
// (on Redis, one pub/sub message per workflow end). It returns:
//
//   - the workflow and nil when it succeeded;
//   - the workflow and an error wrapping ErrWorkflowFailed when it failed,
//     also wrapping ErrCancelled when it was cancelled;
//   - an error wrapping ErrWorkflowNotFound for a workflow the store does
//     not hold (never enqueued, or removed after its retention);
//   - ctx's error when ctx ends first (the workflow goes on);
//   - ErrNotSupported for a store that cannot tell (store.WorkflowWaiter);
//   - an error wrapping ErrInvalidConfig for a nil Client;
//   - a store error that will not clear by itself.
//
// A store error that may clear by itself (Redis loading its data after a
// restart, a connection refused or broken: redisstore.Temporary) does not
// end the wait: WaitWorkflow watches again after a backoff (10 ms,
// doubling up to 1 s) until ctx ends. A workflow that ended and is still
// kept returns at once. Safe for concurrent use.
func (c *Client) WaitWorkflow(ctx context.Context, id string) (*WorkflowRecord, error) {
	if c.unmade() {
		return nil, errNilClient
	}
	w, ok := store.As[store.WorkflowWaiter](c.st)
	if !ok {
		return nil, fmt.Errorf("%w: the store (%T) cannot wait for workflows", ErrNotSupported, c.st)
	}
	end, err := watchEnd(ctx, func() (<-chan store.WorkflowEnd, error) { return w.WatchWorkflow(ctx, id) },
		func(e store.WorkflowEnd) error { return e.Err })
	if err != nil {
		return nil, err
	}
	rec := end.Workflow
	switch rec.State {
	case WorkflowFailed:
		return rec, fmt.Errorf("%w: workflow %q", ErrWorkflowFailed, rec.ID)
	case WorkflowCancelled:
		return rec, wordedError(fmt.Sprintf("%s (cancelled): workflow %q", ErrWorkflowFailed, rec.ID), ErrWorkflowFailed, ErrCancelled)
	}
	return rec, nil
}
