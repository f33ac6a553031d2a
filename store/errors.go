package store

import "errors"

// Sentinel errors a store returns. Match them with errors.Is; the errors
// returned carry more detail (the queue, the job, the field). Package
// hopper re-exports each under the same name.
var (
	// ErrJobNotFound: no job with that ID in that queue (or not in the
	// state the call expected).
	ErrJobNotFound = errors.New("hopper: job not found")
	// ErrLeaseLost: the fencing token is no longer current. The lease
	// expired and the job was reclaimed, released, deleted or claimed
	// again; the late ack, nack, snooze or extend changed nothing.
	ErrLeaseLost = errors.New("hopper: lease lost (stale token)")
	// ErrInvalidQueue: a queue name is empty, longer than MaxQueueNameLen
	// bytes, or has a character other than letters, digits, '_', '.' and
	// '-'.
	ErrInvalidQueue = errors.New("hopper: invalid queue name")
	// ErrInvalidState: not one of the job states, or a state (or outcome)
	// not allowed here (requeue from unack, say).
	ErrInvalidState = errors.New("hopper: invalid job state")
	// ErrInvalidJob: an enqueue request is malformed (bad ID, kind,
	// retries, timeout, time); the message names the field.
	ErrInvalidJob = errors.New("hopper: invalid job")
	// ErrInvalidConfig: a configuration or request field is out of range;
	// the message names the field.
	ErrInvalidConfig = errors.New("hopper: invalid config")
	// ErrCancelled: the job was cancelled (hopper.Inspector.CancelJob) while
	// it waited or ran. Its text is what a store records in the history of
	// a job cancelled while waiting, or finished as cancelled without an
	// error of its own. It is the cause of a running job's context when
	// the job is cancelled.
	ErrCancelled = errors.New("hopper: job cancelled")
	// ErrLeaseExpired is what a store records in the history of a job whose
	// lease expired (its worker died, stalled or lost its connection) when
	// Maintain reclaims it.
	ErrLeaseExpired = errors.New("hopper: lease expired (worker lost)")
	// ErrNoKindIndex: a search asked to walk a queue's kind index
	// (SearchWalkKind) and the queue keeps none, or it is still being
	// built (QueueConfig.KindIndex): search again from the start.
	ErrNoKindIndex = errors.New("hopper: the queue keeps no kind index")

	// ErrWorkflowNotFound: no workflow with that ID (never stored, or
	// removed after its retention).
	ErrWorkflowNotFound = errors.New("hopper: workflow not found")
	// ErrInvalidWorkflow: a workflow or task is malformed (bad ID or name,
	// a duplicate task, a dependency on an unknown task, a cycle); the
	// message says which.
	ErrInvalidWorkflow = errors.New("hopper: invalid workflow")
	// ErrWorkflowEnded: the workflow has ended (or was cancelled) and
	// cannot take this change.
	ErrWorkflowEnded = errors.New("hopper: workflow ended")
)

// worded is an error whose text words the errors it wraps itself, so that
// it says "hopper:" once where "%w: %w" said it twice.
type worded struct {
	msg  string
	errs []error
}

func (e *worded) Error() string   { return e.msg }
func (e *worded) Unwrap() []error { return e.errs }
