package engine

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// sweepPerIdleWait is how many queues an idle wait that ended without a
// signal marks for a claim anyway, in turn: the last resort against a
// signal lost to a fault, at a cost bounded however many queues there are.
const sweepPerIdleWait = 4

// never is a due time that does not come.
var never = time.Unix(1<<62, 0)

// fetcher is the fetch loop's view of its queues: when each is worth a
// claim.
//
// A queue is due for a claim at start (once), when the store signals it
// (WaitReady returned it), when the last claim on it filled its batch (more
// may be waiting), and when a limit that held it back said when to try
// again (ClaimResult.RetryIn). A claim that found the queue empty makes it
// due "never", until the next signal. A queue whose claim failed is due
// again after a backoff of its own, so a failing queue (or shard) delays
// no other.
type fetcher struct {
	due   []time.Time // per queue index
	fails []int       // consecutive claim errors per queue
	sweep int         // the next queue of the rotating check
}

// fetchLoop claims jobs and hands them to the executors until ctx is done.
// It claims at once when an executor would otherwise sit idle, and tops up
// the Prefetch buffer when at least half of it is free, so that a busy
// worker claims (and acks) in batches. When no queue is due it blocks in
// Store.WaitReady: an idle worker makes one blocking wait, however many
// queues it serves, and claims only where it was told there may be work.
func (r *worker) fetchLoop(ctx context.Context) {
	f := &fetcher{due: make([]time.Time, len(r.queues)), fails: make([]int, len(r.queues))}
	order := make([]int, 0, len(r.queues))
	waitOn := make([]string, 0, len(r.queues))
	refill := max(1, r.cfg.Prefetch/2)
	waitFails := 0
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
		now := time.Now()
		order = r.claimOrder(f, now, order[:0])
		if len(order) > 0 && r.claimRound(ctx, f, order, min(room, r.cfg.ClaimBatch)) > 0 {
			continue
		}
		if ctx.Err() != nil {
			return
		}
		// Nothing claimed: wait for a signal, a freed slot of a capped
		// queue, or the next due time.
		now = time.Now()
		wait := r.cfg.IdleWait
		capped := false
		waitOn = waitOn[:0]
		for qi, q := range r.queues {
			if r.capFull(qi) {
				capped = true
				continue
			}
			waitOn = append(waitOn, q)
			if d := f.due[qi].Sub(now); d < wait {
				wait = max(d, 0)
			}
		}
		if len(waitOn) == 0 { // every queue is at its cap in this worker
			select {
			case <-ctx.Done():
				return
			case <-r.freed:
			}
			continue
		}
		signalled, err := r.waitReady(ctx, waitOn, wait, capped)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			waitFails++
			d := min(5*time.Second, time.Duration(1<<min(waitFails, 9))*10*time.Millisecond)
			r.log.Error("hopper: waiting for jobs failed; retrying", slog.Any("error", err), slog.Duration("retry_in", d))
			sleepCtx(ctx, d)
			continue
		}
		waitFails = 0
		now = time.Now()
		for _, q := range signalled {
			if qi, ok := slices.BinarySearch(r.queues, q); ok && f.fails[qi] == 0 {
				f.due[qi] = now
			}
		}
		if len(signalled) == 0 && wait == r.cfg.IdleWait {
			f.sweepSome(now)
		}
	}
}

// sweepSome marks the next few queues due, in turn: a wait as long as the
// idle wait ended without a signal.
func (f *fetcher) sweepSome(now time.Time) {
	n := len(f.due)
	for range min(sweepPerIdleWait, n) {
		qi := f.sweep % n
		f.sweep++
		if f.due[qi].After(now) && f.fails[qi] == 0 {
			f.due[qi] = now
		}
	}
}

// capFull reports whether this worker holds as many jobs of queue qi as its
// QueueConcurrency allows.
func (r *worker) capFull(qi int) bool {
	c := r.qcap[qi]
	return c > 0 && int(r.qheld[qi].Load()) >= c
}

// waitReady waits for jobs to become claimable in queues and returns the
// queues the store signalled. When some queue was left out because it is
// at its cap in this worker, a slot freed by a finished attempt ends the
// wait too (returning no queue), so that the capped queue's backlog is
// claimed at once rather than after the wait's timeout.
func (r *worker) waitReady(ctx context.Context, queues []string, wait time.Duration, capped bool) ([]string, error) {
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
	got, err := r.st.WaitReady(wctx, queues, wait)
	if ctx.Err() == nil && wctx.Err() != nil {
		return nil, nil // a slot freed: claim again
	}
	return got, err
}

// claimRound claims from the queues of order, in that order, up to want
// jobs in all, and returns how many it claimed. Each queue's result says
// when it is due next; a queue whose claim fails backs off alone.
func (r *worker) claimRound(ctx context.Context, f *fetcher, order []int, want int) int {
	claimed := 0
	for _, qi := range order {
		n := want - claimed
		if c := r.qcap[qi]; c > 0 {
			n = min(n, c-int(r.qheld[qi].Load()))
		}
		if n <= 0 {
			continue
		}
		sent := time.Now()
		res, err := r.st.Claim(ctx, store.ClaimRequest{Queue: r.queues[qi], Max: n, Lease: r.cfg.Lease, WorkerID: r.cfg.ID})
		now := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return claimed
			}
			f.fails[qi]++
			d := min(5*time.Second, time.Duration(1<<min(f.fails[qi], 9))*10*time.Millisecond)
			f.due[qi] = now.Add(d)
			r.log.Error("hopper: claiming jobs failed; retrying", slog.String("queue", r.queues[qi]),
				slog.Any("error", err), slog.Duration("retry_in", d))
			continue
		}
		f.fails[qi] = 0
		for _, rec := range res.Jobs {
			r.dispatch(rec, qi, sent.Add(r.cfg.Lease))
		}
		claimed += len(res.Jobs)
		switch {
		case len(res.Jobs) == n:
			f.due[qi] = now // a full batch: more may be waiting
		case res.RetryIn > 0:
			f.due[qi] = now.Add(res.RetryIn)
		default:
			f.due[qi] = never // until the store signals it
		}
		if claimed >= want {
			break
		}
	}
	return claimed
}

// claimOrder appends to order the indexes of the queues due for a claim at
// now and not at their cap in this worker, in the order to try them:
// highest weight first with StrictPriority, otherwise a random order in
// which each queue comes first in proportion to its weight.
func (r *worker) claimOrder(f *fetcher, now time.Time, order []int) []int {
	for qi := range r.queues {
		if !f.due[qi].After(now) && !r.capFull(qi) {
			order = append(order, qi)
		}
	}
	if len(order) <= 1 {
		return order
	}
	if r.cfg.StrictPriority {
		slices.SortStableFunc(order, func(a, b int) int { return r.weights[b] - r.weights[a] })
		return order
	}
	total := 0
	for _, qi := range order {
		total += r.weights[qi]
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
	return order
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
