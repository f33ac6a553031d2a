package hopper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"

	"github.com/hopperq/hopper/internal/engine"
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

// NewWorker returns a Worker on st. A nil cfg means defaults. It panics if
// st is nil or cfg is invalid (with the error of WorkerConfig.Validate).
func NewWorker(st Store, cfg *WorkerConfig) *Worker {
	if st == nil {
		panic("hopper: NewWorker with a nil Store")
	}
	w := &Worker{st: st, handlers: map[string]Handler{}}
	if cfg != nil {
		w.cfg = *cfg
	}
	if err := w.cfg.Validate(); err != nil {
		panic(err)
	}
	return w
}

// Use adds middleware around every handler, the first outermost, after any
// added before. It panics if one is nil (adding none), or if called while
// the worker runs.
func (w *Worker) Use(mws ...Middleware) {
	for i, m := range mws {
		if m == nil {
			panic(fmt.Sprintf("hopper: Worker.Use with a nil Middleware (argument %d)", i))
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running {
		panic("hopper: Worker.Use while the worker runs")
	}
	w.mws = append(w.mws, mws...)
}

// HandleKind registers h for jobs of kind, for handlers that work on encoded
// args (Handle is the typed form). It panics if kind is empty, already
// registered, h is nil (or a nil HandlerFunc), or the worker runs.
func (w *Worker) HandleKind(kind string, h Handler) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.running:
		panic("hopper: handler registered while the worker runs")
	case kind == "":
		panic("hopper: handler registered for an empty kind")
	case nilHandler(h):
		panic(fmt.Sprintf("hopper: HandleKind(%q) with a nil Handler", kind))
	case w.handlers[kind] != nil:
		panic(fmt.Sprintf("hopper: a handler for kind %q is already registered", kind))
	}
	w.handlers[kind] = h
}

// nilHandler reports whether h is nil or a nil function (HandlerFunc(nil)),
// which would panic on every job of its kind.
func nilHandler(h Handler) bool {
	if h == nil {
		return true
	}
	v := reflect.ValueOf(h)
	return v.Kind() == reflect.Func && v.IsNil()
}

// Handle registers fn as the handler of jobs of T's kind: the worker decodes
// each job's args into a T and calls fn. A job whose args do not decode goes
// to garbage with an error wrapping ErrDecode. It panics if fn is nil, the
// kind is already registered or the worker runs.
func Handle[T Args](w *Worker, fn func(ctx context.Context, job *Job[T]) error) {
	var zero T
	kind := kindOf(zero)
	if fn == nil {
		panic(fmt.Sprintf("hopper: Handle with a nil handler func for kind %q", kind))
	}
	w.HandleKind(kind, HandlerFunc(func(ctx context.Context, rec *JobRecord) error {
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
// the rest and hands their leases back so they are redelivered at once.
//
// An operator can quiet or stop a running worker from the dashboard when
// the store carries commands (store.WorkerControl; redisstore and memstore
// do). The worker takes a command on its next heartbeat, so within
// WorkerConfig.HeartbeatInterval (5s by default; sooner while jobs start).
// Quiet: it claims no more jobs, hands the ones it claimed and had not
// started back to ready, lets the running ones finish, and stays up — Run
// does not return, and the registry shows it as quiet — until ctx ends or
// it is stopped. Stop: it shuts down as when ctx ends (the scheduler and
// services included), and Run returns nil. A quieted or stopped process
// starts afresh when run again; a command not taken within
// store.WorkerCommandTTL is dropped.
//
// It returns nil after a shutdown, or an error when no handler is
// registered or Run is called again while it runs, or the error of a
// service (WorkerConfig.Services) whose failure shut the worker down. Store
// errors do not stop it: they are logged and retried with backoff. But a
// store that cannot serve a call again shuts the worker down as when ctx
// ends (its scheduler too), and Run returns that error, which says so:
//
//   - a store closed for good, which no call can reach again (its
//     go-redis client was closed: redisstore.ErrClientClosed, wrapping
//     redis.ErrClosed): a store's error says so with a method
//     StoreClosed() bool returning true;
//   - a store that refuses every call until an operator acts, whose
//     error's text says what to do (a data layout this release cannot
//     read: upgrade hopper, or migrate the data): a store's error says so
//     with a method StoreFinal() bool returning true.
//
// Errors an operator may fix while the worker runs (an ACL that denies a
// command, a failed authentication) are not final: they are retried.
func (w *Worker) Run(ctx context.Context) error {
	cfg, err := w.cfg.withDefaults()
	if err != nil {
		return err // cannot happen: NewWorker checked it
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
	h := w.chain(cfg.Recover)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.running = false
		w.mu.Unlock()
	}()
	ctx, services := runServices(ctx, cfg.Services, cfg.Logger)
	// The engine also returns when an operator stops the worker
	// (store.WorkerStop): the scheduler and the services stop with it.
	ctx, endRun := context.WithCancel(ctx)
	defer endRun()
	// The engine and the scheduler work on st, which ends them both when
	// one sees that the store cannot serve a call again.
	st := &closeWatch{Store: w.st, stop: endRun}
	var sched sync.WaitGroup
	if !cfg.DisableScheduler {
		sc := w.schedulerConfig(cfg)
		sched.Go(func() { _ = NewScheduler(w.st, &sc).run(ctx, st) })
	}
	err = engine.Run(ctx, st, cfg.engine(), func(ctx context.Context, rec *JobRecord) error { return h.Handle(ctx, rec) })
	endRun()
	sched.Wait()
	return errors.Join(err, st.ended("worker"), services())
}

// Drain runs the jobs that are ready in the worker's queues one at a time,
// in the calling goroutine, until none is ready, and returns how many
// attempts it ran. It is for tests and one-off scripts: each job goes
// through the store, the middleware and its handler exactly as under Run
// (a claim with a lease and a fencing token, then ack, retry with backoff,
// garbage or snooze), but nothing runs in the background: no lease renewal
// (a handler must return within the Lease), no scheduler (jobs delayed or
// waiting to retry stay where they are until something promotes them; see
// hoppertest.Drain) and no registration in the store. It returns the first
// store error, or ctx's error when ctx ends. Drain and Run must not run at
// the same time.
func (w *Worker) Drain(ctx context.Context) (int, error) {
	cfg, err := w.cfg.withDefaults()
	if err != nil {
		return 0, err
	}
	w.mu.Lock()
	if w.running {
		w.mu.Unlock()
		return 0, errors.New("hopper: Worker.Drain called while the worker runs")
	}
	if len(w.handlers) == 0 {
		w.mu.Unlock()
		return 0, fmt.Errorf("%w: no handlers registered (use hopper.Handle)", ErrInvalidConfig)
	}
	w.running = true
	h := w.chain(cfg.Recover)
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		w.running = false
		w.mu.Unlock()
	}()
	return engine.Drain(ctx, w.st, cfg.engine(), func(ctx context.Context, rec *JobRecord) error { return h.Handle(ctx, rec) })
}

// chain builds the handler an attempt runs: the middleware, then rec (the
// panic guard, recoverHandler unless WorkerConfig.Recover replaces it), then
// the handler of the job's kind. w.mu must be held.
func (w *Worker) chain(rec Middleware) Handler {
	handlers := maps.Clone(w.handlers)
	log := w.cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	route := HandlerFunc(func(ctx context.Context, rec *JobRecord) error {
		defer engine.MarkReturned(ctx)
		h := handlers[rec.Kind]
		if h == nil {
			log.Warn("hopper: no handler for kind; job sent to garbage",
				slog.String("kind", rec.Kind), slog.String("queue", rec.Queue), slog.String("id", rec.ID))
			return Permanent(fmt.Errorf("%w %q (queue %q)", ErrUnknownKind, rec.Kind, rec.Queue))
		}
		return h.Handle(ctx, rec)
	})
	if rec == nil {
		rec = recoverHandler
	}
	h := rec(route)
	for i := len(w.mws) - 1; i >= 0; i-- {
		h = w.mws[i](h)
	}
	return h
}

// schedulerConfig is the configuration of the scheduler a worker runs for
// its own queues.
func (w *Worker) schedulerConfig(cfg WorkerConfig) SchedulerConfig {
	var sc SchedulerConfig
	if cfg.Scheduler != nil {
		sc = *cfg.Scheduler
	}
	sc.Queues = slices.Sorted(maps.Keys(cfg.Queues))
	if sc.Logger == nil {
		sc.Logger = cfg.Logger
	}
	return sc
}
