package hoppertest

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// WorkOpts configures Work. The zero value (or nil) means defaults.
type WorkOpts struct {
	// Enqueue are the options the job is enqueued with (queue, retries,
	// timeout, retention, ...). A Delay or RunAt is honoured by moving
	// Clock to the job's due time before it runs.
	Enqueue *hopper.EnqueueOpts
	// Worker configures the worker that runs the job (Backoff,
	// JobTimeout, KindTimeouts, Recover, ...); its Queues is set to the
	// job's queue and its Logger defaults to one that discards.
	Worker *hopper.WorkerConfig
	// Use is the middleware the worker runs the handler in, first
	// outermost, as Worker.Use takes it.
	Use []hopper.Middleware
	// Clock is the store's clock. Defaults to a new Clock at time.Now().
	Clock *Clock
}

// WorkResult is what Work saw.
type WorkResult struct {
	// Outcome is how the attempt ended (hopper.AttemptOutcome).
	Outcome hopper.Outcome
	// Err is what the handler chain returned.
	Err error
	// Job is the job as the store holds it after the attempt: in retry
	// with its error, in garbage, in done with its result, pending after a
	// snooze. Nil when the job is gone (acked without a retention).
	Job *hopper.JobRecord
}

// Work runs one job with args through fn exactly as a worker would, on a
// fresh in-memory store: args are encoded and enqueued, the job is claimed,
// its args decoded into a Job[A], fn runs inside opts.Use and the worker's
// panic guard with the attempt's context (RecordResult works, a panic
// becomes an error, the job's timeout applies), and the outcome is
// reported to the store. It fails t when the job cannot be enqueued or the
// store fails.
func Work[A hopper.Args](ctx context.Context, t T, fn func(ctx context.Context, job *hopper.Job[A]) error, args A, opts *WorkOpts) WorkResult {
	t.Helper()
	var o WorkOpts
	if opts != nil {
		o = *opts
	}
	if o.Clock == nil {
		o.Clock = NewClock(time.Now())
	}
	s := memstore.New(&memstore.Config{Clock: o.Clock.Now})
	info, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), args, o.Enqueue)
	if err != nil {
		t.Fatalf("hoppertest.Work: enqueue %T: %v", args, err)
	}
	ins := hopper.NewInspector(s)
	rec, err := ins.GetJob(ctx, info.Queue, info.ID)
	if err != nil {
		t.Fatalf("hoppertest.Work: %v", err)
	}
	if rec.State == hopper.StatePending {
		o.Clock.Set(rec.RunAt)
	}

	var cfg hopper.WorkerConfig
	if o.Worker != nil {
		cfg = *o.Worker
	}
	cfg.Queues = map[string]int{info.Queue: 1}
	cfg.QueueConcurrency = nil
	cfg.DisableScheduler = true
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	w := hopper.NewWorker(s, &cfg)
	var mu sync.Mutex
	var res WorkResult
	w.Use(func(next hopper.Handler) hopper.Handler {
		return hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error {
			err := next.Handle(ctx, job)
			mu.Lock()
			res.Err, res.Outcome = err, hopper.AttemptOutcome(ctx, job, err)
			mu.Unlock()
			return err
		})
	})
	w.Use(o.Use...)
	hopper.Handle(w, fn)
	maintainAll(ctx, t, s)
	if _, err := w.Drain(ctx); err != nil {
		t.Fatalf("hoppertest.Work: %v", err)
	}
	rec, err = ins.GetJob(ctx, info.Queue, info.ID)
	switch {
	case errors.Is(err, hopper.ErrJobNotFound):
	case err != nil:
		t.Fatalf("hoppertest.Work: %v", err)
	default:
		res.Job = rec
	}
	mu.Lock()
	defer mu.Unlock()
	return res
}
