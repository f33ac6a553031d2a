package hopper

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"time"

	"github.com/hopperq/hopper/internal/engine"
	"github.com/hopperq/hopper/store"
)

// WorkerConfig configures a Worker. A nil config, and every zero field, means
// the documented default.
type WorkerConfig struct {
	// Queues maps each queue to work on to its weight (at least 1). With
	// weights, each claim round picks the queue to try first at random in
	// proportion to its weight; with StrictPriority, queues are always tried
	// highest weight first. Defaults to {"default": 1}.
	Queues map[string]int
	// StrictPriority tries queues in order of weight, so a lower queue only
	// runs when every higher one is empty. Defaults to false (weighted).
	StrictPriority bool
	// QueueConcurrency caps how many jobs of a queue this worker runs at
	// once. Queues not listed are capped only by Concurrency.
	QueueConcurrency map[string]int
	// Concurrency is how many jobs run at once (the size of the pool).
	// Defaults to 10.
	Concurrency int
	// Lease is the visibility timeout: how long a claimed job stays
	// invisible to other workers. The worker renews the leases of the jobs
	// it holds every RenewInterval, so a handler may run far longer; the
	// lease only matters when the worker dies, stalls or loses the store
	// for longer than the lease: then another worker runs the job. Defaults
	// to 30 s; at least 100 ms.
	Lease time.Duration
	// RenewInterval is how often the worker renews the leases of the jobs
	// it holds, in one batched store call, and learns of cancellations. A
	// renewal that takes longer is abandoned at the next (its leases stay
	// as they were), so a slow or failing shard cannot make healthy leases
	// run out. Defaults to Lease/3, at most 500 ms (so a cancelled job
	// stops within about half a second); at least 10 ms, and below Lease/2.
	RenewInterval time.Duration
	// IdleWait is how long an idle worker waits for a wake-up from the
	// store before it checks a few of its queues (at most four, in turn)
	// that it heard nothing from. Wake-ups come within a round trip of a
	// job becoming ready and none is lost to a frozen or dead process (see
	// the store's WaitReady), so this only bounds how late a job can be if
	// a wake-up is lost to a fault. Shorter costs claims on idle queues.
	// Defaults to 5 s; at least 10 ms.
	IdleWait time.Duration
	// JobTimeout bounds each attempt of a job that sets no Timeout of its own
	// (the handler's context deadline). Defaults to 30 minutes; negative
	// means no timeout.
	JobTimeout time.Duration
	// KindTimeouts overrides JobTimeout per kind, for jobs that set no
	// Timeout of their own.
	KindTimeouts map[string]time.Duration
	// AbandonAfter is how long after its deadline (timeout, cancellation or
	// lost lease) a handler that ignores its context may keep running before
	// the worker gives up on it: the attempt fails with an error saying so and
	// the job is retried. Go cannot stop the goroutine, so its slot stays
	// taken until it returns. Defaults to 10 s.
	AbandonAfter time.Duration
	// ShutdownTimeout is how long Run waits, after its context is done, for
	// running jobs to finish. Then their contexts are cancelled, and the
	// leases of those that have not returned a second later are handed back
	// so other workers redeliver them at once: Run returns up to
	// ShutdownTimeout plus a second after its context ends (plus a store
	// call or two). Defaults to 10 s.
	ShutdownTimeout time.Duration
	// ClaimBatch is the most jobs one claim fetches. Defaults to
	// min(Concurrency, 100).
	ClaimBatch int
	// Prefetch is how many claimed jobs the worker may hold waiting for a
	// free slot, so that it claims (and acks) in batches rather than one job
	// whenever a slot frees. Their leases are renewed while they wait, and a
	// shutdown hands them back at once. Defaults to ClaimBatch; negative
	// means none (claim only for free slots, as fairness across many
	// workers with slow jobs may want). A queue with a rate limit is
	// claimed for free slots only, whatever Prefetch says: its jobs must
	// start within a guard of their claim (QueueConfig.RateLimit). A claim
	// slow to come back (a slow link, large jobs) lends its room to
	// another, at most once over, so a worker holds at most twice
	// Concurrency + Prefetch jobs, running ones included (256 with 64
	// slots and the default Prefetch): size its memory for that many.
	Prefetch int
	// OrderedStarts hands the jobs of one queue to the slots in the order
	// the store took them, even with two claims in flight on the queue (a
	// backlog, with the default Prefetch): a claim that comes back while
	// the other is still at the store waits for it, and their jobs go out
	// oldest claim first. Without it (the default), a later claim's jobs
	// may start before an earlier claim's jobs of the same priority or
	// group. It costs a backlog's drain 10–20 % of its throughput on
	// Redis (measured with the repository's bench), hence off by default.
	// Strict order without it: one slot and Prefetch -1.
	OrderedStarts bool
	// Backoff computes the delay before a retry. Defaults to DefaultBackoff.
	Backoff BackoffFunc
	// Recover is the middleware installed innermost, right around the
	// handler, to turn a panic into an error. Defaults to one that returns a
	// *PanicError with the panic value and stack, so every middleware sees a
	// panic as an error and the attempt fails like any other. Replace it to
	// report panics elsewhere (middleware.Recover takes a hook). Whatever it
	// is, the worker also recovers outside all middleware: a panic never kills
	// the process nor shrinks the pool.
	Recover Middleware
	// Logger receives the worker's logs. Defaults to slog.Default().
	Logger *slog.Logger
	// ID names this worker process in the store's registry. Defaults to
	// host-pid-random.
	ID string
	// HeartbeatInterval is how often the worker records itself as alive
	// (Inspector.ListWorkers). Defaults to 5 s. A job that starts brings a
	// heartbeat sooner, at most one a second, so the registry shows it
	// within about a second.
	HeartbeatInterval time.Duration
	// Scheduler configures the scheduler the worker runs for its queues.
	// Its Queues field is ignored. Nil means defaults.
	Scheduler *SchedulerConfig
	// DisableScheduler stops the worker from running a scheduler; then some
	// other process must run one (NewScheduler) or delayed and retried jobs
	// never become ready and expired leases are never reclaimed.
	DisableScheduler bool
	// Hooks run after the store confirmed an outcome: on success, on
	// retry, on death (see Hooks). Defaults to none.
	Hooks Hooks
	// Services run beside the worker for as long as Run runs, for work
	// that should live and stop with it, such as an outbox relay
	// (pgxoutbox.Relay.Run). Run calls each once, in a goroutine of its
	// own, with a context that ends when the worker begins to shut down,
	// and waits for all of them to return before it returns. A service
	// that fails (returns an error while its context is not done) shuts
	// the worker down gracefully and Run returns its error, the first
	// when several fail; one that returns nil just ends. A service should
	// return soon after its context ends; errors it returns then are
	// logged, not returned. Drain runs no service. Defaults to none.
	Services []func(ctx context.Context) error
}

// Validate reports whether c is a valid configuration: nil, or an error
// wrapping ErrInvalidConfig that names the first invalid field. NewWorker
// panics with the same error; call Validate first when the values come from
// outside the program (flags, environment, a file).
func (c WorkerConfig) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults returns a copy of c with defaults applied, or an error
// wrapping ErrInvalidConfig that names the first bad field.
func (c WorkerConfig) withDefaults() (WorkerConfig, error) {
	c.Queues = maps.Clone(c.Queues)
	if len(c.Queues) == 0 {
		c.Queues = map[string]int{DefaultQueue: 1}
	}
	for q, w := range c.Queues {
		if err := store.ValidateQueue(q); err != nil {
			return c, errorf("%w: Queues: %w", ErrInvalidConfig, err)
		}
		if w < 1 {
			return c, fmt.Errorf("%w: Queues[%q] weight %d must be at least 1", ErrInvalidConfig, q, w)
		}
	}
	for q, n := range c.QueueConcurrency {
		if _, ok := c.Queues[q]; !ok {
			return c, fmt.Errorf("%w: QueueConcurrency names %q, which is not in Queues", ErrInvalidConfig, q)
		}
		if n < 1 {
			return c, fmt.Errorf("%w: QueueConcurrency[%q] = %d must be at least 1", ErrInvalidConfig, q, n)
		}
	}
	for i, s := range c.Services {
		if s == nil {
			return c, fmt.Errorf("%w: Services[%d] is nil", ErrInvalidConfig, i)
		}
	}
	for k, d := range c.KindTimeouts {
		if d <= 0 {
			return c, fmt.Errorf("%w: KindTimeouts[%q] = %v must be positive", ErrInvalidConfig, k, d)
		}
	}
	var err error
	pos := func(name string, v *time.Duration, def, min time.Duration) {
		switch {
		case err != nil:
		case *v == 0:
			*v = def
		case *v < min:
			err = fmt.Errorf("%w: %s %v must be at least %v", ErrInvalidConfig, name, *v, min)
		}
	}
	if c.Concurrency < 0 {
		return c, fmt.Errorf("%w: Concurrency %d is negative", ErrInvalidConfig, c.Concurrency)
	}
	if c.Concurrency == 0 {
		c.Concurrency = 10
	}
	if c.ClaimBatch < 0 {
		return c, fmt.Errorf("%w: ClaimBatch %d is negative", ErrInvalidConfig, c.ClaimBatch)
	}
	if c.ClaimBatch == 0 {
		c.ClaimBatch = min(c.Concurrency, 100)
	}
	switch {
	case c.Prefetch == 0:
		c.Prefetch = c.ClaimBatch
	case c.Prefetch < 0:
		c.Prefetch = 0
	}
	pos("Lease", &c.Lease, 30*time.Second, 100*time.Millisecond)
	pos("RenewInterval", &c.RenewInterval, min(c.Lease/3, 500*time.Millisecond), 10*time.Millisecond)
	pos("IdleWait", &c.IdleWait, 5*time.Second, 10*time.Millisecond)
	if err == nil && c.RenewInterval >= c.Lease/2 {
		err = fmt.Errorf("%w: RenewInterval %v must be below half the Lease (%v)", ErrInvalidConfig, c.RenewInterval, c.Lease)
	}
	pos("AbandonAfter", &c.AbandonAfter, 10*time.Second, time.Millisecond)
	pos("ShutdownTimeout", &c.ShutdownTimeout, 10*time.Second, time.Millisecond)
	pos("HeartbeatInterval", &c.HeartbeatInterval, 5*time.Second, 10*time.Millisecond)
	if err != nil {
		return c, err
	}
	if c.Scheduler != nil && !c.DisableScheduler {
		sc := *c.Scheduler
		sc.Queues = nil // the worker's queues
		if _, err := sc.withDefaults(); err != nil {
			return c, fmt.Errorf("WorkerConfig.Scheduler: %w", err)
		}
	}
	if c.JobTimeout == 0 {
		c.JobTimeout = 30 * time.Minute
	}
	if c.Backoff == nil {
		c.Backoff = DefaultBackoff
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.ID == "" {
		host, _ := os.Hostname()
		c.ID = fmt.Sprintf("%s-%d-%04x", host, os.Getpid(), rand.Uint32()&0xffff)
	}
	return c, nil
}

// engine returns the engine's view of a config with its defaults applied.
func (c WorkerConfig) engine() engine.Config {
	qs := make([]engine.Queue, 0, len(c.Queues))
	for q, w := range c.Queues {
		qs = append(qs, engine.Queue{Name: q, Weight: w, Cap: c.QueueConcurrency[q]})
	}
	return engine.Config{
		Queues:            qs,
		StrictPriority:    c.StrictPriority,
		Concurrency:       c.Concurrency,
		ClaimBatch:        c.ClaimBatch,
		Prefetch:          c.Prefetch,
		OrderedStarts:     c.OrderedStarts,
		Lease:             c.Lease,
		RenewEvery:        c.RenewInterval,
		IdleWait:          c.IdleWait,
		JobTimeout:        c.JobTimeout,
		KindTimeouts:      maps.Clone(c.KindTimeouts),
		AbandonAfter:      c.AbandonAfter,
		ShutdownTimeout:   c.ShutdownTimeout,
		HeartbeatInterval: c.HeartbeatInterval,
		Backoff:           c.Backoff,
		Classify:          classify,
		Recovered:         func(v any, stack []byte) error { return &PanicError{Value: v, Stack: stack} },
		Logger:            c.Logger,
		ID:                c.ID,
		Weights:           maps.Clone(c.Queues),
		Finished:          c.Hooks.finished(),
	}
}
