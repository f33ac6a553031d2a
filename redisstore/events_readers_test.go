package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// Two readers of one queue in one process (two dashboard tabs, a
// subscriber beside the dashboard) each see every event at once: a wake-up
// that came while one reader was between its read and its wait, and that
// the other reader's wait took, must not leave the first blocked for its
// whole block time.
func TestEventReadersOfOneQueueMissNoWakeup(t *testing.T) {
	s, _ := newStore(t, nil)
	const n = 200
	const block = time.Minute // a missed wake-up shows as a read that waits this long
	ctx, cancel := context.WithTimeout(t.Context(), failAfter)
	defer cancel()
	// The queue is read before the first enqueue: the store writes a
	// queue's events while someone reads them (events_interest.go).
	if _, _, _, err := s.ReadEvents(ctx, map[string]string{"ev": store.FromNow}, 1, 0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	seen := make([]int, 2)
	errs := make([]error, 2)
	for r := range 2 {
		wg.Go(func() {
			from := map[string]string{"ev": store.FromStart}
			for seen[r] < n {
				evs, next, _, err := s.ReadEvents(ctx, from, 100, block)
				if err != nil {
					errs[r] = fmt.Errorf("reader %d after %d events: %w", r, seen[r], err)
					return
				}
				seen[r] += len(evs)
				from = next
			}
		})
	}
	for i := range n {
		mustEnqueue(t, s, job("ev", fmt.Sprintf("j%d", i)))
	}
	wg.Wait()
	for r := range 2 {
		if errs[r] != nil {
			t.Fatalf("%v (a wake-up was missed: the read waited for its block time)", errs[r])
		}
		if seen[r] != n {
			t.Fatalf("reader %d saw %d enqueued events, want %d", r, seen[r], n)
		}
	}
}
