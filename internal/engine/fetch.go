package engine

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// fetchLoop claims jobs and hands them to the executors until ctx is done.
// It claims at once when an executor would otherwise sit idle, and tops up
// the Prefetch buffer when at least half of it is free, so that a busy
// worker claims (and acks) in batches. When nothing is claimable it blocks
// in Store.WaitReady rather than polling.
func (r *worker) fetchLoop(ctx context.Context) {
	order := make([]int, len(r.queues))
	waitOn := make([]string, 0, len(r.queues))
	refill := max(1, r.cfg.Prefetch/2)
	fails := 0
	for ctx.Err() == nil {
		held := int(r.held.Load())
		room := r.cfg.Concurrency + r.cfg.Prefetch - held
		if room <= 0 || (held >= r.cfg.Concurrency && room < refill) {
			select {
			case <-ctx.Done():
				return
			case <-r.freed:
			}
			continue
		}
		r.claimOrder(order)
		claimed, retryIn, waitOn, err := r.claimRound(ctx, order, min(room, r.cfg.ClaimBatch), waitOn[:0])
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			fails++
			d := min(5*time.Second, time.Duration(1<<min(fails, 9))*10*time.Millisecond)
			r.log.Error("hopper: claiming jobs failed; retrying", slog.Any("error", err), slog.Duration("retry_in", d))
			sleepCtx(ctx, d)
			continue
		}
		fails = 0
		if claimed > 0 {
			continue
		}
		if len(waitOn) == 0 { // every queue is at its cap in this worker
			select {
			case <-ctx.Done():
				return
			case <-r.freed:
			}
			continue
		}
		wait := r.cfg.IdleWait
		if retryIn > 0 {
			wait = min(wait, retryIn)
		}
		if err := r.waitReady(ctx, waitOn, wait, len(waitOn) < len(r.queues)); err != nil && ctx.Err() == nil {
			r.log.Error("hopper: waiting for jobs failed", slog.Any("error", err))
			sleepCtx(ctx, 100*time.Millisecond)
		}
	}
}

// waitReady waits for a job to become ready in one of queues. When some
// queue was left out because it is at its cap in this worker, a slot freed
// by a finished attempt ends the wait too, so that the capped queue's
// backlog is claimed at once rather than after the wait's timeout.
func (r *worker) waitReady(ctx context.Context, queues []string, wait time.Duration, capped bool) error {
	if !capped {
		return r.st.WaitReady(ctx, queues, wait)
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-r.freed:
			cancel()
		case <-wctx.Done():
		}
	}()
	err := r.st.WaitReady(wctx, queues, wait)
	if ctx.Err() == nil && wctx.Err() != nil {
		return nil // a slot freed: claim again
	}
	return err
}

// claimRound tries the queues in order, claiming up to want jobs in all. It
// returns how many it claimed, the shortest RetryIn a limited queue asked
// for, and the queues worth waiting on.
func (r *worker) claimRound(ctx context.Context, order []int, want int, waitOn []string) (int, time.Duration, []string, error) {
	claimed := 0
	var retryIn time.Duration
	for _, qi := range order {
		n := want - claimed
		if c := r.qcap[qi]; c > 0 {
			n = min(n, c-int(r.qheld[qi].Load()))
		}
		if n <= 0 {
			continue
		}
		waitOn = append(waitOn, r.queues[qi])
		sent := time.Now()
		res, err := r.st.Claim(ctx, store.ClaimRequest{Queue: r.queues[qi], Max: n, Lease: r.cfg.Lease, WorkerID: r.cfg.ID})
		if err != nil {
			return claimed, 0, waitOn, err
		}
		for _, rec := range res.Jobs {
			r.dispatch(rec, qi, sent.Add(r.cfg.Lease))
		}
		claimed += len(res.Jobs)
		if res.RetryIn > 0 && (retryIn == 0 || res.RetryIn < retryIn) {
			retryIn = res.RetryIn
		}
		if claimed >= want {
			break
		}
	}
	return claimed, retryIn, waitOn, nil
}

// claimOrder fills order with queue indexes in the order to try them:
// highest weight first with StrictPriority, otherwise a random order in
// which each queue comes first in proportion to its weight.
func (r *worker) claimOrder(order []int) {
	for i := range order {
		order[i] = i
	}
	if len(order) == 1 {
		return
	}
	if r.cfg.StrictPriority {
		slices.SortStableFunc(order, func(a, b int) int { return r.weights[b] - r.weights[a] })
		return
	}
	total := 0
	for _, w := range r.weights {
		total += w
	}
	for i := range order { // weighted draw without replacement
		pick := rand.IntN(total)
		for j := i; j < len(order); j++ {
			w := r.weights[order[j]]
			if pick < w {
				order[i], order[j] = order[j], order[i]
				total -= w
				break
			}
			pick -= w
		}
	}
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
