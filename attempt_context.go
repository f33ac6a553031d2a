package hopper

import (
	"context"
	"errors"
	"fmt"
)

type attemptKey struct{}

// outcome is the attempt's outcome given its handler's error, taking into
// account why the worker may have cancelled it.
func (a *attempt) outcome(err error) Outcome {
	if err == nil {
		return OutcomeAck
	}
	switch a.stop.Load() {
	case stopLeaseLost:
		return OutcomeLeaseLost
	case stopCancelled:
		return OutcomeCancel
	case stopShutdown:
		return OutcomeRelease
	}
	return OutcomeOf(a.rec, err)
}

// AttemptOutcome returns what the worker does with the attempt running in
// ctx when its handler returns err: OutcomeOf, except that an attempt the
// worker interrupted ends as OutcomeRelease (shutdown), OutcomeCancel
// (Store.Cancel) or OutcomeLeaseLost. Middleware call it after the next
// handler returned; the worker decides from the same state, so they agree.
// Outside a worker's attempt it reads the same from the context's cause
// (ErrShutdown, ErrCancelled, ErrLeaseLost), then falls back to OutcomeOf.
func AttemptOutcome(ctx context.Context, job *JobRecord, err error) Outcome {
	if a, _ := ctx.Value(attemptKey{}).(*attempt); a != nil && a.rec == job {
		return a.outcome(err)
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
	return OutcomeOf(job, err)
}

// RecordResult stores v, encoded with msgpack, as the result of the job
// running in ctx. It is kept with the job when the handler succeeds and the
// job has a retention (EnqueueOpts.Retention or the queue's); later calls
// replace earlier ones. It returns an error outside a handler, or when the
// encoded result is larger than MaxResultBytes.
func RecordResult(ctx context.Context, v any) error {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	if a == nil {
		return errors.New("hopper: RecordResult called outside a job handler")
	}
	b, err := encodeArgs(v)
	if err != nil {
		return err
	}
	if len(b) > MaxResultBytes {
		return fmt.Errorf("hopper: result of %d bytes is over MaxResultBytes (%d)", len(b), MaxResultBytes)
	}
	a.mu.Lock()
	a.result = b
	a.mu.Unlock()
	return nil
}
