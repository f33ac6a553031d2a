package hopper

import (
	"errors"
	"fmt"
	"time"
)

// Sentinel errors. Match them with errors.Is; the errors returned carry more
// detail (the queue, the job, the field).
var (
	// ErrJobNotFound: no job with that ID in that queue (or not in the state
	// the call expected).
	ErrJobNotFound = errors.New("hopper: job not found")
	// ErrLeaseLost: the fencing token is no longer current. The lease expired
	// and the job was reclaimed, released, deleted or claimed again; the late
	// ack, nack, snooze or extend changed nothing.
	ErrLeaseLost = errors.New("hopper: lease lost (stale token)")
	// ErrInvalidQueue: a queue name is empty, longer than 64 bytes, or has a
	// character other than letters, digits, '_', '.' and '-'.
	ErrInvalidQueue = errors.New("hopper: invalid queue name")
	// ErrInvalidState: not one of the job states, or not allowed here.
	ErrInvalidState = errors.New("hopper: invalid job state")
	// ErrInvalidJob: an enqueue request is malformed (bad ID, kind, retries,
	// timeout, time); the message names the field.
	ErrInvalidJob = errors.New("hopper: invalid job")
	// ErrArgsTooLarge: the encoded args exceed ClientConfig.MaxArgsBytes.
	ErrArgsTooLarge = errors.New("hopper: args too large")
	// ErrUnknownKind: no handler is registered for the job's kind. The job
	// goes to garbage with this error.
	ErrUnknownKind = errors.New("hopper: no handler for kind")
	// ErrDecode: the job's args could not be decoded into the handler's type.
	// The job goes to garbage with this error.
	ErrDecode = errors.New("hopper: cannot decode args")
	// ErrInvalidConfig: a configuration field is out of range; the message
	// names the field.
	ErrInvalidConfig = errors.New("hopper: invalid config")
	// ErrCancelled: the job was cancelled with Store.Cancel while running.
	ErrCancelled = errors.New("hopper: job cancelled")
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

// SnoozeError is the error Snooze returns.
type SnoozeError struct{ Delay time.Duration }

// Error returns "snooze " and the delay.
func (e *SnoozeError) Error() string { return fmt.Sprintf("snooze %v", e.Delay) }

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

// MaxQueueNameLen is the longest queue name allowed, in bytes.
const MaxQueueNameLen = 64

// ValidateQueue returns nil for a valid queue name: 1 to 64 bytes of ASCII
// letters, digits, '_', '.' and '-'. Otherwise it returns an error wrapping
// ErrInvalidQueue that says what is wrong.
func ValidateQueue(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty", ErrInvalidQueue)
	}
	if len(name) > MaxQueueNameLen {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrInvalidQueue, len(name), MaxQueueNameLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-' {
			continue
		}
		return fmt.Errorf("%w: %q has %q at byte %d (allowed: letters, digits, '_', '.', '-')", ErrInvalidQueue, name, name[i:i+1], i)
	}
	return nil
}
