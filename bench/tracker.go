package main

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// tracker counts the deliveries of one run. A job counts as processed when
// its handler is called: the adapters call deliver first thing in the
// handler. It is safe for concurrent use and takes no lock.
type tracker struct {
	n          int            // jobs expected, ids 0..n-1
	counts     []atomic.Int32 // deliveries per id
	lateness   []int64        // per id: handler start − due at the first delivery, ns
	deliveries atomic.Int64   // every delivery of a known id
	distinct   atomic.Int64   // ids delivered at least once
	foreign    atomic.Int64   // payloads the benchmark did not produce
	first      atomic.Int64   // unix ns of the first delivery, 0 before
	last       atomic.Int64   // unix ns of the latest first-time delivery
	done       chan struct{}  // closed when every id has been delivered
}

// newTracker returns a tracker expecting jobs 0..n-1.
func newTracker(n int) *tracker {
	return &tracker{
		n:        n,
		counts:   make([]atomic.Int32, n),
		lateness: make([]int64, n),
		done:     make(chan struct{}),
	}
}

// deliver records one handler call with payload p. It reads the clock
// before anything else, so the time is the handler's start.
func (t *tracker) deliver(p []byte) {
	now := time.Now().UnixNano()
	id, _, due, ok := decodePayload(p)
	if !ok || int(id) >= t.n {
		t.foreign.Add(1)
		return
	}
	t.deliveries.Add(1)
	if t.counts[id].Add(1) != 1 {
		return
	}
	t.lateness[id] = now - due
	storeExtreme(&t.first, now, func(cur int64) bool { return cur == 0 || now < cur })
	storeExtreme(&t.last, now, func(cur int64) bool { return now > cur })
	if t.distinct.Add(1) == int64(t.n) {
		close(t.done)
	}
}

// wait blocks until every job has been delivered (nil), the deadline
// passes (an error saying how many were delivered) or ctx is done (its
// error).
func (t *tracker) wait(ctx context.Context, deadline time.Time) error {
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case <-t.done:
		return nil
	case <-timer.C:
		return fmt.Errorf("timeout: %d of %d jobs delivered by the deadline", t.distinct.Load(), t.n)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// duplicates is deliveries beyond the first of each id.
func (t *tracker) duplicates() int64 {
	return t.deliveries.Load() - t.distinct.Load()
}

// latenesses returns handler start − due of every delivered job's first
// delivery. Call it only after wait returned nil (every slot written; the
// close of done orders the writes before this read).
func (t *tracker) latenesses() []time.Duration {
	out := make([]time.Duration, t.n)
	for i, ns := range t.lateness {
		out[i] = time.Duration(ns)
	}
	return out
}

// storeExtreme stores v in a for as long as better says v beats the value
// there, retrying when another goroutine changed it meanwhile.
func storeExtreme(a *atomic.Int64, v int64, better func(cur int64) bool) {
	for {
		cur := a.Load()
		if !better(cur) || a.CompareAndSwap(cur, v) {
			return
		}
	}
}
