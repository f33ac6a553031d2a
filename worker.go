package hopper

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Worker runs jobs from a Store: it claims ready jobs from its queues,
// runs each in a bounded pool through the middleware to the handler
// registered for its kind, and acks, retries, snoozes or buries it by the
// handler's result. It renews the leases of running jobs, runs a Scheduler
// for its queues (unless disabled), and registers itself in the store so
// the dashboard lists it.
//
// Register handlers with Handle and middleware with Use before Run. A Worker
// runs once at a time; after Run returns it may run again.
type Worker struct {
	st  Store
	cfg WorkerConfig

	mu       sync.Mutex
	handlers map[string]Handler
	mws      []Middleware
	running  bool
}

// NewWorker returns a Worker on store. A nil cfg means defaults; an invalid
// field is reported by Run with an error wrapping ErrInvalidConfig. It
// panics if store is nil.
func NewWorker(store Store, cfg *WorkerConfig) *Worker {
	if store == nil {
		panic("hopper: NewWorker with a nil Store")
	}
	w := &Worker{st: store, handlers: map[string]Handler{}}
	if cfg != nil {
		w.cfg = *cfg
	}
	return w
}

// Use adds middleware around every handler, the first outermost, after any
// added before. It panics if called while the worker runs.
func (w *Worker) Use(mws ...Middleware) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running {
		panic("hopper: Worker.Use while the worker runs")
	}
	w.mws = append(w.mws, mws...)
}

// HandleKind registers h for jobs of kind, for handlers that work on encoded
// args (Handle is the typed form). It panics if kind is empty, already
// registered, or the worker runs.
func (w *Worker) HandleKind(kind string, h Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.running:
		panic("hopper: handler registered while the worker runs")
	case kind == "":
		panic("hopper: handler registered for an empty kind")
	case w.handlers[kind] != nil:
		panic(fmt.Sprintf("hopper: a handler for kind %q is already registered", kind))
	}
	w.handlers[kind] = h
}

// Handle registers fn as the handler of jobs of T's kind: the worker decodes
// each job's args into a T and calls fn. A job whose args do not decode goes
// to garbage with an error wrapping ErrDecode. It panics if the kind is
// already registered or the worker runs.
func Handle[T Args](w *Worker, fn func(ctx context.Context, job *Job[T]) error) {
	var zero T
	w.HandleKind(kindOf(zero), HandlerFunc(func(ctx context.Context, rec *JobRecord) error {
		job := &Job[T]{JobRecord: rec}
		if err := decodeArgs(rec.Args, &job.Args); err != nil {
			return Permanent(fmt.Errorf("kind %q: %w", rec.Kind, err))
		}
		return fn(ctx, job)
	}))
}

// kindOf reads the kind of an args type from its zero value, with a clear
// panic when Kind is declared on a pointer receiver.
func kindOf(a Args) (kind string) {
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("hopper: Handle: %T.Kind panicked on a zero value (declare Kind on the value type): %v", a, r))
		}
	}()
	return a.Kind()
}

// Run works until ctx is done, then shuts down gracefully: it stops
// claiming, lets running jobs finish for up to ShutdownTimeout, then cancels
// the rest and hands their leases back so they are redelivered at once. It
// returns nil after a shutdown, or an error for an invalid config or a
// second concurrent Run. Store errors do not stop it: they are logged and
// retried with backoff.
func (w *Worker) Run(ctx context.Context) error {
	cfg, err := w.cfg.withDefaults()
	if err != nil {
		return err
	}
	w.mu.Lock()
	if w.running {
		w.mu.Unlock()
		return errors.New("hopper: Worker.Run called while already running")
	}
	if len(w.handlers) == 0 {
		w.mu.Unlock()
		return fmt.Errorf("%w: no handlers registered (use hopper.Handle)", ErrInvalidConfig)
	}
	w.running = true
	r := newWorkerRun(w.st, cfg, w.handlers, w.mws)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.running = false
		w.mu.Unlock()
	}()
	return r.run(ctx)
}
