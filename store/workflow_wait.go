package store

import "context"

// WorkflowWaiter is implemented by stores that can tell a caller when a
// workflow ends without polling, as JobWaiter does for a job.
// hopper.Client.WaitWorkflow uses it.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type WorkflowWaiter interface {
	// WatchWorkflow starts watching workflow id and returns once the
	// watch is in place: from then on its end cannot be missed. The
	// channel receives one WorkflowEnd and is closed: when the workflow
	// ends (succeeded, failed or cancelled), at once for one that has
	// ended and is still kept, or with ctx's error when ctx ends first. A
	// workflow that runs again after it ended (RetryWorkflow) needs a new
	// watch. An unknown workflow gives an error wrapping
	// ErrWorkflowNotFound, an invalid ID one wrapping ErrInvalidWorkflow.
	WatchWorkflow(ctx context.Context, id string) (<-chan WorkflowEnd, error)
}

// WorkflowEnd is how a watched workflow ended.
type WorkflowEnd struct {
	// Workflow is the workflow as it ended, with its tasks (as
	// Workflows.GetWorkflow returns it); nil when Err is set.
	Workflow *WorkflowRecord
	// Err wraps ErrWorkflowNotFound when the workflow was removed, or is
	// ctx's error when the watch's context ended first.
	Err error
}
