package redisstore_test

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// benchJob returns a job shaped like the ones shared/bench enqueues: kind
// "bench", a 20-character ID and args = msgpack of struct{P []byte} with a
// 72-byte payload.
func benchJob(queue string, i int64) *store.NewJob {
	type benchArgs struct {
		P []byte `msgpack:"p"`
	}
	payload := fmt.Appendf(nil, `{"id":"%08d","ts":"%019d","due":"%019d"}`, i%1e8, i, i)
	payload = payload[:72]
	args, err := msgpack.Marshal(benchArgs{P: payload})
	if err != nil {
		panic(err)
	}
	return &store.NewJob{ID: fmt.Sprintf("b%019d", i), Queue: queue, Kind: "bench", Args: args}
}

func benchStore(b *testing.B) (*redisstore.Store, *redis.Client) {
	srv := redistest.Start(b)
	rdb := srv.Client(b, func(o *redis.Options) { o.PoolSize = 64 })
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(b)})
	if err := s.Check(context.Background()); err != nil {
		b.Fatal(err)
	}
	return s, rdb
}

// BenchmarkEnqueue enqueues one job per call from 8 goroutines, like
// workload W1 of shared/bench, and from one; client-µs/job is this
// process's CPU time per job.
func BenchmarkEnqueue(b *testing.B) {
	for _, producers := range []int{8, 1} {
		b.Run(fmt.Sprintf("producers=%d", producers), func(b *testing.B) {
			s, rdb := benchStore(b)
			jobs := make([]*store.NewJob, b.N)
			for i := range jobs {
				jobs[i] = benchJob("bench", int64(i))
			}
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ReportAllocs()
			cpu := redisCPU(b, rdb)
			fcalls := cmdCalls(b, rdb, "fcall")
			b.ResetTimer()
			client := testutil.ProcessCPU()
			for range producers {
				wg.Go(func() {
					ctx := context.Background()
					for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
						if _, err := s.Enqueue(ctx, []*store.NewJob{jobs[i]}); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			reportCost(b, rdb, cpu, client, b.N)
			b.ReportMetric(float64(b.N)/float64(cmdCalls(b, rdb, "fcall")-fcalls), "jobs/fcall")
		})
	}
}

// reportCost reports jobs/s, and the Redis server's and this process's
// CPU time per job since redisStart and clientStart.
func reportCost(b *testing.B, rdb *redis.Client, redisStart float64, clientStart time.Duration, jobs int) {
	b.ReportMetric(float64(jobs)/b.Elapsed().Seconds(), "jobs/s")
	b.ReportMetric((redisCPU(b, rdb)-redisStart)*1e6/float64(jobs), "redis-µs/job")
	b.ReportMetric(float64((testutil.ProcessCPU()-clientStart).Nanoseconds())/1e3/float64(jobs), "client-µs/job")
}

// BenchmarkEnqueueMany enqueues 100 jobs per call from 8 goroutines, like
// workload W1b.
func BenchmarkEnqueueMany(b *testing.B) {
	const per = 100
	s, rdb := benchStore(b)
	var seq atomic.Int64
	b.ReportAllocs()
	b.SetParallelism(max(1, 8/runtimeProcs()))
	cpu := redisCPU(b, rdb)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		jobs := make([]*store.NewJob, per)
		for pb.Next() {
			for i := range jobs {
				jobs[i] = benchJob("bench", seq.Add(1))
			}
			if _, err := s.Enqueue(ctx, jobs); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N*per)/time.Since(start).Seconds(), "jobs/s")
	b.ReportMetric((redisCPU(b, rdb)-cpu)*1e6/float64(b.N*per), "redis-µs/job")
}

// BenchmarkClaimFinish drains pre-enqueued jobs with 4 claimers, each
// claiming up to 32 jobs and acking them in one Finish call: the store's
// part of workload W2. One op is one job. It runs with the queue's events
// on (the default) and off, and with the jobs spread over 1,000 groups.
func BenchmarkClaimFinish(b *testing.B) {
	for _, events := range []bool{true, false} {
		b.Run(fmt.Sprintf("events=%v", events), func(b *testing.B) { benchClaimFinish(b, events, 0) })
	}
	// Jobs spread over 1,000 groups (no caps): the claims rotate over them.
	b.Run("groups=1000", func(b *testing.B) { benchClaimFinish(b, true, 1000) })
}

func benchClaimFinish(b *testing.B, events bool, groups int) {
	s, rdb := benchStore(b)
	ctx := context.Background()
	if !events {
		if err := s.SetQueueConfig(ctx, "bench", store.QueueConfig{EventsMaxLen: -1}); err != nil {
			b.Fatal(err)
		}
	}
	var jobs []*store.NewJob
	for i := range b.N {
		j := benchJob("bench", int64(i))
		if groups > 0 {
			j.Group = "g" + strconv.Itoa(i%groups)
		}
		jobs = append(jobs, j)
		if len(jobs) == 1000 || i == b.N-1 {
			if _, err := s.Enqueue(ctx, jobs); err != nil {
				b.Fatal(err)
			}
			jobs = jobs[:0]
		}
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := redisCPU(b, rdb)
	client := testutil.ProcessCPU()
	done := make(chan error, 4)
	for range 4 {
		go func() {
			reqs := make([]store.AttemptEnd, 0, 32)
			for left.Load() > 0 {
				res, err := s.Claim(ctx, store.ClaimOpts{Queue: "bench", Max: 32, Lease: time.Minute})
				if err != nil {
					done <- err
					return
				}
				reqs = reqs[:0]
				for _, j := range res.Jobs {
					reqs = append(reqs, store.AttemptEnd{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck})
				}
				if len(reqs) == 0 {
					continue
				}
				if _, err := s.Finish(ctx, reqs); err != nil {
					done <- err
					return
				}
				left.Add(-int64(len(reqs)))
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCost(b, rdb, cpu, client, b.N)
}

// TestBytesPerPendingJob measures the Redis memory one ready bench job
// takes (INFO memory used_memory delta over N jobs) against the target of
// 300 bytes.
func TestBytesPerPendingJob(t *testing.T) {
	const n = 20000
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	ctx := t.Context()
	s := redisstore.New(rdb, nil)
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	// Create the queue's keys first, so the delta is per job only.
	if _, err := s.Enqueue(ctx, []*store.NewJob{benchJob("mem", -1)}); err != nil {
		t.Fatal(err)
	}
	before := usedMemory(t, rdb)
	var jobs []*store.NewJob
	for i := range n {
		jobs = append(jobs, benchJob("mem", int64(i)))
		if len(jobs) == 500 {
			if _, err := s.Enqueue(ctx, jobs); err != nil {
				t.Fatal(err)
			}
			jobs = jobs[:0]
		}
	}
	per := float64(usedMemory(t, rdb)-before) / n
	t.Logf("Redis memory per pending bench job: %.1f bytes", per)
	if per > 300 {
		t.Errorf("Redis memory per pending bench job = %.1f bytes, want at most 300", per)
	}
}

func usedMemory(t testing.TB, rdb *redis.Client) int64 {
	return int64(infoField(t, rdb, "memory", "used_memory"))
}

// redisCPU returns the CPU seconds the server has used (user + system).
func redisCPU(t testing.TB, rdb *redis.Client) float64 {
	return infoField(t, rdb, "cpu", "used_cpu_user") + infoField(t, rdb, "cpu", "used_cpu_sys")
}

// infoField reads one numeric field of an INFO section.
func infoField(t testing.TB, rdb *redis.Client, section, field string) float64 {
	t.Helper()
	info, err := rdb.Info(context.Background(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}

func runtimeProcs() int { return runtime.GOMAXPROCS(0) }
