package hopper

import (
	"errors"
	"fmt"
	"time"

	"github.com/hopperq/hopper/internal/engine"
	"github.com/hopperq/hopper/store"
)

// Errors a store returns, defined and documented in package store. Match
// them with errors.Is; the errors returned carry more detail (the queue,
// the job, the field).
var (
	ErrJobNotFound      = store.ErrJobNotFound      // "hopper: job not found"
	ErrLeaseLost        = store.ErrLeaseLost        // "hopper: lease lost (stale token)"
	ErrInvalidQueue     = store.ErrInvalidQueue     // "hopper: invalid queue name"
	ErrInvalidState     = store.ErrInvalidState     // "hopper: invalid job state"
	ErrInvalidJob       = store.ErrInvalidJob       // "hopper: invalid job"
	ErrInvalidConfig    = store.ErrInvalidConfig    // "hopper: invalid config"
	ErrCancelled        = store.ErrCancelled        // "hopper: job cancelled"
	ErrNoKindIndex      = store.ErrNoKindIndex      // "hopper: the queue keeps no kind index"
	ErrWorkflowNotFound = store.ErrWorkflowNotFound // "hopper: workflow not found"
	ErrInvalidWorkflow  = store.ErrInvalidWorkflow  // "hopper: invalid workflow"
	ErrWorkflowEnded    = store.ErrWorkflowEnded    // "hopper: workflow ended"
)

// MayBeStored reports whether err, from Enqueue or EnqueueMany, leaves
// the jobs possibly stored all the same: the request
// reached the store and its reply was lost (a read timeout on a link that
// stopped answering, a connection closed under the call), or the caller's
// context ended once it was sent. Enqueueing them again with the same IDs
// is then safe: a stored one comes back as a duplicate. It reports false
// for nil, and for an error the store raised before it took anything (no
// connection, an invalid job, Redis out of memory); see store.MayBeStored,
// which it is. (EnqueueTasks needs no such test: tasks the workflow has
// are left as they are, so it is always safe to call again.) Safe for
// concurrent use.
func MayBeStored(err error) bool { return store.MayBeStored(err) }

// Errors of package hopper's own calls. Match them with errors.Is.
var (
	// ErrArgsTooLarge: the encoded args exceed ClientConfig.MaxArgsBytes.
	ErrArgsTooLarge = errors.New("hopper: args too large")
	// ErrUnknownKind: no handler is registered for the job's kind. The job
	// goes to garbage with this error.
	ErrUnknownKind = errors.New("hopper: no handler for kind")
	// ErrDecode: the job's args could not be decoded into the handler's
	// type (the job goes to garbage with this error, which reads "hopper:
	// cannot decode args: ..."), or a recorded result into the type asked
	// for (TaskResult, TaskResults, WaitResult, DecodeResult,
	// EnqueueAndWait: the error reads "hopper: cannot decode result of"
	// and names the job or task and the type).
	ErrDecode = errors.New("hopper: cannot decode")
	// ErrShutdown is the cause of an attempt's context when the worker
	// shuts down and the attempt did not finish within ShutdownTimeout.
	// The job is handed back (OutcomeRelease), not counted as a failure.
	ErrShutdown = engine.ErrShutdown
	// ErrNotSupported: the store does not implement what was asked (an
	// Inspector on a store without store.Admin).
	ErrNotSupported = errors.New("hopper: not supported by this store")
	// ErrWorkflowFailed is returned by Client.WaitWorkflow for a workflow
	// that failed (a task failed without AllowFailure) or, wrapped with
	// ErrCancelled too, was cancelled.
	ErrWorkflowFailed = errors.New("hopper: workflow failed")
	// ErrScheduleNotFound: no stored schedule of that name and queue
	// (Inspector.DeleteSchedule, PauseSchedule, SetScheduleSpec).
	ErrScheduleNotFound = errors.New("hopper: stored schedule not found")
	// ErrJobDead is returned by Client.WaitJob and EnqueueAndWait for a job that
	// went to garbage: its retries used up, a permanent failure, or (wrapped
	// with ErrCancelled too) a cancellation. The error's text ends with the
	// job's last error, or for a cancellation with its cause: `hopper: job
	// died (cancelled): job "…" of queue "…": context canceled`.
	ErrJobDead = errors.New("hopper: job died")
	// ErrNoResult is returned by TaskResult and TaskResults for a task that
	// has not succeeded or recorded no result.
	ErrNoResult = errors.New("hopper: task recorded no result")
	// ErrTaskNotFound is returned by TaskResult and TaskResults for a task
	// name the running task's workflow does not have (a misspelt name):
	// `hopper: task not found: workflow "…" has no task "…"`. It does not
	// wrap ErrNoResult.
	ErrTaskNotFound = errors.New("hopper: task not found")
	// ErrEventsLost is yielded by a subscription when events it had not
	// read are gone: trimmed away while it fell behind (the stream keeps
	// the last QueueConfig.EventsMaxLen store steps), not written while
	// nobody read the queue (Redis: a reader that comes back after a
	// minute), or a stream that started over (Redis flushed). The
	// subscription goes on from the oldest event kept.
	ErrEventsLost = errors.New("hopper: events were lost: some the subscription had not read are gone")
)

// Permanent wraps err so that the job goes to garbage at once, without retry.
// Permanent(nil) returns nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// PermanentError is the error Permanent returns.
type PermanentError struct{ Err error }

// Error returns "permanent: " and the wrapped error's text.
func (e *PermanentError) Error() string { return "permanent: " + e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *PermanentError) Unwrap() error { return e.Err }

// Snooze asks for the job to run again after d, without counting the attempt
// and without recording an error. A zero or negative d runs it again as soon
// as a worker is free.
func Snooze(d time.Duration) error { return &SnoozeError{Delay: d} }

// RateLimited is Snooze(d) for a handler that a service it calls told to
// back off (an HTTP 429 with Retry-After, a quota error): the job runs
// again after d without counting the attempt, and its whole queue is held
// for d: no worker of any process claims from it until d has passed, so
// the other jobs do not hit the same limit meanwhile. The hold is the
// store's (QueueStats.HeldUntil); a later RateLimited extends it, never
// shortens it. A grouped job (EnqueueOpts.Group: a key per tenant or
// endpoint, whose limits are its own) holds its group alone: the queue's
// other groups go on. Until the store has the hold (the job's outcome
// reported, a round trip), the worker that ran the job claims nothing
// from its queue; jobs of the queue it claimed before (its Prefetch
// buffer) and jobs other processes claimed meanwhile still start. A zero
// or negative d holds nothing and runs the job again as soon as a worker
// is free.
func RateLimited(d time.Duration) error { return &SnoozeError{Delay: d, Hold: true} }

// SnoozeError is the error Snooze and RateLimited return.
type SnoozeError struct {
	// Delay is how long the job waits before it runs again.
	Delay time.Duration
	// Hold also holds the job's queue for Delay (RateLimited).
	Hold bool
}

// Error returns "snooze " and the delay, or "rate limited: hold " and the
// delay when the queue is held.
func (e *SnoozeError) Error() string {
	if e.Hold {
		return fmt.Sprintf("rate limited: hold %v", e.Delay)
	}
	return fmt.Sprintf("snooze %v", e.Delay)
}

// PanicError is the error a handler's panic becomes: the attempt fails (and is
// retried like any error) with the panic value and the stack recorded.
type PanicError struct {
	Value any
	Stack []byte
}

// Error returns "panic: " and the panic value; the stack is in Stack.
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
