package hopper

import "github.com/hopperq/hopper/store"

// WorkflowRecord is store.WorkflowRecord.
type WorkflowRecord = store.WorkflowRecord

// ListWorkflowsOpts is store.ListWorkflowsOpts.
type ListWorkflowsOpts = store.ListWorkflowsOpts

// WorkflowPage is store.WorkflowPage.
type WorkflowPage = store.WorkflowPage

// WorkflowState is store.WorkflowState.
type WorkflowState = store.WorkflowState

// The states of a workflow.
const (
	WorkflowRunning   = store.WorkflowRunning
	WorkflowSucceeded = store.WorkflowSucceeded
	WorkflowFailed    = store.WorkflowFailed
	WorkflowCancelled = store.WorkflowCancelled
)

// TaskState is store.TaskState.
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
