package engine

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hopperq/hopper/store"
)

// leaseLoop renews the leases of the jobs this worker holds in one batched
// Store call, with the progress they reported since the last one,
// interrupts jobs whose lease was lost or that were cancelled, and
// abandons handlers that ignore their context. It makes no store call
// while the worker holds no job.
func (r *worker) leaseLoop(ctx context.Context) {
	t := time.NewTicker(r.cfg.RenewEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		held := r.snapshot()
		if len(held) == 0 {
			continue
		}
		r.extend(ctx, held)
		r.watchdog(held)
	}
}

// extend renews the leases of held in one Store call, with the progress
// each has to send, and acts on what the store found. A report the store
// could not take (the call or its lease's check failed) is kept for the
// next call.
func (r *worker) extend(ctx context.Context, held []*attempt) {
	refs := make([]store.LeaseRef, len(held))
	for i, a := range held {
		refs[i] = store.LeaseRef{Queue: a.rec.Queue, ID: a.rec.ID, Token: a.rec.Token, Progress: a.takeProgress()}
	}
	sent := time.Now()
	// One renewal never takes longer than the interval between two: a
	// node that does not answer cannot hold back the renewals of the
	// others (the store renews them on their own shards meanwhile), and
	// the next renewal comes on time.
	ectx, cancel := context.WithTimeout(ctx, r.cfg.RenewEvery)
	st, err := r.st.Extend(ectx, refs, r.cfg.Lease)
	cancel()
	if err != nil || len(st) != len(refs) {
		for i, a := range held {
			if p := refs[i].Progress; p != nil {
				a.keepProgress(p)
			}
		}
		if ctx.Err() == nil {
			r.leaseFailed("hopper: renewing leases failed", slog.Int("jobs", len(refs)), slog.Any("error", err))
		}
		return
	}
	failed := 0
	for i, s := range st {
		if s.Err != nil {
			if p := refs[i].Progress; p != nil {
				held[i].keepProgress(p)
			}
			if failed == 0 {
				err = s.Err
			}
			failed++
		}
	}
	switch {
	case failed > 0 && ctx.Err() == nil:
		r.leaseFailed("hopper: renewing some leases failed; trying again at the next renewal",
			slog.Int("jobs", failed), slog.Int("of", len(refs)), slog.Any("error", err))
	case failed == 0:
		r.leaseOutage.Lock()
		log, n, lasted := r.leaseOutage.Recovered(time.Now())
		r.leaseOutage.Unlock()
		if log {
			r.log.Info("hopper: renewing leases works again", slog.Int("failures", n), slog.Duration("after", lasted))
		}
	}
	r.applyLeases(held, st, sent)
}

// leaseFailed logs a failed renewal as one of an outage (retrylog): its
// first failure, then at most one every retrylog.Every with how many were
// left out. Each renewal of a failing shard logged its own line.
func (r *worker) leaseFailed(msg string, attrs ...any) {
	r.leaseOutage.Lock()
	log, omitted := r.leaseOutage.Failed(time.Now())
	r.leaseOutage.Unlock()
	if log {
		r.log.Error(msg, append(attrs, slog.Int("failures_not_logged", omitted))...)
	}
}

// applyLeases acts on what Extend, sent at sent, found: a renewed lease
// moves the attempt's leaseUntil, a lost one or a cancellation stops it.
func (r *worker) applyLeases(held []*attempt, st []store.LeaseStatus, sent time.Time) {
	now := time.Now()
	until := sent.Add(r.cfg.Lease).UnixNano()
	for i, s := range st {
		a := held[i]
		switch {
		case s.Err != nil:
			// This lease could not be checked (its queue's shard failed):
			// keep the job and try again at the next renewal; the lease
			// bound (leaseUntil) stays where the last renewal left it.
		case !s.Held:
			r.stopAttempt(a, stopLeaseLost, now)
		case s.Cancel:
			r.stopAttempt(a, stopCancelled, now)
		default:
			a.leaseUntil.Store(until)
		}
	}
}

// confirmLease renews the lease of an attempt about to start after waiting
// past its leaseUntil, as after a stall of the whole process (SIGSTOP, a VM
// pause) or while renewals failed: the job may have been reclaimed and run
// elsewhere meanwhile, and must not run here again. When the store cannot
// be asked, the attempt runs; its ack is refused if the lease was lost.
func (r *worker) confirmLease(a *attempt) {
	held := []*attempt{a}
	sent := time.Now()
	st, err := r.st.Extend(r.jobBase, []store.LeaseRef{{Queue: a.rec.Queue, ID: a.rec.ID, Token: a.rec.Token}}, r.cfg.Lease)
	if err != nil || len(st) != 1 {
		r.log.Warn("hopper: could not confirm the lease of a job that waited past it; running it",
			slog.String("queue", a.rec.Queue), slog.String("id", a.rec.ID), slog.Any("error", err))
		return
	}
	r.applyLeases(held, st, sent)
}

// stopAttempt interrupts an attempt for reason. A running one gets
// AbandonAfter to return; one still waiting for an executor ends when an
// executor takes it, without running.
func (r *worker) stopAttempt(a *attempt, reason int32, now time.Time) {
	if a.state.Load() != attemptRunning {
		return
	}
	if a.started.Load() != 0 {
		a.giveUpAt.Store(now.Add(r.cfg.AbandonAfter).UnixNano())
	}
	a.interrupt(reason)
}

// watchdog gives up on handlers still running AbandonAfter past their
// deadline: the attempt fails (or ends as cancelled) and the job goes on
// without them. Go cannot stop the goroutine, so a replacement executor
// keeps the pool at its size (up to one replacement per executor).
func (r *worker) watchdog(held []*attempt) {
	now := time.Now().UnixNano()
	for _, a := range held {
		at := a.giveUpAt.Load()
		if at == 0 || now < at || a.started.Load() == 0 || !a.abandon() {
			continue
		}
		r.busy.Add(-1)
		if !r.pool.TryGo(r.executor) {
			// The executor of the next abandoned handler to return takes
			// this place instead of exiting.
			r.owed.Add(1)
			r.log.Error("hopper: too many abandoned handlers; the pool is one executor short until one returns")
		}
		rec := a.rec
		r.log.Error("hopper: handler ignored its context and is still running; attempt abandoned",
			slog.String("queue", rec.Queue), slog.String("id", rec.ID), slog.String("kind", rec.Kind),
			slog.Duration("running", time.Since(a.startedAt())))
		err := fmt.Errorf("hopper: handler still running %v after its context ended; abandoned (its goroutine cannot be stopped)", r.cfg.AbandonAfter)
		a.err = err
		if req := r.finishRequest(a, err); req != nil {
			r.fin.add(a, req)
		} else {
			r.forget(a)
		}
		r.decided(a) // after the add: see exec
	}
}
