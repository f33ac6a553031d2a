package hopper

import (
	"context"
	"runtime/debug"
)

// Handler runs one attempt of a job. The error it returns decides the
// outcome (AttemptOutcome reports it to middleware):
//
//	handler returns            outcome        what happens to the job
//	nil                        OutcomeAck     deleted, or kept in done for its retention
//	an error, retries left     OutcomeRetry   waits in retry for its backoff, then runs again
//	an error, no retry left    OutcomeGarbage moves to garbage with its errors
//	Permanent(err)             OutcomeGarbage moves to garbage at once
//	Snooze(d)                  OutcomeSnooze  waits d in pending; the attempt is not counted
//	RateLimited(d)             OutcomeSnooze  as Snooze(d), and the queue claims nothing for d
//	a panic                    as an error    recorded with its stack; the pool keeps its size
//	context deadline (timeout) as an error    retried or buried like any error
//	anything, job cancelled    OutcomeCancel  moves to garbage marked cancelled, never retried
//	anything, worker stopping  OutcomeRelease back to ready at once; the attempt is not counted
//	anything, lease lost       OutcomeLeaseLost nothing: another worker has the job now
//	(process dies mid-job)     -              its lease expires and the job runs again
type Handler interface {
	Handle(ctx context.Context, job *JobRecord) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, job *JobRecord) error

// Handle calls f(ctx, job).
func (f HandlerFunc) Handle(ctx context.Context, job *JobRecord) error { return f(ctx, job) }

// Middleware wraps a Handler, net/http style. Middleware registered with
// Worker.Use run in the order given, the first outermost:
//
//	w.Use(m1, m2)
//	// m1 start -> m2 start -> recover -> handler -> m2 end -> m1 end
//
// The worker always runs the handler inside a recover that turns a panic
// into a *PanicError, so every middleware sees a panic as an error.
type Middleware func(Handler) Handler

// EnqueueFunc stores jobs; it is what enqueue middleware wraps. The last one
// in the chain stores the jobs in the Client's Store. It returns one JobInfo
// per job, in order, as EnqueuePrepared does; a job its store step failed
// has JobInfo.Err set. The jobs are a middleware's to read, and to change
// through their Meta (the map itself), until the call returns. The Meta
// is checked again after the last middleware: a key a middleware left
// empty fails the call with ErrInvalidJob, as in EnqueueOpts.Meta, and
// nothing is stored.
type EnqueueFunc func(ctx context.Context, jobs []*PreparedJob) ([]*JobInfo, error)

// EnqueueMiddleware wraps the enqueue path of a Client: it may add metadata
// (such as trace context) to the jobs, observe results, or refuse. Registered
// with Client.Use, the first outermost. It sees every batch once, so
// EnqueueMany calls it once for the whole batch, and so do EnqueuePrepared,
// EnqueueWorkflow (every task's job) and the Scheduler (a tick's job).
type EnqueueMiddleware func(EnqueueFunc) EnqueueFunc

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
