// Command backlog measures whether a job's cost grows with the jobs
// waiting beside it: the enqueue, claim and ack of a fixed number of jobs
// from a queue whose ready list holds a small or a large backlog, and from
// a queue whose pending set holds a million delayed jobs. Run it from the
// repository root against a Redis server of its own (it measures the
// server's whole CPU and flushes it between runs):
//
//	redis-server --port 6398 --save '' --appendonly no --daemonize yes
//	go run -C bench ./backlog -redis 127.0.0.1:6398
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"sort"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/bench/internal/drainrun"
	"github.com/hopperq/hopper/bench/internal/servercpu"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

// Job is the benchmark's job, with the shared harness's 72-byte payload.
type Job struct {
	P []byte `msgpack:"p"`
}

// Kind names the handler.
func (Job) Kind() string { return "bench.backlog" }

var payload = make([]byte, 72)

func main() {
	addr := flag.String("redis", "127.0.0.1:6398", "Redis server (measured as a whole and flushed: use one of its own)")
	n := flag.Int("n", 50000, "jobs enqueued and drained per run")
	conc := flag.Int("concurrency", 32, "worker slots")
	big := flag.Int("backlog", 2000000, "ready jobs waiting behind the measured ones in the large case")
	small := flag.Int("small", 10000, "ready jobs waiting behind the measured ones in the small case")
	delayed := flag.Int("delayed", 1000000, "delayed jobs in the pending set in the delayed case")
	reps := flag.Int("reps", 3, "runs per case (the median is reported)")
	flag.BoolVar(&showStats, "stats", false, "print the commands Redis ran during each drain, costliest first")
	flag.Parse()
	rdb := redis.NewClient(&redis.Options{Addr: *addr, PoolSize: 4 * *conc})
	defer rdb.Close()
	fmt.Printf("enqueue (one job per call, 8 producers) then drain of %d jobs, %d worker slots, median of %d\n\n", *n, *conc, *reps)
	fmt.Println("| waiting beside the measured jobs | enqueue jobs/s | enqueue Redis µs/job | drain jobs/s | drain Redis µs/job |")
	fmt.Println("|---|---|---|---|---|")
	cases := []struct {
		name         string
		ready, later int
	}{
		{fmt.Sprintf("%d ready", *small), *small, 0},
		{fmt.Sprintf("%d ready", *big), *big, 0},
		{fmt.Sprintf("%d ready and %d delayed (pending)", *small, *delayed), *small, *delayed},
	}
	for _, c := range cases {
		var runs []result
		for range *reps {
			r, err := measure(context.Background(), rdb, *n, *conc, c.ready, c.later)
			if err != nil {
				fmt.Fprintln(os.Stderr, "backlog:", err)
				os.Exit(1)
			}
			runs = append(runs, r)
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i].drainRate < runs[j].drainRate })
		m := runs[len(runs)/2]
		fmt.Printf("| %s | %.0f | %.1f | %.0f | %.1f |\n", c.name, m.enqRate, m.enqCPU, m.drainRate, m.drainCPU)
	}
}

// showStats prints each drain's INFO commandstats.
var showStats bool

// printStats prints the costliest commands since the last CONFIG
// RESETSTAT: calls and µs per drained job.
func printStats(ctx context.Context, rdb *redis.Client, n int) {
	if stats, err := servercpu.CommandStats(ctx, rdb); err == nil {
		fmt.Printf("  per job:%s\n", servercpu.PerJob(stats, n, 8))
	}
}

// result is one run's measures.
type result struct {
	enqRate, enqCPU, drainRate, drainCPU float64
}

// fill puts ready jobs into the queue, and delayed ones due in a day, a
// thousand a call.
func fill(ctx context.Context, client *hopper.Client, ready, later int) error {
	for _, c := range []struct {
		n     int
		delay time.Duration
	}{{ready, 0}, {later, 24 * time.Hour}} {
		args := make([]Job, 0, 1000)
		for i := range c.n {
			args = append(args, Job{P: payload})
			if len(args) == 1000 || i == c.n-1 {
				if _, err := hopper.EnqueueMany(ctx, client, args, &hopper.EnqueueOpts{Queue: "q", Delay: c.delay}); err != nil {
					return err
				}
				args = args[:0]
			}
		}
	}
	return nil
}

// measure fills the queue, enqueues n jobs one per call from 8 producers,
// then drains n jobs (the oldest first: with a ready backlog these are the
// backlog's head, which costs a claim the same) and returns the rates and
// the server's CPU per job of each phase.
func measure(ctx context.Context, rdb *redis.Client, n, conc, ready, later int) (result, error) {
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		return result{}, err
	}
	st := redisstore.New(rdb, &redisstore.Config{Prefix: "blbench"})
	client := hopper.NewClient(st, nil)
	if err := fill(ctx, client, ready, later); err != nil {
		return result{}, err
	}
	var res result
	before, err := servercpu.Read(ctx, rdb)
	if err != nil {
		return res, err
	}
	start := time.Now()
	var next atomic.Int64
	errc := make(chan error, 8)
	for range 8 {
		go func() {
			for next.Add(1) <= int64(n) {
				if _, err := hopper.Enqueue(ctx, client, Job{P: payload}, &hopper.EnqueueOpts{Queue: "q"}); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	for range 8 {
		if err := <-errc; err != nil {
			return res, err
		}
	}
	after, err := servercpu.Read(ctx, rdb)
	if err != nil {
		return res, err
	}
	res.enqRate = float64(n) / time.Since(start).Seconds()
	res.enqCPU = float64((after - before).Microseconds()) / float64(n)

	// The first mark reads the CPU before the worker starts, the second
	// after the n-th start.
	marks := 0
	took, err := drainrun.Run[Job](ctx, st, "q", n, conc, 5*time.Minute, func() error {
		marks++
		if marks == 1 {
			if showStats {
				rdb.ConfigResetStat(ctx)
			}
			before, err = servercpu.Read(ctx, rdb)
			return err
		}
		after, err = servercpu.Read(ctx, rdb)
		if showStats {
			printStats(ctx, rdb, n)
		}
		return err
	})
	if err != nil {
		return res, err
	}
	res.drainRate = float64(n) / took.Seconds()
	res.drainCPU = float64((after - before).Microseconds()) / float64(n)
	return res, nil
}
