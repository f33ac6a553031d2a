package hopper

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// workerRun is the state of one Worker.Run.
type workerRun struct {
	store    Store
	cfg      WorkerConfig
	log      *slog.Logger
	handlers map[string]Handler
	handler  Handler // middleware chain around route

	queues  []string // claim candidates, sorted by name
	weights []int    // weight of queues[i]
	qcap    []int    // per-queue cap in this worker, 0 = none
	qbusy   []atomic.Int32

	pool  errgroup.Group
	busy  atomic.Int32 // goroutines holding a pool slot
	live  atomic.Int32 // attempts whose outcome is not decided yet
	freed chan struct{}

	// jobBase is the parent of every attempt's context. It does not end
	// with Run's context: running jobs get ShutdownTimeout to finish.
	jobBase context.Context
	stopJob context.CancelCauseFunc

	mu     sync.Mutex
	active map[*attempt]struct{}

	fin     *finisher
	started time.Time
	host    string
}

func newWorkerRun(store Store, cfg WorkerConfig, handlers map[string]Handler, mws []Middleware) *workerRun {
	r := &workerRun{
		store:    store,
		cfg:      cfg,
		log:      cfg.Logger,
		handlers: maps.Clone(handlers),
		freed:    make(chan struct{}, 1),
		active:   map[*attempt]struct{}{},
		started:  time.Now(),
	}
	r.host, _ = os.Hostname()
	rec := cfg.Recover
	if rec == nil {
		rec = recoverHandler
	}
	r.handler = chain(rec(HandlerFunc(r.route)), slices.Clone(mws))
	r.queues = slices.Sorted(maps.Keys(cfg.Queues))
	r.weights = make([]int, len(r.queues))
	r.qcap = make([]int, len(r.queues))
	r.qbusy = make([]atomic.Int32, len(r.queues))
	for i, q := range r.queues {
		r.weights[i] = cfg.Queues[q]
		r.qcap[i] = cfg.QueueConcurrency[q]
	}
	r.pool.SetLimit(cfg.Concurrency)
	r.fin = newFinisher(r)
	return r
}

func (r *workerRun) run(ctx context.Context) error {
	r.jobBase, r.stopJob = context.WithCancelCause(context.WithoutCancel(ctx))
	defer r.stopJob(nil)

	var bg sync.WaitGroup
	bgCtx, stopBg := context.WithCancel(context.WithoutCancel(ctx))
	bg.Go(r.fin.loop)
	bg.Go(func() { r.leaseLoop(bgCtx) })
	bg.Go(func() { r.heartbeatLoop(bgCtx) })
	if !r.cfg.DisableScheduler {
		var sc SchedulerConfig
		if r.cfg.Scheduler != nil {
			sc = *r.cfg.Scheduler
		}
		sc.Queues = r.queues
		if sc.Logger == nil {
			sc.Logger = r.log
		}
		bg.Go(func() { _ = NewScheduler(r.store, &sc).Run(ctx) })
	}

	r.fetchLoop(ctx)
	r.shutdown()

	r.fin.close()
	stopBg()
	bg.Wait()
	return nil
}

// shutdown waits for running attempts up to ShutdownTimeout, then cancels
// them and hands back the leases of those that did not return in a second.
func (r *workerRun) shutdown() {
	deadline := time.NewTimer(r.cfg.ShutdownTimeout)
	defer deadline.Stop()
	if r.waitIdle(deadline.C) {
		return
	}
	r.log.Warn("hopper: shutdown timeout reached; cancelling running jobs",
		slog.Int("running", int(r.live.Load())), slog.Duration("shutdown_timeout", r.cfg.ShutdownTimeout))
	for _, a := range r.snapshot() {
		a.interrupt(stopShutdown)
	}
	grace := time.NewTimer(time.Second)
	defer grace.Stop()
	if r.waitIdle(grace.C) {
		return
	}
	for _, a := range r.snapshot() {
		if a.abandon() {
			r.live.Add(-1)
			r.log.Warn("hopper: job did not stop after its context was cancelled; lease handed back",
				slog.String("queue", a.rec.Queue), slog.String("id", a.rec.ID), slog.String("kind", a.rec.Kind))
			r.fin.add(a, &FinishRequest{Queue: a.rec.Queue, ID: a.rec.ID, Token: a.rec.Token, Outcome: OutcomeRelease})
		}
	}
}

// waitIdle waits until no attempt is undecided or timeout fires.
func (r *workerRun) waitIdle(timeout <-chan time.Time) bool {
	for r.live.Load() > 0 {
		select {
		case <-r.freed:
		case <-timeout:
			return r.live.Load() == 0
		}
	}
	return true
}

// snapshot returns the attempts the worker holds, including those whose
// finish is not yet confirmed by the store.
func (r *workerRun) snapshot() []*attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Collect(maps.Keys(r.active))
}

func (r *workerRun) forget(a *attempt) {
	r.mu.Lock()
	delete(r.active, a)
	r.mu.Unlock()
}

// signalFreed wakes the fetch loop (or shutdown) after a slot or an attempt
// was freed.
func (r *workerRun) signalFreed() {
	select {
	case r.freed <- struct{}{}:
	default:
	}
}
