package store

import (
	"context"
	"time"
)

// Workflows is implemented by stores that run workflows: jobs (tasks) that
// depend on other jobs. Both stores of this module implement it. A task is
// an ordinary job whose ID is TaskJobID(workflow, task) and whose Meta holds
// MetaWorkflow and MetaTask; the store holds it back, in the workflow's own
// record, until every dependency has ended as the table below says, then
// enqueues it into its queue. Tasks of one workflow may live in different
// queues (on a Redis Cluster, different shards).
//
// A dependency is satisfied when it succeeded (acked); or when it failed
// (reached garbage: dead or cancelled, or deleted) or was skipped, and
// either the dependency has AllowFailure or the dependent has AnyOutcome.
// Cancelled counts as failed. When a dependency ends unsatisfied, the dependent is skipped (it never
// runs), and so, in turn, are its own dependents unless satisfied the same
// way.
//
//	dependency ends as   dependent (default)   dep AllowFailure or dependent AnyOutcome
//	succeeded            may run               may run
//	failed (garbage)     skipped               may run
//	deleted              skipped               may run
//	skipped              skipped               may run
//
// A workflow is running until every task has ended (succeeded, failed,
// skipped or cancelled); it then ends as cancelled if CancelWorkflow was
// called, else failed if any task failed without AllowFailure or was
// skipped, else succeeded. An ended workflow is kept for its Retention,
// then removed with its bookkeeping (its tasks' jobs follow their queues'
// own rules). Requeueing a failed task's job (Admin.RequeueJobs, or
// RetryWorkflow) re-opens its workflow: the task runs again and the tasks
// skipped because of it wait again.
//
// A task's job ending is applied to its workflow before the call that ended
// it returns without error (Finish, Maintain, Admin.CancelJob, Admin.DeleteJobs,
// Admin.RequeueJobs), so dependents it released are claimable at once. How a
// task's job ends: acked (Finish with OutcomeAck) is succeeded; reaching
// garbage is failed, or cancelled when the job was cancelled (Admin.CancelJob,
// CancelWorkflow, OutcomeCancel); deleted while not done is failed.
// Requeueing a done task's job runs it again without changing its
// workflow.
//
// A task's job ID may already be held when the task is released: by a job
// of an earlier workflow with the same ID, removed after its retention.
// A finished job (done or garbage) is replaced; a waiting or running one
// becomes the task's job, and its end is the task's.
//
// Every method is safe for concurrent use. Completions are applied exactly
// once per task end even when a process dies between a job's end and its
// workflow's update (see each store's documentation for how), and a task's
// job is enqueued at most once per workflow. An invalid workflow ID
// (ValidateWorkflowID), or an invalid task for TaskDeps
// (ValidateTaskName), fails with ErrInvalidWorkflow before anything is
// read; TaskResults answers nil for a name no task has.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type Workflows interface {
	// EnqueueWorkflow stores w with every task, or nothing: its tasks
	// with no dependencies are enqueued into their queues, the others
	// wait. A workflow whose ID is already held is not stored again; the
	// call reports duplicate = true. A workflow that fails
	// NewWorkflow.Validate fails the call before anything is written.
	EnqueueWorkflow(ctx context.Context, w *NewWorkflow) (duplicate bool, err error)

	// AddTasks adds tasks to the running workflow wf (a dynamic fan-out:
	// the task by, which must be running, learns them only at run time).
	// A task may depend on tasks of the same call and on tasks of the
	// workflow that are no longer waiting (by itself, typically); its
	// Blocks names waiting tasks that must now also wait for it. Tasks
	// whose name the workflow already has are left as they are, so a
	// retried handler may add the same tasks again. It fails with
	// ErrWorkflowNotFound, with ErrInvalidWorkflow for a bad task or
	// reference, and with ErrWorkflowEnded once the workflow has ended.
	// With no tasks it returns nil once wf and by pass
	// ValidateAddedTasks, without looking wf up.
	AddTasks(ctx context.Context, wf, by string, tasks []*NewTask) error

	// TaskResults returns the results the named tasks of workflow wf
	// recorded when they succeeded (hopper.RecordResult), one per name in
	// order; nil for a task that recorded none or has not succeeded. It
	// fails with ErrWorkflowNotFound.
	TaskResults(ctx context.Context, wf string, tasks []string) ([][]byte, error)

	// TaskDeps returns the dependencies of task of workflow wf, in one
	// read: those it was stored with, in their order, then those added
	// later by AddTasks with Blocks naming it, in the order added. Each
	// comes with its state and, when results is true, with its result as
	// TaskResults returns it. It fails with ErrWorkflowNotFound, and with
	// ErrInvalidWorkflow when wf has no task named task.
	TaskDeps(ctx context.Context, wf, task string, results bool) ([]TaskDep, error)

	// GetWorkflow returns the workflow with every task. It fails with
	// ErrWorkflowNotFound.
	GetWorkflow(ctx context.Context, id string) (*WorkflowRecord, error)

	// ListWorkflows returns workflows matching f, newest first, without
	// their tasks, and how many match in all.
	ListWorkflows(ctx context.Context, f ListWorkflowsOpts) (WorkflowPage, error)

	// CancelWorkflow cancels workflow id: tasks still waiting are
	// cancelled and never run, the jobs of released tasks are cancelled
	// as Admin.CancelJob does (waiting jobs go to garbage, running ones are
	// flagged), and the workflow ends as cancelled once every task has
	// ended. Cancelling an ended workflow changes nothing. It fails with
	// ErrWorkflowNotFound.
	CancelWorkflow(ctx context.Context, id string) error

	// RetryWorkflow requeues the jobs of the workflow's failed tasks
	// (those in garbage) and returns how many; the workflow re-opens. A
	// cancelled workflow is not retried (ErrWorkflowEnded). It fails with
	// ErrWorkflowNotFound.
	RetryWorkflow(ctx context.Context, id string) (int, error)

	// MaintainWorkflows runs the workflow duties a scheduler owns:
	// finishing deliveries that a process left half done (a crash between
	// a job's end and its workflow's update, or between a workflow's
	// creation and its first tasks' enqueue) and removing workflows past
	// their retention, at most batch of each (zero: DefaultMaintainBatch;
	// negative fails with ErrInvalidConfig, ValidateWorkflowBatch). It
	// returns how long until it has more to do (at most a few seconds: it
	// cannot see crashes coming).
	MaintainWorkflows(ctx context.Context, batch int) (time.Duration, error)
}

// Keys of job Meta that mark a workflow task. A store sets them when it
// enqueues a task; a handler reads them through hopper.TaskOf.
const (
	MetaWorkflow = "hopper-workflow"
	MetaTask     = "hopper-task"
	// MetaDeps holds, comma-separated, the names of up to MaxTraceLinks
	// of the task's dependencies; tracing middleware links the task's span
	// to theirs (MetaLinks).
	MetaDeps = "hopper-deps"
	// MetaLinks holds, space-separated, "<trace ID>-<span ID>" of the
	// creation spans of the task's dependencies, written by the tracing
	// enqueue middleware.
	MetaLinks = "hopper-links"
	// MaxTraceLinks bounds MetaDeps.
	MaxTraceLinks = 32
)

// Workflow limits.
const (
	// MaxWorkflowIDLen is the longest workflow ID, in bytes.
	MaxWorkflowIDLen = 64
	// MaxTaskNameLen is the longest task name, in bytes.
	MaxTaskNameLen = 60
	// MaxWorkflowNameLen is the longest workflow name, in bytes.
	MaxWorkflowNameLen = 200
	// MaxWorkflowTasks is the most tasks one workflow may hold, added
	// tasks included.
	MaxWorkflowTasks = 100_000
	// DefaultWorkflowRetention is how long an ended workflow is kept when
	// NewWorkflow.Retention is zero.
	DefaultWorkflowRetention = 24 * time.Hour
)

// TaskJobID is the job ID of task in workflow wf: wf + "~" + task. Neither
// may hold '~', so ParseTaskJobID reverses it.
func TaskJobID(wf, task string) string { return wf + "~" + task }

// NewWorkflow is a workflow as a producer hands it to EnqueueWorkflow.
type NewWorkflow struct {
	// ID identifies the workflow store-wide: 1 to MaxWorkflowIDLen bytes
	// of letters, digits, '_', '.', '-' and ':', other than "." and ".."
	// (a browser drops them from the dashboard's address of the workflow).
	// Required; hopper's Client
	// generates one when the caller gives none.
	ID string
	// Name is a free label for people (the dashboard searches it), at most
	// MaxWorkflowNameLen bytes. May be empty.
	Name string
	// Retention keeps the workflow for this long after it ends. Zero means
	// DefaultWorkflowRetention.
	Retention time.Duration
	// Tasks are the workflow's tasks, at least one.
	Tasks []*NewTask
}

// NewTask is one task of a workflow.
type NewTask struct {
	// Name identifies the task within its workflow: 1 to MaxTaskNameLen
	// bytes of letters, digits, '_', '.', '-' and ':'.
	Name string
	// Deps names the tasks this one waits for.
	Deps []string
	// AllowFailure lets this task's dependents run even when it fails or
	// is skipped (see Workflows for the table).
	AllowFailure bool
	// AnyOutcome makes this task run once its dependencies have ended,
	// whatever their outcome (a batch's on-complete callback).
	AnyOutcome bool
	// Blocks, for AddTasks only, names waiting tasks that must also wait
	// for this one (the fan-in after a dynamic fan-out).
	Blocks []string
	// Job is the task's job. Its ID must be TaskJobID(workflow, Name);
	// its Meta must hold MetaWorkflow and MetaTask; its RunAt or Delay, if
	// any, counts from when the task is released. It must not have a
	// unique key or a schedule.
	Job *NewJob
}

// WorkflowState is where a workflow is in its life.
type WorkflowState string

// The states of a workflow.
const (
	WorkflowRunning   WorkflowState = "running"
	WorkflowSucceeded WorkflowState = "succeeded"
	WorkflowFailed    WorkflowState = "failed"
	WorkflowCancelled WorkflowState = "cancelled"
)

// WorkflowStates lists every workflow state. Callers must not modify it.
var WorkflowStates = []WorkflowState{WorkflowRunning, WorkflowSucceeded, WorkflowFailed, WorkflowCancelled}

// Valid reports whether s is one of the WorkflowStates.
func (s WorkflowState) Valid() bool {
	switch s {
	case WorkflowRunning, WorkflowSucceeded, WorkflowFailed, WorkflowCancelled:
		return true
	}
	return false
}

// TaskState is where a task is within its workflow. The state of a
// released task's job (ready, unack, retry, ...) is its job's.
type TaskState string

// The states of a task.
const (
	// TaskWaiting: held back until its dependencies end.
	TaskWaiting TaskState = "waiting"
	// TaskEnqueued: released into its queue; its job is running its
	// course.
	TaskEnqueued TaskState = "enqueued"
	// TaskSucceeded: its job was acked.
	TaskSucceeded TaskState = "succeeded"
	// TaskFailed: its job reached garbage (retries used up, or a
	// permanent failure) or was deleted before it succeeded.
	TaskFailed TaskState = "failed"
	// TaskSkipped: a dependency ended unsatisfied; it never ran.
	TaskSkipped TaskState = "skipped"
	// TaskCancelled: the workflow was cancelled before the task was
	// released, or the task's job was cancelled. For its dependents it
	// counts as failed.
	TaskCancelled TaskState = "cancelled"
)

// TaskStates lists every task state. Callers must not modify it.
var TaskStates = []TaskState{TaskWaiting, TaskEnqueued, TaskSucceeded, TaskFailed, TaskSkipped, TaskCancelled}

// Ended reports whether a task in state s has ended.
func (s TaskState) Ended() bool {
	return s == TaskSucceeded || s == TaskFailed || s == TaskSkipped || s == TaskCancelled
}

// WorkflowRecord is a workflow as a store holds it.
type WorkflowRecord struct {
	ID   string
	Name string
	// State is the workflow's state.
	State WorkflowState
	// Cancelled reports that CancelWorkflow was called (the workflow may
	// still be running while its running tasks finish).
	Cancelled bool
	// CreatedAt is when EnqueueWorkflow stored it; EndedAt when it last
	// ended (zero while running).
	CreatedAt, EndedAt time.Time
	// Retention is how long it is kept after it ends.
	Retention time.Duration
	// Counts holds how many tasks are in each state.
	Counts map[TaskState]int
	// Tasks are its tasks in the order they were added; nil in
	// ListWorkflows.
	Tasks []TaskRecord
}

// TaskRecord is one task of a workflow record.
type TaskRecord struct {
	Name  string
	Queue string
	Kind  string
	// JobID is TaskJobID(workflow, Name).
	JobID string
	Deps  []string
	// AllowFailure and AnyOutcome are as in NewTask.
	AllowFailure, AnyOutcome bool
	// AddedBy names the task that added this one with AddTasks; empty for
	// tasks of EnqueueWorkflow.
	AddedBy string
	State   TaskState
}

// ListWorkflowsOpts selects workflows for ListWorkflows. The zero value
// matches every workflow and returns the first 50.
type ListWorkflowsOpts struct {
	// State, when set, keeps workflows in that state.
	State WorkflowState
	// Search, when set, keeps workflows whose ID starts with it or whose
	// Name contains it.
	Search string
	// Offset and Limit page the result; Limit 0 means 50, at most 1,000.
	Offset, Limit int
}

// WorkflowPage is one page of ListWorkflows.
type WorkflowPage struct {
	Workflows []WorkflowRecord
	// Total is how many workflows match the filter (exact when Search is
	// empty; with Search, how many match among those examined).
	Total int
	// Counts holds how many workflows are in each state, store-wide.
	Counts map[WorkflowState]int
}
