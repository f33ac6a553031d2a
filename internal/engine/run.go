package engine

import (
	"context"
	"log/slog"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/internal/retrylog"
	"github.com/hopperq/hopper/store"
	"golang.org/x/sync/errgroup"
)

// Run works on cfg's queues of st until ctx is done, running each job
// through h, then shuts down gracefully: it stops claiming, lets running
// jobs finish for up to ShutdownTimeout, then cancels the rest and hands
// their leases back so they are redelivered at once. Store errors do not
// stop it: they are logged and retried with backoff. It returns nil.
func Run(ctx context.Context, st store.Store, cfg Config, h Handler) error {
	return newWorker(st, cfg, h).run(ctx)
}

// worker is the state of one Run.
//
// The fetch loop claims jobs into a buffered channel, up to Concurrency
// running plus Prefetch waiting; a fixed pool of Concurrency executor
// goroutines (an errgroup) takes them from it. An executor whose handler is
// abandoned (it ignored its context) is replaced, so the pool keeps its
// size.
type worker struct {
	st      store.Store
	cfg     Config
	log     *slog.Logger
	handler Handler // the chain: middleware, recover, the kind's handler

	queues  []string // claim candidates, sorted by name
	weights []int    // weight of queues[i]
	qcap    []int    // per-queue cap in this worker, 0 = none
	qheld   []atomic.Int32
	// qholds counts, per queue, the outcomes with a hold (RateLimited) not
	// yet reported to the store: until the store holds the queue (or the
	// job's group), this worker claims nothing from it (claimOrder), or a
	// slot freed by the rate-limited job would claim the next job, which
	// hits the same limit.
	qholds []atomic.Int32

	pool  errgroup.Group
	kept  *keptGoroutines // the claims' and the finish flushes' goroutines
	jobs  chan *attempt   // claimed, waiting for an executor
	held  atomic.Int32    // attempts whose outcome is not decided yet (waiting or running)
	busy  atomic.Int32    // executors running an attempt that is not abandoned
	owed  atomic.Int32    // replacements the pool's limit did not let start
	freed chan struct{}   // signalled when held drops to wakeAt or below
	// wakeAt is the number of held attempts at or below which the fetch
	// loop can claim again (worker.publishWake), math.MaxInt32 while it
	// does not run: a decided attempt wakes it only then.
	wakeAt   atomic.Int32
	stopping atomic.Bool // set when Run's context is done: start nothing new

	// beatOutage and cmdOutage are what was logged of the heartbeat's and
	// the command read's failures (the heartbeat loop's alone).
	beatOutage, cmdOutage retrylog.Outage
	// leaseOutage is what was logged of the lease renewals' failures
	// (extend, from the lease loop and from progress reports).
	leaseOutage struct {
		sync.Mutex
		retrylog.Outage
	}
	// beaten is set once a heartbeat succeeded: before that the store
	// holds no record of the worker to remove at shutdown.
	beaten atomic.Bool

	// beat asks the heartbeat loop for an early heartbeat: a job started,
	// and the registry should show it before the next period.
	beat chan struct{}
	// processed and failed count the attempts whose handlers returned and
	// were reported, and those of them that failed (retry or garbage), for
	// the registry.
	processed, failed atomic.Int64
	// durs counts how long handlers ran, for the store (durations.go).
	durs durationCounts

	// jobBase is the parent of every attempt's context. It does not end
	// with Run's context (running jobs get ShutdownTimeout to finish) and
	// it cannot be cancelled, so attempts do not register with it.
	jobBase context.Context

	mu     sync.Mutex
	active map[*attempt]struct{}

	// ctl carries operator commands (worker_control.go); nil when the
	// store has none. mode is the workerRunning/Quiet/Stopping the
	// heartbeat reports; quieted is closed on quiet and stopRun ends Run's
	// context on stop.
	ctl      store.WorkerControl
	mode     atomic.Int32
	quietNow sync.Once
	quieted  chan struct{}
	stopRun  context.CancelFunc

	fin     *finisher
	hooks   chan hookCall // nil without Config.Finished
	started time.Time
	host    string
}

func newWorker(st store.Store, cfg Config, h Handler) *worker {
	r := &worker{
		st:      st,
		cfg:     cfg,
		log:     cfg.Logger,
		handler: h,
		jobs:    make(chan *attempt, 2*(cfg.Concurrency+cfg.Prefetch)), // see launchClaims: slow claims lend their room once
		freed:   make(chan struct{}, 1),
		beat:    make(chan struct{}, 1),
		active:  map[*attempt]struct{}{},
		started: time.Now(),
		quieted: make(chan struct{}),
	}
	r.ctl, _ = store.As[store.WorkerControl](st)
	r.host, _ = os.Hostname()
	qs := slices.SortedFunc(slices.Values(cfg.Queues), func(a, b Queue) int { return strings.Compare(a.Name, b.Name) })
	r.queues = make([]string, len(qs))
	r.weights = make([]int, len(qs))
	r.qcap = make([]int, len(qs))
	r.qheld = make([]atomic.Int32, len(qs))
	r.qholds = make([]atomic.Int32, len(qs))
	for i, q := range qs {
		r.queues[i], r.weights[i], r.qcap[i] = q.Name, q.Weight, q.Cap
	}
	// Room for one replacement per executor whose handler was abandoned.
	r.pool.SetLimit(2 * cfg.Concurrency)
	r.fin = newFinisher(r)
	r.kept = newKeptGoroutines()
	r.wakeAt.Store(math.MaxInt32)
	if cfg.Finished != nil {
		r.hooks = make(chan hookCall, 4*cfg.Concurrency)
	}
	return r
}

func (r *worker) run(ctx context.Context) error {
	r.jobBase = context.WithoutCancel(ctx)
	ctx, r.stopRun = context.WithCancel(ctx)
	defer r.stopRun()

	var bg sync.WaitGroup
	bgCtx, stopBg := context.WithCancel(context.WithoutCancel(ctx))
	var hooks sync.WaitGroup
	if r.hooks != nil {
		hooks.Go(func() { r.hookLoop(r.hooks) })
	}
	bg.Go(r.fin.loop)
	bg.Go(func() { r.leaseLoop(bgCtx) })
	bg.Go(func() { r.heartbeatLoop(bgCtx) })
	bg.Go(func() { r.durationLoop(bgCtx) })
	for range r.cfg.Concurrency {
		r.pool.Go(r.executor)
	}

	r.fetchLoop(r.fetchContext(ctx))
	if ctx.Err() == nil {
		// Quiet: claim nothing more, hand back what waits for an
		// executor, let the running jobs finish, and stay up until
		// stopped.
		r.releaseWaiting()
		r.quietened()
		<-ctx.Done()
	}
	r.mode.Store(modeStopping)
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
	r.kept.stop() // the claims and flushes have returned: fetchLoop and the finisher waited for them
	if r.hooks != nil {
		// The finisher has stopped: no hook call comes after this. The
		// calls queued run before Run returns.
		close(r.hooks)
		hooks.Wait()
	}
	return nil
}

// releaseWaiting hands back the leases of claimed jobs no executor started.
func (r *worker) releaseWaiting() {
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
func (r *worker) release(a *attempt) {
	if !a.abandon() {
		return
	}
	r.fin.add(a, &store.AttemptEnd{Queue: a.rec.Queue, ID: a.rec.ID, Token: a.rec.Token, Outcome: store.OutcomeRelease,
		Kind: a.rec.Kind, Attempt: a.rec.Attempt})
	r.decided(a) // after the add: see exec
}

// decided accounts for an attempt whose outcome was just decided.
func (r *worker) decided(a *attempt) {
	h := r.held.Add(-1)
	r.qheld[a.qi].Add(-1)
	if h <= r.wakeAt.Load() {
		r.signalFreed()
	}
}

// shutdown waits for running attempts up to ShutdownTimeout, then cancels
// them and hands back the leases of those that did not return in a second.
func (r *worker) shutdown() {
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
func (r *worker) waitIdle(timeout <-chan time.Time) bool {
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
func (r *worker) snapshot() []*attempt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Collect(maps.Keys(r.active))
}

func (r *worker) forget(a *attempt) {
	r.mu.Lock()
	delete(r.active, a)
	r.mu.Unlock()
	if a.holding.CompareAndSwap(true, false) {
		r.qholds[a.qi].Add(-1)
		r.signalFreed() // the queue may be claimed from again
	}
}

// signalFreed wakes the fetch loop (or shutdown) after an attempt was
// decided.
func (r *worker) signalFreed() {
	select {
	case r.freed <- struct{}{}:
	default:
	}
}
