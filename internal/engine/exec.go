package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/hopperq/hopper/store"
)

// dispatch hands a claimed job to the executors. The fetch loop has made
// room for it in the jobs channel.
func (r *worker) dispatch(rec *store.JobRecord, qi int, leaseUntil, notBefore, startBy time.Time) {
	a := &attempt{rec: rec, w: r, qi: qi, prog: progress{percent: -1}, notBefore: notBefore}
	if !startBy.IsZero() {
		a.startBy = startBy.UnixNano()
	}
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
func (r *worker) executor() error {
	slot := newSlotCtx(r.jobBase)
	defer slot.close()
	for a := range r.jobs {
		if !r.runAttempt(slot, a) && !r.takeOwed() {
			return nil
		}
	}
	return nil
}

// takeOwed claims one place in the pool that a replacement could not take
// (the pool was at its limit when a handler was abandoned); the executor
// of an abandoned handler that returned then carries on in that place.
func (r *worker) takeOwed() bool {
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
// slot is the executor's.
func (r *worker) runAttempt(slot *slotCtx, a *attempt) bool {
	// One clock read serves the checks and the start, unless a wait or a
	// store call comes between them (a clock read is 1-2 % of a drain's
	// client CPU on a VM).
	now := time.Now()
	if d := a.notBefore.Sub(now); d > 0 {
		// A smooth rate limit's slot (ClaimResult.StartAfter): at most
		// store.MaxRateLead away.
		t := time.NewTimer(d)
		<-t.C
		now = time.Now()
	}
	if r.stopping.Load() {
		r.release(a)
		return true
	}
	if now.UnixNano() >= a.leaseUntil.Load() {
		r.confirmLease(a) // it waited past its lease: is it still ours?
		now = time.Now()
	}
	if a.stop.Load() != stopNone { // cancelled or its lease lost while it waited
		r.exec(a, a.cause())
		return true
	}
	// The rate limit's guard is checked last, at the time that counts as
	// the start, so that only the handler's own preamble (decoding the
	// args, middleware) lies between them; store.RateTerms leaves room
	// for it.
	start := now
	if a.startBy != 0 && start.UnixNano() > a.startBy {
		// Too late for the rate limit that counted its claim (see
		// store.RateTerms): back to ready, no attempt spent, to run later.
		r.log.Debug("hopper: rate-limited job claimed too long ago to start; handed back",
			slog.String("queue", a.rec.Queue), slog.String("id", a.rec.ID))
		r.release(a)
		return true
	}
	r.busy.Add(1)
	a.started.Store(start.UnixNano())
	select { // show the job in the registry soon (see heartbeatLoop)
	case r.beat <- struct{}{}:
	default:
	}
	ctx, d := r.beginAttempt(slot, a, start)
	if d > 0 {
		a.giveUpAt.Store(start.Add(d + r.cfg.AbandonAfter).UnixNano())
	}
	err := r.invoke(ctx, a.rec)
	r.durs.add(a.rec.Queue, a.rec.Kind, time.Since(start))
	ctx.stop()
	slot.end()
	if !a.finish() {
		return false // the watchdog or shutdown decided; a replacement runs
	}
	r.busy.Add(-1)
	r.flushProgress(a)
	r.decide(a, err)
	return true
}

// beginAttempt makes a, started at start, the running attempt of slot and
// returns its context, with a's timeout d (0: none) counted from start.
// Run's executors and Drain share it, once an attempt: the context is a's
// own (a.ctx). The caller ends the attempt with ctx.stop and slot.end
// once the handler returned.
func (r *worker) beginAttempt(slot *slotCtx, a *attempt, start time.Time) (ctx *attemptCtx, d time.Duration) {
	var deadline time.Time
	var cause error
	if d = r.cfg.timeoutFor(a.rec); d > 0 {
		deadline, cause = start.Add(d), timeoutCause(d)
	}
	ctx = &a.ctx
	ctx.init(slot.begin(a), a, deadline, cause)
	a.setSlot(slot)
	return ctx, d
}

// exec hands the outcome of an attempt to the finisher, unless the watchdog
// or shutdown decided it already.
func (r *worker) exec(a *attempt, err error) {
	if a.finish() {
		r.decide(a, err)
	}
}

// decide hands the outcome of an attempt this executor finished (its
// finish won against the watchdog and shutdown) to the finisher.
func (r *worker) decide(a *attempt, err error) {
	// The outcome reaches the finisher before the attempt counts as
	// decided: shutdown closes the finisher once nothing is undecided, and
	// an outcome added after that would be dropped, leaving the job in
	// unack until its lease expired.
	a.err = err
	if req := r.finishRequest(a, err); req != nil {
		r.count(a, req.Outcome)
		if req.Hold > 0 {
			a.holding.Store(true)
			r.qholds[a.qi].Add(1)
		}
		r.fin.add(a, req)
	} else {
		r.forget(a)
	}
	r.decided(a)
}

// count adds an attempt whose handler ran to the registry's counts.
func (r *worker) count(a *attempt, o store.Outcome) {
	if a.startedAt().IsZero() {
		return
	}
	switch o {
	case store.OutcomeAck, store.OutcomeSnooze, store.OutcomeCancel:
		r.processed.Add(1)
	case store.OutcomeRetry, store.OutcomeGarbage:
		r.processed.Add(1)
		r.failed.Add(1)
	}
}

// invoke calls the handler chain; a panic in middleware becomes an error too.
func (r *worker) invoke(ctx context.Context, rec *store.JobRecord) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = r.cfg.Recovered(v, debug.Stack())
		}
	}()
	return r.handler(ctx, rec)
}

// finishRequest turns a handler's result into the store call that ends the
// attempt (a's own, a.end: called once an attempt, by whichever of the
// executor, the watchdog and Drain decided it); nil when the lease is
// lost and there is nothing to tell the store.
func (r *worker) finishRequest(a *attempt, err error) *store.AttemptEnd {
	rec := a.rec
	req := &a.end
	*req = store.AttemptEnd{Queue: rec.Queue, ID: rec.ID, Token: rec.Token, Retention: rec.Retention, Outcome: a.outcome(err),
		Kind: rec.Kind, Attempt: rec.Attempt}
	switch req.Outcome {
	case store.OutcomeAck:
		a.mu.Lock()
		req.Result = a.result
		a.mu.Unlock()
	case store.OutcomeLeaseLost:
		if a.started.Load() == 0 {
			r.log.Warn("hopper: lease lost while the job waited to start (the worker stalled or could not renew it); not running it here",
				slog.String("queue", rec.Queue), slog.String("id", rec.ID))
			return nil
		}
		r.log.Warn("hopper: lease lost while the job ran; its result is dropped",
			slog.String("queue", rec.Queue), slog.String("id", rec.ID), slog.Any("error", err))
		return nil
	case store.OutcomeRelease:
	case store.OutcomeSnooze:
		v := r.cfg.Classify(err)
		req.Delay = v.Delay
		if v.Hold {
			req.Hold = v.Delay
		}
	case store.OutcomeRetry:
		req.Delay = r.cfg.Backoff(rec.Attempt, err)
		req.Error = r.attemptError(a, err)
	case store.OutcomeCancel:
		e := err
		if e == nil {
			e = store.ErrCancelled
		} else if !errors.Is(e, store.ErrCancelled) {
			e = fmt.Errorf("%w: %w", store.ErrCancelled, e)
		}
		req.Error = r.attemptError(a, e)
	default:
		req.Error = r.attemptError(a, err)
	}
	return req
}

// Limits on what an attempt error records.
const (
	maxErrorText = 8 << 10
	maxStackText = 16 << 10
)

// attemptError is the history record of a failed attempt: the error's
// text and, for a panic, its stack, both bounded, with when it started and
// on which worker.
func (r *worker) attemptError(a *attempt, err error) *store.AttemptError {
	e := &store.AttemptError{Attempt: a.rec.Attempt, Error: truncate(err.Error(), maxErrorText), StartedAt: a.startedAt(), Worker: r.cfg.ID}
	if st := r.cfg.Classify(err).Stack; st != "" {
		e.Stack = truncate(st, maxStackText)
	}
	return e
}

// truncate returns s cut to at most n bytes, at a character's start so
// that valid UTF-8 stays valid, marked as cut. A cut in the middle of a
// character stored invalid UTF-8, which the dashboard's page carried.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "… (truncated)"
}
