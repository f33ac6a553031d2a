package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// A job that ends wakes the fetch loop whenever its slot lets a claim go
// (publishWake): with jobs ending one at a time and nothing else to wake
// the loop (no ready signal comes, and an idle queue would be polled only
// after an hour), every job still runs, whatever the room, the batch, the
// queues and their caps in this worker.
func TestEndedJobsWakeTheClaims(t *testing.T) {
	cases := []struct {
		name                  string
		conc, batch, prefetch int
		queues                []Queue
	}{
		{"one slot", 1, 1, 0, []Queue{{Name: "a", Weight: 1}}},
		{"no prefetch", 2, 2, 0, []Queue{{Name: "a", Weight: 1}}},
		{"prefetch", 4, 4, 12, []Queue{{Name: "a", Weight: 1}}},
		{"batch over room", 2, 8, 0, []Queue{{Name: "a", Weight: 1}}},
		{"two queues", 3, 2, 2, []Queue{{Name: "a", Weight: 1}, {Name: "b", Weight: 2}}},
		{"capped queue", 4, 4, 4, []Queue{{Name: "a", Weight: 1, Cap: 1}, {Name: "b", Weight: 1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memstore.New(nil)
			const perQueue = 30
			var jobs []*store.NewJob
			for _, q := range tc.queues {
				for i := range perQueue {
					jobs = append(jobs, &store.NewJob{ID: fmt.Sprintf("%s%02d", q.Name, i), Queue: q.Name, Kind: "k"})
				}
			}
			if _, err := mem.Enqueue(t.Context(), jobs); err != nil {
				t.Fatal(err)
			}
			cfg := testConfig(slog.New(slog.DiscardHandler))
			cfg.Queues = tc.queues
			cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = tc.conc, tc.batch, tc.prefetch
			cfg.IdleWait = time.Hour // a missed wake is not rescued by polling
			// Each handler waits for its turn: jobs end one at a time.
			turn := make(chan struct{})
			var started, ended atomic.Int32
			startRun(t, mem, cfg, func(ctx context.Context, rec *store.JobRecord) error {
				started.Add(1)
				select {
				case <-turn:
				case <-ctx.Done():
				}
				ended.Add(1)
				return nil
			})
			total := int32(perQueue * len(tc.queues))
			for n := int32(1); n <= total; n++ {
				testutil.EventuallyTrue(t, testutil.Wait, fmt.Sprintf("job %d of %d to start", n, total), func() bool {
					return started.Load() >= n
				})
				turn <- struct{}{}
			}
			testutil.EventuallyTrue(t, testutil.Wait, "the last job to end", func() bool { return ended.Load() == total })
		})
	}
}
