package hopper

import (
	"context"
	"errors"

	"github.com/hopperq/hopper/store"
)

// HookFunc is a lifecycle hook: job is the job as its attempt ran, err
// the error its handler returned (nil for a success).
type HookFunc func(ctx context.Context, job *JobRecord, err error)

// Hooks are functions a Worker calls after the store confirmed an
// attempt's outcome, in the worker's process. They run one at a time, in
// the order the outcomes were confirmed, on a goroutine of their own, never
// for an outcome the store refused (a lost lease) and never twice for one
// attempt; a panic in a hook is logged. A slow hook delays the next ones,
// and past 4×Concurrency waiting calls the worker's reporting of outcomes
// waits for it. Run returns after the hooks of the outcomes it reported
// have run. The zero value has no hooks and costs nothing.
//
// An outcome whose reply was lost (the link cut after the request went
// out) is sent again; it counts as confirmed, and its hook runs once, when
// the store finds the job where that outcome put it under this attempt's
// claim: acked and kept in done (a retention), waiting in retry, or in
// garbage. An ack that finds the job gone counts too (without a retention
// an ack deletes it), which a job deleted, or run and acked by another
// worker once this one's lease ran out, while the reply was lost would
// look like too. A retried job that was promoted or claimed again before
// the outcome was sent again is not found so: the store answers that the
// lease was lost, an INFO line says so, and its OnRetry does not run.
//
// Hooks see what this worker decided. A job whose worker died and whose
// lease expired on its last attempt dies in the scheduler, where no hook
// runs: Client.Subscribe (EventDead) sees every death, wherever it
// happened.
type Hooks struct {
	// OnSuccess runs after a job was acked.
	OnSuccess HookFunc
	// OnRetry runs after a failed attempt was scheduled for a retry.
	OnRetry HookFunc
	// OnDead runs after a job went to garbage: its retries used up, a
	// permanent failure, args that do not decode, an unknown kind, or a
	// cancellation (err then wraps ErrCancelled).
	OnDead HookFunc
}

// any reports whether h has a hook.
func (h Hooks) any() bool { return h.OnSuccess != nil || h.OnRetry != nil || h.OnDead != nil }

// finished returns the engine's callback for h, nil without hooks.
func (h Hooks) finished() func(ctx context.Context, rec *store.JobRecord, o store.Outcome, err error) {
	if !h.any() {
		return nil
	}
	return func(ctx context.Context, rec *store.JobRecord, o store.Outcome, err error) {
		var fn HookFunc
		switch o {
		case store.OutcomeAck:
			fn = h.OnSuccess
		case store.OutcomeRetry:
			fn = h.OnRetry
		case store.OutcomeGarbage:
			fn = h.OnDead
		case store.OutcomeCancel:
			fn = h.OnDead
			switch {
			case err == nil:
				err = ErrCancelled
			case !errors.Is(err, ErrCancelled):
				// One line, wrapping both (errors.Join's text has two).
				err = errorf("%w: %w", ErrCancelled, err)
			}
		}
		if fn != nil {
			fn(ctx, rec, err)
		}
	}
}
