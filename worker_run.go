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

	"github.com/hopperq/hopper/store"
	"golang.org/x/sync/errgroup"
)

// workerRun is the state of one Worker.Run.
//
// The fetch loop claims jobs into a buffered channel, up to Concurrency
// running plus Prefetch waiting; a fixed pool of Concurrency executor
// goroutines (an errgroup) takes them from it. An executor whose handler is
// abandoned (it ignored its context) is replaced, so the pool keeps its
// size.
type workerRun struct {
	st       Store
	cfg      WorkerConfig
	log      *slog.Logger
	handlers map[string]Handler
	handler  Handler // middleware chain around route

	queues  []string // claim candidates, sorted by name
	weights []int    // weight of queues[i]
	qcap    []int    // per-queue cap in this worker, 0 = none
	qheld   []atomic.Int32

	pool     errgroup.Group
	jobs     chan *attempt // claimed, waiting for an executor
	held     atomic.Int32  // attempts whose outcome is not decided yet (waiting or running)
	busy     atomic.Int32  // executors running an attempt that is not abandoned
	owed     atomic.Int32  // replacements the pool's limit did not let start
	freed    chan struct{} // signalled when held or busy drops
	stopping atomic.Bool   // set when Run's context is done: start nothing new

	// jobBase is the parent of every attempt's context. It does not end
	// with Run's context (running jobs get ShutdownTimeout to finish) and
	// it cannot be cancelled, so attempts do not register with it.
	jobBase context.Context

	mu     sync.Mutex
	active map[*attempt]struct{}

	fin     *finisher
	started time.Time
	host    string
}

func newWorkerRun(st Store, cfg WorkerConfig, handlers map[string]Handler, mws []Middleware) *workerRun {
	r := &workerRun{
		st:       st,
		cfg:      cfg,
		log:      cfg.Logger,
		handlers: maps.Clone(handlers),
		jobs:     make(chan *attempt, cfg.Concurrency+cfg.Prefetch),
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
	r.qheld = make([]atomic.Int32, len(r.queues))
	for i, q := range r.queues {
		r.weights[i] = cfg.Queues[q]
		r.qcap[i] = cfg.QueueConcurrency[q]
	}
	// Room for one replacement per executor whose handler was abandoned.
	r.pool.SetLimit(2 * cfg.Concurrency)
	r.fin = newFinisher(r)
	return r
}

func (r *workerRun) run(ctx context.Context) error {
	r.jobBase = context.WithoutCancel(ctx)

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
		bg.Go(func() { _ = NewScheduler(r.st, &sc).Run(ctx) })
	}
	for range r.cfg.Concurrency {
		r.pool.Go(r.executor)
	}

	r.fetchLoop(ctx)
	r.stopping.Store(true)
	// From now on a failing store cannot hold the worker: outcomes it
	// keeps refusing are given up after finalFlushTimeout (an add blocked
	// on the full finisher would otherwise keep releaseWaiting waiting).
	r.fin.beginClosing()
	r.releaseWaiting()
	close(r.jobs) // executors exit after their current attempt
	r.shutdown()

	r.fin.close()
	stopBg()
	bg.Wait()
	return nil
}

// releaseWaiting hands back the leases of claimed jobs no executor started.
func (r *workerRun) releaseWaiting() {
	for {
		select {
		case a := <-r.jobs:
			r.release(a)
		default:
			return
		}
	}
}

// release hands an attempt that will not run (or did not finish) back to
// the st: ready again at once, the attempt not counted.
func (r *workerRun) release(a *attempt) {
	if !a.abandon() {
		return
	}
	r.fin.add(a, &store.FinishRequest{Queue: a.rec.Queue, ID: a.rec.ID, Token: a.rec.Token, Outcome: OutcomeRelease})
	r.decided(a) // after the add: see exec
}

// decided accounts for an attempt whose outcome was just decided.
func (r *workerRun) decided(a *attempt) {
	r.held.Add(-1)
	r.qheld[a.qi].Add(-1)
	r.signalFreed()
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
		slog.Int("running", int(r.held.Load())), slog.Duration("shutdown_timeout", r.cfg.ShutdownTimeout))
	for _, a := range r.snapshot() {
		a.interrupt(stopShutdown)
	}
	grace := time.NewTimer(time.Second)
	defer grace.Stop()
	if r.waitIdle(grace.C) {
		return
	}
	for _, a := range r.snapshot() {
		if a.state.Load() == attemptRunning {
			r.log.Warn("hopper: job did not stop after its context was cancelled; lease handed back",
				slog.String("queue", a.rec.Queue), slog.String("id", a.rec.ID), slog.String("kind", a.rec.Kind))
			r.release(a)
		}
	}
}

// waitIdle waits until no attempt is undecided or timeout fires.
func (r *workerRun) waitIdle(timeout <-chan time.Time) bool {
	for r.held.Load() > 0 {
		select {
		case <-r.freed:
		case <-timeout:
			return r.held.Load() == 0
		}
	}
	return true
}

// snapshot returns the attempts the worker holds, including those waiting
// for an executor and those whose finish is not yet confirmed by the store.
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

// signalFreed wakes the fetch loop (or shutdown) after an attempt was
// decided or an executor freed.
func (r *workerRun) signalFreed() {
	select {
	case r.freed <- struct{}{}:
	default:
	}
}
