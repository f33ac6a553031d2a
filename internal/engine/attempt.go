package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
)

// Why an attempt's context was cancelled by the worker. stopReturned latches
// that the handler returned first, so a later interrupt cannot change the
// outcome middleware already saw.
const (
	stopNone int32 = iota
	stopReturned
	stopLeaseLost
	stopCancelled
	stopShutdown
)

var errLeaseLostWk = fmt.Errorf("%w: another worker may run the job now", store.ErrLeaseLost)

// timeoutCause is the cause of an attempt's context when its timeout
// passes. Its message is formatted when read, not for every attempt.
type timeoutCause time.Duration

func (d timeoutCause) Error() string {
	return "hopper: job timeout " + time.Duration(d).String() + " reached"
}

// Attempt states: exactly one of exec (finished) and the worker's watchdog or
// shutdown (abandoned) decides the outcome.
const (
	attemptRunning int32 = iota
	attemptFinished
	attemptAbandoned
)

// attempt is one claimed job held by this worker, from its claim until the
// store confirmed its outcome.
type attempt struct {
	rec     *store.JobRecord
	w       *worker                 // the worker that holds it
	qi      int                     // index in run.queues
	started atomic.Int64            // unix ns when an executor started it; 0 while it waits
	slot    atomic.Pointer[slotCtx] // the executor's slot while it runs the attempt
	state   atomic.Int32
	stop    atomic.Int32 // stop* reason
	// giveUpAt is when the watchdog abandons the attempt if its handler has
	// not returned: AbandonAfter past its timeout, or past an interrupt.
	giveUpAt atomic.Int64 // unix nanoseconds, 0 = never
	// leaseUntil is a lower bound, on this process's clock, of the lease
	// deadline: when the claim or the last renewal that held it was sent,
	// plus the lease. Past it the lease may have run out (the process was
	// stalled, or renewals failed), so the attempt is checked before it
	// starts.
	leaseUntil atomic.Int64 // unix nanoseconds
	// startBy is when, on this process's clock, the attempt must have
	// started or be handed back: a rate limit counted its claim
	// (ClaimResult.StartWithin) from when the claim was sent. Zero: no
	// bound. Set before dispatch, read-only after.
	startBy int64 // unix nanoseconds
	// notBefore is when a smooth rate limit's slot lets the attempt start
	// (ClaimResult.StartAfter, from when the claim's reply came). Set
	// before dispatch, read-only after.
	notBefore time.Time
	// holding says the attempt's outcome holds its queue or group
	// (AttemptEnd.Hold) and is not reported yet: the worker claims nothing
	// from its queue meanwhile (worker.qholds). Cleared by forget.
	holding atomic.Bool

	mu     sync.Mutex // guards result and prog
	result []byte     // set by SetResult
	prog   progress   // reported by the handler
	err    error      // the handler's error, for the hooks (set before the outcome is added)

	// ctx and end are the handler's context and the store call that ends
	// the attempt, each made once (beginAttempt, finishRequest): kept
	// here, they cost no allocation of their own.
	ctx attemptCtx
	end store.AttemptEnd
}

// cause is the error an interrupt cancels the attempt's context with.
func (a *attempt) cause() error {
	switch a.stop.Load() {
	case stopLeaseLost:
		return errLeaseLostWk
	case stopCancelled:
		return store.ErrCancelled
	case stopShutdown:
		return ErrShutdown
	}
	return nil
}

// interrupt records reason, once, and cancels the attempt's context if it
// runs.
func (a *attempt) interrupt(reason int32) {
	if !a.stop.CompareAndSwap(stopNone, reason) {
		return
	}
	if s := a.slot.Load(); s != nil {
		s.interrupt(a, a.cause())
	}
}

// setSlot makes the running attempt's context, made on s.begin's parent,
// cancellable by interrupt, cancelling it at once if an interrupt came
// first. It allocates nothing (a closure stored for the interrupt cost
// two allocations an attempt).
func (a *attempt) setSlot(s *slotCtx) {
	a.slot.Store(s)
	if a.stop.Load() > stopReturned {
		s.interrupt(a, a.cause())
	}
}

// startedAt is when an executor started the attempt; zero while it waits.
func (a *attempt) startedAt() time.Time {
	if ns := a.started.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

func (a *attempt) finish() bool  { return a.state.CompareAndSwap(attemptRunning, attemptFinished) }
func (a *attempt) abandon() bool { return a.state.CompareAndSwap(attemptRunning, attemptAbandoned) }

// outcome is the attempt's outcome given its handler's error, taking into
// account why the worker may have cancelled it.
//
// A lost lease wins over everything: the worker reports nothing to the
// store, even for a handler that returned nil after the loss (its ack
// would be refused). A cancellation or a shutdown only decides for a
// handler that failed (most likely because its context ended); one that
// returned nil did its work and is acked.
func (a *attempt) outcome(err error) store.Outcome {
	switch a.stop.Load() {
	case stopLeaseLost:
		return store.OutcomeLeaseLost
	case stopCancelled:
		if err != nil {
			return store.OutcomeCancel
		}
	case stopShutdown:
		if err != nil {
			return store.OutcomeRelease
		}
	}
	if err == nil {
		return store.OutcomeAck
	}
	return OutcomeOf(a.rec, err, a.w.cfg.Classify(err))
}

// OutcomeOf is the rule that turns a handler's error into an outcome, for
// an attempt the worker did not interrupt: ack for nil, snooze, cancel or
// garbage when v says so, garbage when the job has used its last attempt,
// retry otherwise.
func OutcomeOf(rec *store.JobRecord, err error, v Verdict) store.Outcome {
	switch {
	case err == nil:
		return store.OutcomeAck
	case v.Snooze:
		return store.OutcomeSnooze
	case v.Cancelled:
		return store.OutcomeCancel
	case v.Permanent || rec.Attempt > rec.MaxRetries:
		return store.OutcomeGarbage
	}
	return store.OutcomeRetry
}

type attemptKey struct{}

// attemptOf returns the attempt ctx runs, or nil outside one.
func attemptOf(ctx context.Context) *attempt {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	return a
}

// AttemptOutcome returns what the worker does with the attempt of rec
// running in ctx when its handler returns err, and true; or false when ctx
// is not that attempt's.
func AttemptOutcome(ctx context.Context, rec *store.JobRecord, err error) (store.Outcome, bool) {
	if a := attemptOf(ctx); a != nil && a.rec == rec {
		return a.outcome(err), true
	}
	return 0, false
}

// SetResult records b as the result of the attempt running in ctx; it
// reports false outside an attempt.
func SetResult(ctx context.Context, b []byte) bool {
	a := attemptOf(ctx)
	if a == nil {
		return false
	}
	a.mu.Lock()
	a.result = b
	a.mu.Unlock()
	return true
}

// MarkReturned latches, for the attempt running in ctx, that its handler
// returned: an interrupt after this no longer changes the outcome. The
// innermost link of the chain defers it.
func MarkReturned(ctx context.Context) {
	if a := attemptOf(ctx); a != nil {
		a.stop.CompareAndSwap(stopNone, stopReturned)
	}
}

// RunningJob returns the record and the store of the attempt ctx runs; ok
// is false outside one.
func RunningJob(ctx context.Context) (rec *store.JobRecord, st store.Store, ok bool) {
	a := attemptOf(ctx)
	if a == nil {
		return nil, nil, false
	}
	return a.rec, a.w.st, true
}
