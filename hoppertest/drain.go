package hoppertest

import (
	"context"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// Drain runs, in the calling goroutine, every job of s that w would pick up
// now, and returns how many attempts ran. It alternates what a Scheduler
// and a Worker do: Maintain on every queue of s (promoting the delayed and
// retried jobs that are due by the store's clock, reclaiming expired
// leases), then Worker.Drain, until neither finds anything more to do. Jobs
// due later stay pending; move the store's Clock and drain again. It fails
// t on a store error.
func Drain(ctx context.Context, t T, w *hopper.Worker, s hopper.Store) int {
	t.Helper()
	total := 0
	for {
		promoted := maintainAll(ctx, t, s)
		n, err := w.Drain(ctx)
		if err != nil {
			t.Fatalf("hoppertest.Drain: %v", err)
		}
		total += n
		if n == 0 && promoted == 0 {
			return total
		}
	}
}

// maintainAll runs Maintain on every queue of s until nothing more is due,
// and returns how many jobs it promoted or reclaimed.
func maintainAll(ctx context.Context, t T, s hopper.Store) int {
	t.Helper()
	queues, err := s.ListQueues(ctx)
	if err != nil {
		t.Fatalf("hoppertest: listing queues: %v", err)
	}
	moved := 0
	for _, q := range queues {
		for {
			res, err := s.Maintain(ctx, q, store.MaintainOpts{})
			if err != nil {
				t.Fatalf("hoppertest: maintaining queue %q: %v", q, err)
			}
			moved += res.Promoted + res.Reclaimed
			if !res.More {
				break
			}
		}
	}
	return moved
}
