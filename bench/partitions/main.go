// Command partitions measures a partitioned queue (redisstore's
// Config.Partitions) on a Redis Cluster: a backlog drained from one queue
// kept in one slot, then from the same queue split over partitions, with
// the Redis CPU each master spent per job. Start a cluster of its own
// (every master is measured as a whole), for example three masters on
// ports 7101-7103:
//
//	for p in 7101 7102 7103; do
//	  redis-server --port $p --cluster-enabled yes --cluster-config-file /tmp/nodes-$p.conf \
//	    --save '' --appendonly no --daemonize yes
//	done
//	redis-cli --cluster create 127.0.0.1:7101 127.0.0.1:7102 127.0.0.1:7103 --cluster-yes
//
// and run it from the repository root with
//
//	go run -C bench ./partitions -cluster 127.0.0.1:7101
//
// With -trickle N it then measures an idle worker instead: N jobs
// enqueued one at a time, each after the last one ran, so that every job
// finds the worker idle and is claimed on its wake-up. Both tables count
// the claim script calls per job (a go-redis hook on the client: a claim
// is one call, never pipelined).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/bench/internal/drainrun"
	"github.com/hopperq/hopper/bench/internal/servercpu"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

// Job is the benchmark's job.
type Job struct{ N int }

// Kind names the handler.
func (Job) Kind() string { return "bench.partition" }

func main() {
	addr := flag.String("cluster", "127.0.0.1:7101", "a node of the Redis Cluster (measured as a whole: use one of its own)")
	n := flag.Int("n", 60000, "jobs per drain")
	conc := flag.Int("concurrency", 32, "worker slots")
	parts := flag.String("partitions", "1,3,6", "partition counts to drain with (1: one slot)")
	reps := flag.Int("reps", 3, "drains per partition count (the median is reported)")
	trickle := flag.Int("trickle", 0, "if > 0, measure this many jobs enqueued one at a time into an idle worker instead of a drain")
	flag.Parse()
	if err := run(*addr, *n, *conc, *parts, *reps, *trickle); err != nil {
		fmt.Fprintln(os.Stderr, "partitions:", err)
		os.Exit(1)
	}
}

// result is one drain's measures.
type result struct {
	rate    float64   // jobs/s
	perJob  float64   // Redis CPU µs per job, every master together
	masters []float64 // Redis CPU µs per job of each master, by address
	claims  float64   // claim script calls per job
}

// claimCounter counts the claim script calls a client sends.
type claimCounter struct{ n atomic.Int64 }

func (c *claimCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *claimCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if a := cmd.Args(); len(a) > 1 && cmd.Name() == "fcall" && strings.HasSuffix(fmt.Sprint(a[1]), "_claim") {
			c.n.Add(1)
		}
		return next(ctx, cmd)
	}
}
func (c *claimCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

var claims claimCounter

func run(addr string, n, conc int, list string, reps, trickle int) error {
	ctx := context.Background()
	rdb := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{addr}, PoolSize: 4 * conc})
	defer rdb.Close()
	rdb.AddHook(&claims)
	measure := drain
	if trickle > 0 {
		n, measure = trickle, trickleRun
		fmt.Printf("%d jobs enqueued one at a time into an idle worker, %d worker slots, median of %d\n\n", n, conc, reps)
	} else {
		fmt.Printf("drain of %d jobs (enqueued 1,000 a call), %d worker slots, median of %d\n\n", n, conc, reps)
	}
	fmt.Println("| partitions | jobs/s | claim calls per job | Redis CPU µs per job, all masters | per master (µs per job) | spread (max/min − 1) |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, f := range strings.Split(list, ",") {
		p, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return err
		}
		var runs []result
		for r := range reps {
			res, err := measure(ctx, rdb, n, conc, p, r)
			if err != nil {
				return err
			}
			runs = append(runs, res)
		}
		sort.Slice(runs, func(i, j int) bool { return runs[i].rate < runs[j].rate })
		m := runs[len(runs)/2]
		per := make([]string, len(m.masters))
		for i, c := range m.masters {
			per[i] = fmt.Sprintf("%.1f", c)
		}
		spread := "–"
		if lo := slices.Min(m.masters); lo > 0 {
			spread = fmt.Sprintf("%.0f%%", (slices.Max(m.masters)/lo-1)*100)
		}
		fmt.Printf("| %d | %.0f | %.2f | %.1f | %s | %s |\n", p, m.rate, m.claims, m.perJob, strings.Join(per, " / "), spread)
	}
	return nil
}

// masterCPU reads the CPU time of every master, by address.
func masterCPU(ctx context.Context, rdb *redis.ClusterClient) (map[string]time.Duration, error) {
	var mu sync.Mutex
	out := map[string]time.Duration{}
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		d, err := servercpu.Read(ctx, c)
		mu.Lock()
		defer mu.Unlock()
		out[c.Options().Addr] = d
		return err
	})
	return out, err
}

// drain enqueues n jobs into a queue of p partitions (one slot when p is
// 1), then starts a worker and measures until the last job has run.
func drain(ctx context.Context, rdb *redis.ClusterClient, n, conc, p, rep int) (result, error) {
	if err := rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		return c.FlushAll(ctx).Err()
	}); err != nil {
		return result{}, err
	}
	opts := &redisstore.Config{Prefix: fmt.Sprintf("ptbench%d", rep)}
	if p > 1 {
		opts.Partitions = map[string]int{"q": p}
	}
	st := redisstore.New(rdb, opts)
	client := hopper.NewClient(st, nil)
	args := make([]Job, 0, 1000)
	for i := range n {
		args = append(args, Job{N: i})
		if len(args) == 1000 || i == n-1 {
			if _, err := hopper.EnqueueMany(ctx, client, args, &hopper.EnqueueOpts{Queue: "q"}); err != nil {
				return result{}, err
			}
			args = args[:0]
		}
	}
	var before, after map[string]time.Duration
	var claims0 int64
	took, err := drainrun.Run[Job](ctx, st, "q", n, conc, 5*time.Minute, func() error {
		var err error
		if before == nil {
			claims0 = claims.n.Load()
			before, err = masterCPU(ctx, rdb)
			return err
		}
		after, err = masterCPU(ctx, rdb)
		return err
	})
	if err != nil {
		return result{}, fmt.Errorf("drain with %d partitions: %w", p, err)
	}
	return perJob(n, took, claims.n.Load()-claims0, before, after), nil
}

// perJob turns what a run of n jobs took into its measures.
func perJob(n int, took time.Duration, calls int64, before, after map[string]time.Duration) result {
	res := result{rate: float64(n) / took.Seconds(), claims: float64(calls) / float64(n)}
	addrs := make([]string, 0, len(after))
	for a := range after {
		addrs = append(addrs, a)
	}
	sort.Strings(addrs)
	for _, a := range addrs {
		us := float64((after[a] - before[a]).Microseconds()) / float64(n)
		res.masters = append(res.masters, us)
		res.perJob += us
	}
	return res
}

// trickleRun starts a worker on a queue of p partitions (one slot when p
// is 1), lets it start on one job, then enqueues n jobs one at a time,
// each when the last one ran, and measures from the first to the last.
func trickleRun(ctx context.Context, rdb *redis.ClusterClient, n, conc, p, rep int) (result, error) {
	if err := rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		return c.FlushAll(ctx).Err()
	}); err != nil {
		return result{}, err
	}
	opts := &redisstore.Config{Prefix: fmt.Sprintf("ptbench%d", rep)}
	if p > 1 {
		opts.Partitions = map[string]int{"q": p}
	}
	st := redisstore.New(rdb, opts)
	client := hopper.NewClient(st, nil)
	ran := make(chan struct{}, 1)
	w := hopper.NewWorker(st, &hopper.WorkerConfig{Queues: map[string]int{"q": 1}, Concurrency: conc})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Job]) error {
		ran <- struct{}{}
		return nil
	})
	wctx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- w.Run(wctx) }()
	defer func() { stop(); <-errc }()
	one := func(i int) error {
		if _, err := hopper.Enqueue(ctx, client, Job{N: i}, &hopper.EnqueueOpts{Queue: "q"}); err != nil {
			return err
		}
		select {
		case <-ran:
			return nil
		case <-time.After(time.Minute):
			return fmt.Errorf("trickle with %d partitions: job %d did not run in a minute", p, i)
		}
	}
	for i := range 3 { // the worker's start: every partition gets a look
		if err := one(-1 - i); err != nil {
			return result{}, err
		}
	}
	claims0 := claims.n.Load()
	before, err := masterCPU(ctx, rdb)
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	for i := range n {
		if err := one(i); err != nil {
			return result{}, err
		}
	}
	took := time.Since(start)
	after, err := masterCPU(ctx, rdb)
	if err != nil {
		return result{}, err
	}
	return perJob(n, took, claims.n.Load()-claims0, before, after), nil
}
