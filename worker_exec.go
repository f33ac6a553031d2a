package hopper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
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

var errLeaseLostWk = fmt.Errorf("%w: another worker may run the job now", ErrLeaseLost)

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
	rec     *JobRecord
	qi      int          // index in workerRun.queues
	started atomic.Int64 // unix ns when an executor started it; 0 while it waits
	cancel  atomic.Pointer[context.CancelCauseFunc]
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

	mu     sync.Mutex // guards result
	result []byte     // set by RecordResult
}

// cause is the error an interrupt cancels the attempt's context with.
func (a *attempt) cause() error {
	switch a.stop.Load() {
	case stopLeaseLost:
		return errLeaseLostWk
	case stopCancelled:
		return ErrCancelled
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
	if c := a.cancel.Load(); c != nil {
		(*c)(a.cause())
	}
}

// setCancel makes the running attempt's context cancellable by interrupt,
// cancelling it at once if an interrupt came first.
func (a *attempt) setCancel(c context.CancelCauseFunc) {
	a.cancel.Store(&c)
	if a.stop.Load() > stopReturned {
		c(a.cause())
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

// dispatch hands a claimed job to the executors. The fetch loop has made
// room for it in the jobs channel.
func (r *workerRun) dispatch(rec *JobRecord, qi int, leaseUntil time.Time) {
	a := &attempt{rec: rec, qi: qi}
	a.leaseUntil.Store(leaseUntil.UnixNano())
	r.held.Add(1)
	r.qheld[qi].Add(1)
	r.mu.Lock()
	r.active[a] = struct{}{}
	r.mu.Unlock()
	r.jobs <- a
}

// executor runs attempts from the jobs channel until it is closed. It exits
// early, leaving its place to a replacement, when its attempt is abandoned.
func (r *workerRun) executor() error {
	for a := range r.jobs {
		if !r.runAttempt(a) && !r.takeOwed() {
			return nil
		}
	}
	return nil
}

// takeOwed claims one place in the pool that a replacement could not take
// (the pool was at its limit when a handler was abandoned); the executor
// of an abandoned handler that returned then carries on in that place.
func (r *workerRun) takeOwed() bool {
	for {
		n := r.owed.Load()
		if n <= 0 {
			return false
		}
		if r.owed.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// runAttempt runs one attempt; it returns false when the attempt was
// abandoned while it ran (a replacement executor took this one's place).
func (r *workerRun) runAttempt(a *attempt) bool {
	if r.stopping.Load() {
		r.release(a)
		return true
	}
	if time.Now().UnixNano() >= a.leaseUntil.Load() {
		r.confirmLease(a) // it waited past its lease: is it still ours?
	}
	if a.stop.Load() != stopNone { // cancelled or its lease lost while it waited
		r.exec(a, a.cause())
		return true
	}
	r.busy.Add(1)
	start := time.Now()
	a.started.Store(start.UnixNano())
	ctx, cancel := context.WithCancelCause(context.WithValue(r.jobBase, attemptKey{}, a))
	stopTimer := context.CancelFunc(func() {})
	if d := r.cfg.timeoutFor(a.rec); d > 0 {
		a.giveUpAt.Store(start.Add(d + r.cfg.AbandonAfter).UnixNano())
		ctx, stopTimer = context.WithTimeoutCause(ctx, d, fmt.Errorf("hopper: job timeout %v reached", d))
	}
	a.setCancel(cancel)
	err := r.invoke(ctx, a.rec)
	stopTimer()
	cancel(nil)
	if !a.finish() {
		return false // the watchdog or shutdown decided; a replacement runs
	}
	r.busy.Add(-1)
	r.decide(a, err)
	return true
}

// exec hands the outcome of an attempt to the finisher, unless the watchdog
// or shutdown decided it already.
func (r *workerRun) exec(a *attempt, err error) {
	if a.finish() {
		r.decide(a, err)
	}
}

// decide hands the outcome of an attempt this executor finished (its
// finish won against the watchdog and shutdown) to the finisher.
func (r *workerRun) decide(a *attempt, err error) {
	// The outcome reaches the finisher before the attempt counts as
	// decided: shutdown closes the finisher once nothing is undecided, and
	// an outcome added after that would be dropped, leaving the job in
	// unack until its lease expired.
	if req := r.finishRequest(a, err); req != nil {
		r.fin.add(a, req)
	} else {
		r.forget(a)
	}
	r.decided(a)
}

// invoke calls the handler chain; a panic in middleware becomes an error too.
func (r *workerRun) invoke(ctx context.Context, rec *JobRecord) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &PanicError{Value: v, Stack: debug.Stack()}
		}
	}()
	return r.handler.Handle(ctx, rec)
}

// route finds the handler of a job's kind. It is the innermost link of the
// chain: when it returns, the attempt's stop reason is latched.
func (r *workerRun) route(ctx context.Context, rec *JobRecord) error {
	if a, _ := ctx.Value(attemptKey{}).(*attempt); a != nil {
		defer a.stop.CompareAndSwap(stopNone, stopReturned)
	}
	h := r.handlers[rec.Kind]
	if h == nil {
		r.log.Warn("hopper: no handler for kind; job sent to garbage",
			slog.String("kind", rec.Kind), slog.String("queue", rec.Queue), slog.String("id", rec.ID))
		return Permanent(fmt.Errorf("%w %q (queue %q)", ErrUnknownKind, rec.Kind, rec.Queue))
	}
	return h.Handle(ctx, rec)
}

// recoverHandler turns a panic in h into a *PanicError with the stack.
func recoverHandler(h Handler) Handler {
	return HandlerFunc(func(ctx context.Context, rec *JobRecord) (err error) {
		defer func() {
			if v := recover(); v != nil {
				err = &PanicError{Value: v, Stack: debug.Stack()}
			}
		}()
		return h.Handle(ctx, rec)
	})
}

// finishRequest turns a handler's result into the store call that ends the
// attempt; nil when the lease is lost and there is nothing to tell the store.
func (r *workerRun) finishRequest(a *attempt, err error) *store.FinishRequest {
	rec := a.rec
	req := &store.FinishRequest{Queue: rec.Queue, ID: rec.ID, Token: rec.Token, Retention: rec.Retention, Outcome: a.outcome(err)}
	switch req.Outcome {
	case OutcomeAck:
		a.mu.Lock()
		req.Result = a.result
		a.mu.Unlock()
	case OutcomeLeaseLost:
		if a.started.Load() == 0 {
			r.log.Warn("hopper: lease lost while the job waited to start (the worker stalled or could not renew it); not running it here",
				slog.String("queue", rec.Queue), slog.String("id", rec.ID))
			return nil
		}
		r.log.Warn("hopper: lease lost while the job ran; its result is dropped",
			slog.String("queue", rec.Queue), slog.String("id", rec.ID), slog.Any("error", err))
		return nil
	case OutcomeRelease:
	case OutcomeSnooze:
		var s *SnoozeError
		errors.As(err, &s)
		req.Delay = s.Delay
	case OutcomeRetry:
		req.Delay = r.cfg.Backoff(rec.Attempt, err)
		req.Error = attemptError(rec, err)
	case OutcomeCancel:
		if !errors.Is(err, ErrCancelled) {
			err = fmt.Errorf("%w: %w", ErrCancelled, err)
		}
		req.Error = attemptError(rec, err)
	default:
		req.Error = attemptError(rec, err)
	}
	return req
}

// Limits on what an attempt error records.
const (
	maxErrorText = 8 << 10
	maxStackText = 16 << 10
)

func attemptError(rec *JobRecord, err error) *AttemptError {
	e := &AttemptError{Attempt: rec.Attempt, Error: truncate(err.Error(), maxErrorText)}
	var p *PanicError
	if errors.As(err, &p) {
		e.Stack = truncate(string(p.Stack), maxStackText)
	}
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "… (truncated)"
}
