package hopper_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
)

// TestProcPriorityOrder: 10,000 jobs of mixed priorities in one queue,
// enqueued in a random order of priorities before a worker process with
// one slot and no prefetch starts, are started in priority order: no job starts while one
// of a higher priority is ready (an inversion), and jobs of one priority
// start in the order they were enqueued.
func TestProcPriorityOrder(t *testing.T) {
	p := newTimedProcSetup(t)
	ctx := t.Context()
	const n = 10000
	client := hopper.NewClient(p.store, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	prio := make(map[string]int, n)
	var batch []*hopper.PreparedJob
	for i := range n {
		id := fmt.Sprintf("j%05d", i)
		pr := hopper.MinPriority + rng.IntN(hopper.MaxPriority-hopper.MinPriority+1)
		prio[id] = pr
		j, err := hopper.Prepare(client, Echo{}, &hopper.EnqueueOpts{Queue: "prio", ID: id, Priority: pr})
		if err != nil {
			t.Fatal(err)
		}
		batch = append(batch, j)
		if len(batch) == 1000 || i == n-1 {
			if _, err := hopper.EnqueuePrepared(ctx, client, batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	// One slot, and no claimed job held ahead of it: a worker holds
	// Prefetch jobs it claimed earlier, which run before a higher priority
	// that came since (see EnqueueOpts.Priority).
	p.start(1, childSpec{Role: roleLimited, Queue: "prio", Concurrency: 1, Prefetch: -1})
	p.EventuallyTrue(120*time.Second, "every job started", func() bool { return p.Count(proctest.Is("start")) >= n })

	// waiting[pr] counts the jobs of priority pr not started yet; last[pr]
	// is the latest started job of pr.
	var waiting [hopper.MaxPriority - hopper.MinPriority + 1]int
	for _, pr := range prio {
		waiting[pr-hopper.MinPriority]++
	}
	last := map[int]string{}
	inversions, unordered := 0, 0
	starts := p.Filter(proctest.Is("start"))
	for _, e := range starts {
		pr, ok := prio[e.Job]
		if !ok {
			t.Fatalf("started job %q was never enqueued", e.Job)
		}
		for higher := pr + 1; higher <= hopper.MaxPriority; higher++ {
			if waiting[higher-hopper.MinPriority] > 0 {
				inversions++
				break
			}
		}
		if l, ok := last[pr]; ok && e.Job < l {
			unordered++
		}
		last[pr] = e.Job
		waiting[pr-hopper.MinPriority]--
	}
	t.Logf("%d starts of %d jobs over %d priorities: %d inversions, %d out of FIFO order within a priority",
		len(starts), n, len(waiting), inversions, unordered)
	if len(starts) != n {
		t.Errorf("%d starts for %d jobs, want one each", len(starts), n)
	}
	if inversions != 0 {
		t.Errorf("%d jobs started while a job of higher priority was ready, want none with one worker slot", inversions)
	}
	if unordered != 0 {
		t.Errorf("%d jobs started before an earlier job of their priority, want first in first out", unordered)
	}
}
