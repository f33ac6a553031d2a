package hopper

import "github.com/hopperq/hopper/store"

// WorkflowRecord is a stored workflow with its state, task counts and (from
// Inspector.GetWorkflow) its tasks.
type WorkflowRecord = store.WorkflowRecord

// TaskRecord is one task of a WorkflowRecord.
type TaskRecord = store.TaskRecord

// ListWorkflowsOpts selects workflows for Inspector.ListWorkflows; the zero value
// lists the newest 50.
type ListWorkflowsOpts = store.ListWorkflowsOpts

// WorkflowPage is one page of Inspector.ListWorkflows.
type WorkflowPage = store.WorkflowPage

// WorkflowState is where a workflow is: running, succeeded, failed or
// cancelled (see Workflow for when each applies).
type WorkflowState = store.WorkflowState

// The states of a workflow.
const (
	WorkflowRunning   = store.WorkflowRunning
	WorkflowSucceeded = store.WorkflowSucceeded
	WorkflowFailed    = store.WorkflowFailed
	WorkflowCancelled = store.WorkflowCancelled
)

// TaskState is where a task is within its workflow: waiting for its
// dependencies, enqueued (its job is in its queue, in whatever job state),
// succeeded, failed, skipped (a dependency failed) or cancelled.
type TaskState = store.TaskState

// The states of a task.
const (
	TaskWaiting   = store.TaskWaiting
	TaskEnqueued  = store.TaskEnqueued
	TaskSucceeded = store.TaskSucceeded
	TaskFailed    = store.TaskFailed
	TaskSkipped   = store.TaskSkipped
	TaskCancelled = store.TaskCancelled
)
