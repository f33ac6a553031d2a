package engine

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestStartOrderWithinAPriority: a backlog of one priority on Redis, at
// the default ClaimBatch and Prefetch (two claims in flight on the
// backlog) and OrderedStarts, is handed to the worker's slots in enqueue order at
// Concurrency 1 and 16.
//
// Start order is the order of the hand-off: the worker dispatches its
// claimed jobs into one first-in-first-out queue, and each slot, as it
// frees, takes the next one from it. The test plays the slots itself: it
// takes the jobs from that queue as fast as they come, and records them.
// (With 16 slots, the handlers of jobs taken within the same instant run
// on 16 goroutines and are entered in the order the Go scheduler runs
// them: that order is no one's to promise.)
func TestStartOrderWithinAPriority(t *testing.T) {
	for _, conc := range []int{1, 16} {
		t.Run(fmt.Sprintf("Concurrency%d", conc), func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			st := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t)})
			const n = 4000
			for b := 0; b < n; b += 1000 {
				var jobs []*store.NewJob
				for i := b; i < b+1000; i++ {
					jobs = append(jobs, &store.NewJob{ID: fmt.Sprintf("j%05d", i), Queue: "q", Kind: "k"})
				}
				if _, err := st.Enqueue(t.Context(), jobs); err != nil {
					t.Fatal(err)
				}
			}
			cfg := testConfig(slog.New(slog.DiscardHandler))
			cfg.Concurrency = conc
			cfg.ClaimBatch = min(conc, 100) // WorkerConfig's defaults
			cfg.Prefetch = cfg.ClaimBatch
			cfg.OrderedStarts = true
			cfg.Lease = time.Minute
			got := handOff(t, newWorker(st, cfg, nil), n)
			inversions := 0
			for i := 1; i < len(got); i++ {
				if got[i] < got[i-1] {
					inversions++
				}
			}
			t.Logf("Concurrency %d, ClaimBatch %d, Prefetch %d: %d jobs handed to the slots, %d after a later job", conc, cfg.ClaimBatch, cfg.Prefetch, len(got), inversions)
			if inversions != 0 {
				t.Errorf("%d of %d jobs of one priority were handed to a slot after a job enqueued later, want 0", inversions, n)
			}
		})
	}
}

// handOff runs r's fetch loop until it dispatched n jobs, taking each
// from the slots' queue as soon as it is there, and returns their IDs in
// that order.
func handOff(t *testing.T, r *worker, n int) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.fetchLoop(ctx)
	}()
	var got []string
	timeout := time.After(time.Minute)
	for len(got) < n {
		select {
		case a := <-r.jobs:
			got = append(got, a.rec.ID)
			r.decided(a) // its slot is free again
		case <-timeout:
			t.Fatalf("%d of %d jobs handed out in a minute", len(got), n)
		}
	}
	cancel()
	<-done
	return got
}
