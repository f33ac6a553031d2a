package hopper

import (
	"context"
	"runtime/debug"
)

// Handler runs one attempt of a job. The error it returns decides the
// outcome: nil acks, Permanent sends to garbage, Snooze postpones, any other
// error retries after backoff (or sends to garbage when retries are used up).
// The table on Outcome has every case.
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
// through their Meta (the map itself), until the call returns.
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
