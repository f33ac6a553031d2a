package store

import "fmt"

// The errors of Workflows that both stores return, worded once here so
// that a caller reads the same text from either.

// WorkflowNotFound is the error for a workflow id the store does not
// hold: it wraps ErrWorkflowNotFound.
func WorkflowNotFound(id string) error {
	return fmt.Errorf("%w: %q", ErrWorkflowNotFound, id)
}

// WorkflowCancelledError is RetryWorkflow's error for a cancelled
// workflow id: it wraps ErrWorkflowEnded.
func WorkflowCancelledError(id string) error {
	return fmt.Errorf("%w: workflow %q was cancelled", ErrWorkflowEnded, id)
}

// WorkflowClosedError is AddTasks's error for a workflow id that ended or
// was cancelled: it wraps ErrWorkflowEnded.
func WorkflowClosedError(id string) error {
	return fmt.Errorf("%w: workflow %q cannot take more tasks", ErrWorkflowEnded, id)
}

// Why AddTasks refuses tasks for what they name in the workflow
// (AddTasksRefused); the Redis store's script returns the code.
const (
	RefuseTooMany       = "too_many"       // the workflow would hold more than MaxWorkflowTasks
	RefuseDepMissing    = "dep_missing"    // a dependency the workflow does not have
	RefuseDepWaiting    = "dep_waiting"    // a dependency still waiting
	RefuseBlocksAdded   = "blocks_added"   // Blocks names a task added in the same call
	RefuseBlocksMissing = "blocks_missing" // Blocks names a task the workflow does not have
	RefuseBlocksStarted = "blocks_started" // Blocks names a task no longer waiting
)

// AddTasksRefused is AddTasks's error when task, added to workflow wf,
// names other (a dependency, or a task it blocks) as code (a Refuse*
// constant) says it may not; for RefuseTooMany, other is the most tasks
// allowed. It wraps ErrInvalidWorkflow.
func AddTasksRefused(wf, code, task, other string) error {
	var why string
	switch code {
	case RefuseTooMany:
		why = "the workflow would hold more than " + other + " tasks"
	case RefuseDepMissing:
		why = fmt.Sprintf("task %q depends on %q, which the workflow does not have", task, other)
	case RefuseDepWaiting:
		why = fmt.Sprintf("task %q depends on %q, which is waiting: an added task may wait only for tasks added with it or no longer waiting", task, other)
	case RefuseBlocksAdded:
		why = fmt.Sprintf("task %q blocks %q, a task added with it: use its dependencies", task, other)
	case RefuseBlocksMissing:
		why = fmt.Sprintf("task %q blocks %q, which the workflow does not have", task, other)
	case RefuseBlocksStarted:
		why = fmt.Sprintf("task %q blocks %q, which is no longer waiting", task, other)
	default:
		why = fmt.Sprintf("task %q: %s %q", task, code, other)
	}
	return fmt.Errorf("%w: workflow %q: %s", ErrInvalidWorkflow, wf, why)
}
