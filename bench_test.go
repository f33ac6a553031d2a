package hopper_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/internal/testutil/teststore"
)

// The benchmarks run on every store kind (memstore and a throwaway Redis)
// and report jobs/s; -benchmem gives allocations per op (per job, except
// for BenchmarkEnqueueMany, whose op is a batch of 100).
//
//	go test -run '^$' -bench . -benchmem

// BenchPayload is the job of shared/bench: a 72-byte payload.
type BenchPayload struct {
	P []byte `msgpack:"p"`
}

func (BenchPayload) Kind() string { return "bench" }

var payload72 = []byte(`{"id":"00000042","ts":"1763779200000000000","due":"1763779200000000000"}`)

func reportJobs(b *testing.B, jobs int) {
	b.ReportMetric(float64(jobs)/b.Elapsed().Seconds(), "jobs/s")
}

// reportCPU reports the CPU time this process used since start per job
// (client-µs/job): the client's cost, with the harness's, and without the
// Redis server's, which runs in a process of its own. Unlike jobs/s it
// holds on a machine shared with other work.
func reportCPU(b *testing.B, start time.Duration, jobs int) {
	b.ReportMetric(float64((testutil.ProcessCPU()-start).Nanoseconds())/1e3/float64(jobs), "client-µs/job")
}

// BenchmarkEnqueue enqueues one job per call from 8 goroutines (workload
// W1 of the bench) and from one.
func BenchmarkEnqueue(b *testing.B) {
	for _, k := range teststore.StoreKinds() {
		for _, producers := range []int{8, 1} {
			b.Run(fmt.Sprintf("%s/producers=%d", k.Name, producers), func(b *testing.B) {
				c := hopper.NewClient(k.Open(b)(), nil)
				ctx := context.Background()
				opts := &hopper.EnqueueOpts{Queue: "bench"}
				var left atomic.Int64
				left.Store(int64(b.N))
				var wg sync.WaitGroup
				b.ReportAllocs()
				b.ResetTimer()
				cpu := testutil.ProcessCPU()
				for range producers {
					wg.Go(func() {
						for left.Add(-1) >= 0 {
							if _, err := hopper.Enqueue(ctx, c, BenchPayload{P: payload72}, opts); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				reportJobs(b, b.N)
				reportCPU(b, cpu, b.N)
			})
		}
	}
}

// BenchmarkEnqueueMany enqueues batches of 100 jobs; one op is one batch.
func BenchmarkEnqueueMany(b *testing.B) {
	for _, k := range teststore.StoreKinds() {
		b.Run(k.Name, func(b *testing.B) {
			c := hopper.NewClient(k.Open(b)(), nil)
			ctx := context.Background()
			batch := make([]BenchPayload, 100)
			for i := range batch {
				batch[i] = BenchPayload{P: payload72}
			}
			opts := &hopper.EnqueueOpts{Queue: "bench"}
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testutil.ProcessCPU()
			for b.Loop() {
				if _, err := hopper.EnqueueMany(ctx, c, batch, opts); err != nil {
					b.Fatal(err)
				}
			}
			reportJobs(b, 100*b.N)
			reportCPU(b, cpu, 100*b.N)
		})
	}
}

// BenchmarkWorkerCycle measures the whole consumer path through a Worker:
// claim, decode, a no-op handler, ack. b.N jobs are enqueued first (not
// timed), then the worker drains them at concurrency 32.
func BenchmarkWorkerCycle(b *testing.B) {
	for _, k := range teststore.StoreKinds() {
		b.Run(k.Name, func(b *testing.B) {
			s := k.Open(b)()
			ctx := context.Background()
			c := hopper.NewClient(s, nil)
			batch := make([]BenchPayload, 1000)
			for i := range batch {
				batch[i] = BenchPayload{P: payload72}
			}
			for left := b.N; left > 0; left -= len(batch) {
				if _, err := hopper.EnqueueMany(ctx, c, batch[:min(left, len(batch))], &hopper.EnqueueOpts{Queue: "cycle"}); err != nil {
					b.Fatal(err)
				}
			}
			cfg := &hopper.WorkerConfig{Queues: map[string]int{"cycle": 1}, Concurrency: 32, Logger: testutil.Logger()}
			w := hopper.NewWorker(s, cfg)
			var done atomic.Int64
			all := make(chan struct{})
			n := int64(b.N)
			hopper.Handle(w, func(ctx context.Context, j *hopper.Job[BenchPayload]) error {
				if done.Add(1) == n {
					close(all)
				}
				return nil
			})
			runCtx, cancel := context.WithCancel(ctx)
			stopped := make(chan error, 1)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := testutil.ProcessCPU()
			go func() { stopped <- w.Run(runCtx) }()
			<-all
			b.StopTimer()
			reportCPU(b, cpu, b.N)
			cancel()
			if err := <-stopped; err != nil {
				b.Fatal(err)
			}
			reportJobs(b, b.N)
		})
	}
}
