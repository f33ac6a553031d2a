package middleware

import (
	"context"
	"runtime/debug"

	"github.com/hopperq/hopper"
)

// RecoverConfig configures Recover. The zero value (or nil) means defaults.
// Recover reads it once; changing it afterwards has no effect.
type RecoverConfig struct {
	// OnPanic, when set, is called after a handler panicked, with the job and
	// the error the attempt fails with (the panic value and the goroutine
	// stack). It runs synchronously on the job's goroutine, before the
	// worker records the failure, so it must be quick and safe for
	// concurrent use: use it to report panics to an error tracker. It cannot
	// change the outcome. If OnPanic panics itself, that second panic is
	// swallowed and the attempt fails with the first. Defaults to nil.
	OnPanic func(ctx context.Context, job *hopper.JobRecord, p *hopper.PanicError)
}

// Recover returns middleware that turns a panic in the handler into a
// failed attempt: the handler's call returns a *hopper.PanicError holding
// the panic value and the stack of the panicking goroutine, so the job is
// retried after backoff (or moved to garbage when its retries are used up)
// with both kept in its error history. The worker's goroutine survives, so
// the pool keeps its size.
//
// cfg may be nil, which means the zero RecoverConfig: no OnPanic hook, so
// a panic becomes the failed attempt and nothing else is called; a nil
// OnPanic in a non-nil cfg means the same. Recover reads cfg.OnPanic
// before it returns; changing cfg afterwards has no effect.
//
// Every worker already recovers panics this way by default; use Recover to
// add an OnPanic hook. It is meant for hopper.WorkerConfig.Recover, which
// installs it innermost, right around the handler, so that every middleware
// registered with Worker.Use sees the panic as an error:
//
//	w := hopper.NewWorker(store, &hopper.WorkerConfig{
//		Recover: middleware.Recover(&middleware.RecoverConfig{OnPanic: report}),
//	})
//
// Registered with Worker.Use instead, it would only see panics of the
// middleware after it, since the worker's innermost recover catches the
// handler's first. A panic value that is an error stays reachable with
// errors.Is and errors.As through PanicError.Unwrap.
//
// The returned middleware is safe for concurrent use, and so must OnPanic
// be: it is called on the goroutine of each attempt that panicked, several
// at once when several panic at once.
func Recover(cfg *RecoverConfig) hopper.Middleware {
	var onPanic func(context.Context, *hopper.JobRecord, *hopper.PanicError)
	if p := cfg; p != nil {
		onPanic = p.OnPanic
	}
	return func(next hopper.Handler) hopper.Handler {
		return hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) (err error) {
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				p := &hopper.PanicError{Value: v, Stack: debug.Stack()}
				err = p
				if onPanic != nil {
					callOnPanic(onPanic, ctx, job, p)
				}
			}()
			return next.Handle(ctx, job)
		})
	}
}

// callOnPanic runs the hook, swallowing a panic in it.
func callOnPanic(f func(context.Context, *hopper.JobRecord, *hopper.PanicError), ctx context.Context, job *hopper.JobRecord, p *hopper.PanicError) {
	defer func() { _ = recover() }()
	f(ctx, job, p)
}
