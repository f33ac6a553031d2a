package hopper

import (
	"context"
	"errors"

	"github.com/hopperq/hopper/internal/engine"
	"github.com/hopperq/hopper/store"
)

// Outcome is store.Outcome.
type Outcome = store.Outcome

// The outcomes of an attempt (store.Outcome); Handler's table says
// which one a handler's return gives.
const (
	OutcomeAck       = store.OutcomeAck
	OutcomeRetry     = store.OutcomeRetry
	OutcomeGarbage   = store.OutcomeGarbage
	OutcomeSnooze    = store.OutcomeSnooze
	OutcomeRelease   = store.OutcomeRelease
	OutcomeCancel    = store.OutcomeCancel
	OutcomeLeaseLost = store.OutcomeLeaseLost
)

// AttemptOutcome returns how the attempt of job running in ctx ends when
// its handler returns err, exactly as the worker will report it to the
// store: the table on Handler. Middleware call it after the next handler
// returned, to log, trace or count the outcome; the worker decides from the
// same state, so they agree. Outside a worker's attempt (a test calling a
// handler directly, say) it reads the context's cause (ErrShutdown,
// ErrCancelled, ErrLeaseLost) and then the table.
func AttemptOutcome(ctx context.Context, job *JobRecord, err error) Outcome {
	if o, ok := engine.AttemptOutcome(ctx, job, err); ok {
		return o
	}
	if err != nil {
		switch cause := context.Cause(ctx); {
		case cause == nil:
		case errors.Is(cause, ErrShutdown):
			return OutcomeRelease
		case errors.Is(cause, ErrCancelled):
			return OutcomeCancel
		case errors.Is(cause, ErrLeaseLost):
			return OutcomeLeaseLost
		}
	}
	return engine.OutcomeOf(job, err, classify(err))
}

// classify reads what a handler's error asks for from hopper's error types.
func classify(err error) engine.Verdict {
	var v engine.Verdict
	if err == nil {
		return v
	}
	var snooze *SnoozeError
	if errors.As(err, &snooze) {
		v.Snooze, v.Delay, v.Hold = true, snooze.Delay, snooze.Hold
	}
	v.Cancelled = errors.Is(err, ErrCancelled)
	var perm *PermanentError
	v.Permanent = errors.As(err, &perm)
	var p *PanicError
	if errors.As(err, &p) {
		v.Stack = string(p.Stack)
	}
	return v
}
