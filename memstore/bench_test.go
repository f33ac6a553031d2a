package memstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// BenchmarkCycle measures the claim→handle→ack cycle: enqueue a batch,
// claim it, ack it, with a no-op handler, one goroutine. b.N counts jobs.
func BenchmarkCycle(b *testing.B) {
	for _, size := range []int{1, 100} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) {
			benchCycle(b, size)
		})
	}
}

func benchCycle(b *testing.B, size int) {
	ctx := context.Background()
	s := New(nil)
	args := []byte(`{"id":"00000042","ts":"1700000000000000000","due":"1700000000000000000"}`)
	jobs := make([]*store.NewJob, size)
	for i := range jobs {
		jobs[i] = &store.NewJob{ID: fmt.Sprintf("job-%08d", i), Queue: "default", Kind: "bench", Args: args, JobSpec: store.JobSpec{MaxRetries: 25}}
	}
	reqs := make([]store.AttemptEnd, size)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for done := 0; done < b.N; done += size {
		if _, err := s.Enqueue(ctx, jobs); err != nil {
			b.Fatal(err)
		}
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "default", Max: size, Lease: time.Minute})
		if err != nil || len(res.Jobs) != size {
			b.Fatalf("claimed %d, err %v", len(res.Jobs), err)
		}
		for i, j := range res.Jobs {
			reqs[i] = store.AttemptEnd{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck}
		}
		errs, err := s.Finish(ctx, reqs)
		if err != nil || errs[0] != nil {
			b.Fatal(err, errs[0])
		}
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
}

// BenchmarkCycleParallel runs the cycle from GOMAXPROCS goroutines, each on
// its own queue, to show that queues do not contend.
func BenchmarkCycleParallel(b *testing.B) {
	ctx := context.Background()
	s := New(nil)
	var mu sync.Mutex
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		q := fmt.Sprintf("q%d", n)
		n++
		mu.Unlock()
		jobs := []*store.NewJob{{ID: "j", Queue: q, Kind: "bench"}}
		for pb.Next() {
			if _, err := s.Enqueue(ctx, jobs); err != nil {
				b.Error(err)
				return
			}
			res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1, Lease: time.Minute})
			if err != nil || len(res.Jobs) != 1 {
				b.Errorf("claimed %d, err %v", len(res.Jobs), err)
				return
			}
			j := res.Jobs[0]
			if errs, _ := s.Finish(ctx, []store.AttemptEnd{{Queue: q, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck}}); errs[0] != nil {
				b.Error(errs[0])
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
}
