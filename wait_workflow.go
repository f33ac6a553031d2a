package hopper

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/hopperq/hopper/store"
)

// WaitWorkflow blocks until workflow id ends, or ctx is done, and returns
// it as it ended, with its tasks (as Inspector.GetWorkflow returns it),
// without polling: the store tells waiting callers of each workflow's end
// (on Redis, one pub/sub message per workflow end). It returns:
//
//   - the workflow and nil when it succeeded;
//   - the workflow and an error wrapping ErrWorkflowFailed when it failed,
//     naming the tasks whose failure failed it (Inspector.GetJob of a
//     task's JobID has its errors), or also wrapping ErrCancelled when it
//     was cancelled;
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
		return rec, fmt.Errorf("%w: workflow %q%s", ErrWorkflowFailed, rec.ID, failedTasks(rec))
	case WorkflowCancelled:
		return rec, wordedError(fmt.Sprintf("%s (cancelled): workflow %q", ErrWorkflowFailed, rec.ID), ErrWorkflowFailed, ErrCancelled)
	}
	return rec, nil
}

// failedTasks names, for a failed workflow's error, the tasks whose
// failure failed it (failed, not AllowFailure), at most three and how
// many more; empty when the record names none.
func failedTasks(rec *WorkflowRecord) string {
	var names []string
	n := 0
	for _, t := range rec.Tasks {
		if t.State != TaskFailed || t.AllowFailure {
			continue
		}
		if n++; n <= 3 {
			names = append(names, strconv.Quote(t.Name))
		}
	}
	switch {
	case n == 0:
		return ""
	case n == 1:
		return ": task " + names[0] + " failed"
	case n <= 3:
		return ": tasks " + strings.Join(names, ", ") + " failed"
	}
	return fmt.Sprintf(": tasks %s and %d more failed", strings.Join(names, ", "), n-3)
}
