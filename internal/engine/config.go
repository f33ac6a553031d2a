// Package engine runs jobs for hopper.Worker: it claims ready jobs from a
// store.Store into a bounded pool of executors, runs each through the
// handler chain it is given, reports every outcome in batched Finish calls,
// renews the leases of the jobs it holds in one batched Extend, abandons
// handlers that ignore their context, and registers the process in the
// store. Package hopper owns the user's types (handlers, errors,
// configuration); the engine sees a handler function, a classifier for the
// errors it returns, and a resolved Config.
package engine

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hopperq/hopper/store"
)

// ErrShutdown is the cause of an attempt's context when the worker shuts
// down and the attempt did not finish within ShutdownTimeout. Package
// hopper re-exports it.
var ErrShutdown = errors.New("hopper: worker shutting down")

// Handler runs one attempt: the middleware chain around the job's handler.
type Handler func(ctx context.Context, rec *store.JobRecord) error

// Verdict is what an error returned by a handler asks for, as the
// classifier of package hopper reads it from hopper's error types.
type Verdict struct {
	// Snooze asks for the job to wait Delay in pending, the attempt not
	// counted.
	Snooze bool
	Delay  time.Duration
	// Hold also holds the job's queue for Delay (AttemptEnd.Hold).
	Hold bool
	// Permanent sends the job to garbage without retry.
	Permanent bool
	// Cancelled reports that the error is (or wraps) store.ErrCancelled.
	Cancelled bool
	// Stack is the goroutine stack of a panic, recorded in the history.
	Stack string
}

// Queue is one queue a worker claims from.
type Queue struct {
	Name string
	// Weight orders the queues: the chance to be tried first, or the
	// order with Config.StrictPriority. At least 1.
	Weight int
	// Cap is how many of its jobs this worker holds at once; 0 is none.
	Cap int
}

// Config is a worker's resolved configuration: every field set (package
// hopper applies the defaults and checks the ranges).
type Config struct {
	Queues         []Queue
	StrictPriority bool
	Concurrency    int
	ClaimBatch     int
	Prefetch       int // 0 = none
	// OrderedStarts puts the results of a queue's claims in flight in the
	// order the store took them (claim_gate.go).
	OrderedStarts bool
	Lease         time.Duration
	// RenewEvery is how often leases are renewed and cancellations
	// looked for while the worker holds jobs.
	RenewEvery time.Duration
	// Finished, when set, is called with every outcome the store
	// confirmed, the job and its handler's error (see hooks.go).
	// The context is the worker's, without its cancellation.
	Finished func(ctx context.Context, rec *store.JobRecord, o store.Outcome, err error)
	// IdleWait bounds one wait for ready jobs when nothing is claimable.
	IdleWait          time.Duration
	JobTimeout        time.Duration // 0 or less = none
	KindTimeouts      map[string]time.Duration
	AbandonAfter      time.Duration
	ShutdownTimeout   time.Duration
	HeartbeatInterval time.Duration
	Backoff           func(attempt int, err error) time.Duration
	// Classify reads what a handler's error asks for.
	Classify func(err error) Verdict
	// Recovered turns a panic caught outside every middleware into the
	// attempt's error.
	Recovered func(v any, stack []byte) error
	Logger    *slog.Logger
	ID        string
	// Queues map for the registry, as configured.
	Weights map[string]int
}

// timeoutFor is the attempt deadline of a job: its own Timeout, else its
// kind's, else JobTimeout; zero means none.
func (c *Config) timeoutFor(rec *store.JobRecord) time.Duration {
	if rec.Timeout > 0 {
		return rec.Timeout
	}
	if d, ok := c.KindTimeouts[rec.Kind]; ok {
		return d
	}
	if c.JobTimeout > 0 {
		return c.JobTimeout
	}
	return 0
}
