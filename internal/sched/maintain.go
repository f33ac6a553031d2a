// Package sched runs hopper's Scheduler: the maintenance loop that sleeps
// until the next due time of each queue (promote, reclaim, collect, as
// store.Store.Maintain does them), and the periodic loop that enqueues the
// ticks of periodic jobs. Package hopper owns their configuration; this
// package sees it resolved.
package sched

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper/store"
)

// Config is the maintenance loop's resolved configuration.
type Config struct {
	// Queues to maintain; empty means every queue the store knows, listed
	// again every 10 s.
	Queues []string
	// Maintain bounds each Store.Maintain call.
	Maintain store.MaintainOptions
	// MaxSleep is the longest sleep between two passes over a queue.
	MaxSleep time.Duration
	Logger   *slog.Logger
}

// Run maintains cfg's queues until ctx is done.
func Run(ctx context.Context, st store.Store, cfg Config) {
	r := &schedRun{st: st, cfg: cfg, next: map[string]time.Time{}, fails: map[string]int{}}
	r.run(ctx)
}

type schedRun struct {
	st     store.Store
	cfg    Config
	queues atomic.Pointer[[]string]
	// watched are the queues watch waits on: those whose last Maintain
	// succeeded. A failing queue is left to its backoff timer, so that a
	// due job it cannot move does not end every wait at once.
	watched atomic.Pointer[[]string]
	next    map[string]time.Time // when each queue is due for a pass, local monotonic time
	fails   map[string]int       // consecutive errors per queue, for backoff
	listed  time.Time            // when the queue list was last refreshed
}

func (r *schedRun) run(ctx context.Context) {
	r.refreshQueues(ctx, true)
	signal := make(chan struct{}, 1)
	passed := make(chan struct{}, 1) // a pass over the queues ended
	waitDone := make(chan struct{})
	go func() {
		defer close(waitDone)
		r.watch(ctx, signal, passed)
	}()
	defer func() { <-waitDone }()

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		r.refreshQueues(ctx, false)
		now := time.Now()
		for _, q := range *r.queues.Load() {
			if !r.next[q].After(now) {
				r.maintain(ctx, q)
			}
		}
		if ctx.Err() != nil {
			return
		}
		r.updateWatched()
		select {
		case passed <- struct{}{}:
		default:
		}
		wake := time.Now().Add(r.cfg.MaxSleep)
		for _, q := range *r.queues.Load() {
			if t := r.next[q]; t.Before(wake) {
				wake = t
			}
		}
		timer.Reset(max(time.Until(wake), 0))
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-signal:
			timer.Stop() // since Go 1.23 no stale tick can be received after Stop
			for q := range r.next {
				if r.fails[q] == 0 { // a failing queue keeps its backoff
					r.next[q] = time.Time{}
				}
			}
		}
	}
}

// maintain runs one Maintain call on q and schedules its next pass.
func (r *schedRun) maintain(ctx context.Context, q string) {
	res, err := r.st.Maintain(ctx, q, r.cfg.Maintain)
	now := time.Now()
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		r.fails[q]++
		d := min(r.cfg.MaxSleep, time.Duration(1<<min(r.fails[q], 10))*10*time.Millisecond)
		r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: maintain failed",
			slog.String("queue", q), slog.Any("error", err), slog.Duration("retry_in", d))
		r.next[q] = now.Add(d)
		return
	}
	r.fails[q] = 0
	switch {
	case res.More:
		r.next[q] = now
	case res.Idle:
		r.next[q] = now.Add(r.cfg.MaxSleep)
	default:
		// A due time rounded to the store's millisecond can look due a
		// fraction early; never spin faster than once a millisecond.
		r.next[q] = now.Add(min(max(res.NextIn, time.Millisecond), r.cfg.MaxSleep))
	}
}

// updateWatched publishes the queues watch should wait on.
func (r *schedRun) updateWatched() {
	qs := *r.queues.Load()
	failing := 0
	for _, q := range qs {
		if r.fails[q] > 0 {
			failing++
		}
	}
	if failing == 0 {
		r.watched.Store(&qs)
		return
	}
	healthy := make([]string, 0, len(qs)-failing)
	for _, q := range qs {
		if r.fails[q] == 0 {
			healthy = append(healthy, q)
		}
	}
	r.watched.Store(&healthy)
}

// watch turns the store's schedule signals into wake-ups of the run loop.
// After each wake-up it waits for the run loop to finish a pass, so that a
// store whose wait returns at once (a due job a failing Maintain cannot
// move) paces this loop instead of spinning it.
func (r *schedRun) watch(ctx context.Context, signal chan<- struct{}, passed <-chan struct{}) {
	fails := 0
	for ctx.Err() == nil {
		qs := *r.queues.Load()
		if w := r.watched.Load(); w != nil {
			qs = *w
		}
		if len(qs) == 0 { // nothing to watch (yet): look again after the next pass
			select {
			case <-ctx.Done():
				return
			case <-passed:
			case <-time.After(r.cfg.MaxSleep):
			}
			continue
		}
		err := r.st.WaitSchedule(ctx, qs, r.cfg.MaxSleep)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			fails++
			d := min(r.cfg.MaxSleep, time.Duration(1<<min(fails, 10))*10*time.Millisecond)
			r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: wait failed",
				slog.Any("error", err), slog.Duration("retry_in", d))
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
			continue
		}
		fails = 0
		select {
		case signal <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return
		case <-passed:
		}
	}
}

// refreshQueues lists the store's queues when the config names none, at
// most every 10 s unless forced.
func (r *schedRun) refreshQueues(ctx context.Context, force bool) {
	if len(r.cfg.Queues) > 0 {
		if r.queues.Load() == nil {
			qs := r.cfg.Queues
			r.queues.Store(&qs)
		}
		return
	}
	if !force && time.Since(r.listed) < 10*time.Second {
		return
	}
	r.listed = time.Now()
	qs, err := r.st.Queues(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: listing queues failed", slog.Any("error", err))
		}
		if r.queues.Load() == nil {
			r.queues.Store(&[]string{})
		}
		return
	}
	r.queues.Store(&qs)
}
