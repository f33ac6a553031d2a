// Command groups measures hopper's groups on Redis: how fast a backlog
// drains when its jobs are spread over many groups, next to the same
// backlog without groups, and the Redis CPU a claimed job costs as the
// number of groups grows. Run it from the repository root with
//
//	go run -C bench ./groups -redis 127.0.0.1:6379
//
// against a Redis server of its own (it measures the server's whole CPU,
// so nothing else should use it). With -kind-index the queue keeps a kind
// index (hopper.QueueConfig.KindIndex), to measure what it costs.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/bench/internal/servercpu"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

type Job struct{ N int }

// showStats prints each drain's command statistics; kindIndex turns the
// queue's kind index on.
var showStats, kindIndex bool

func (Job) Kind() string { return "bench.group" }

func main() {
	addr := flag.String("redis", "127.0.0.1:6379", "Redis server (measured as a whole: use one of its own)")
	n := flag.Int("n", 50000, "jobs per drain")
	conc := flag.Int("concurrency", 32, "worker slots")
	groups := flag.String("groups", "0,1,100,1000,10000", "numbers of groups to drain over (0: no groups)")
	reps := flag.Int("reps", 3, "drains per number of groups (the median is reported)")
	limit := flag.Int("cap", 0, "QueueConfig.GroupMaxRunning of the grouped drains (0: none)")
	flag.BoolVar(&showStats, "stats", false, "print the commands Redis ran during each drain (INFO commandstats)")
	flag.BoolVar(&kindIndex, "kind-index", false, "keep a kind index on the queue (QueueConfig.KindIndex)")
	flag.Parse()
	if err := run(*addr, *n, *conc, *groups, *reps, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "groups:", err)
		os.Exit(1)
	}
}

func run(addr string, n, conc int, groupList string, reps, limit int) error {
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 4 * conc})
	defer rdb.Close()
	fmt.Printf("drain of %d jobs, %d worker slots, cap per group %d (0: none), kind index %v, median of %d\n\n", n, conc, limit, kindIndex, reps)
	fmt.Println("| groups | jobs/s | × no groups | Redis CPU µs per job (drain) | Redis CPU µs per job (enqueue, 1,000 a call) |")
	fmt.Println("|---|---|---|---|---|")
	var base float64
	for _, f := range strings.Split(groupList, ",") {
		g, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return err
		}
		var rates, cpus, enqs []float64
		for range reps {
			rate, cpu, enq, err := drain(ctx, rdb, n, conc, g, limit)
			if err != nil {
				return err
			}
			rates, cpus, enqs = append(rates, rate), append(cpus, cpu), append(enqs, enq)
		}
		rate, cpu, enq := median(rates), median(cpus), median(enqs)
		if g == 0 {
			base = rate
		}
		label := strconv.Itoa(g)
		if g == 0 {
			label = "none"
		}
		ratio := "–"
		if base > 0 {
			ratio = fmt.Sprintf("%.2f×", rate/base)
		}
		fmt.Printf("| %s | %.0f | %s | %.1f | %.1f |\n", label, rate, ratio, cpu, enq)
	}
	return nil
}

// drain enqueues n jobs over groups groups (none when 0; with a cap of
// limit per group when not 0), then starts a
// worker and returns the jobs per second from its start to the last job's
// start, and the server's CPU per job meanwhile.
func drain(ctx context.Context, rdb *redis.Client, n, conc, groups, limit int) (rate, cpuPerJob, enqPerJob float64, err error) {
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		return 0, 0, 0, err
	}
	st := redisstore.New(rdb, &redisstore.Options{Prefix: "grbench"})
	cfg := hopper.QueueConfig{KindIndex: kindIndex}
	if groups > 0 && limit > 0 {
		cfg.GroupMaxRunning = limit
	}
	if cfg != (hopper.QueueConfig{}) {
		if err := hopper.NewInspector(st).SetQueueConfig(ctx, "q", cfg); err != nil {
			return 0, 0, 0, err
		}
	}
	enqBefore, err := servercpu.Read(ctx, rdb)
	if err != nil {
		return 0, 0, 0, err
	}
	client := hopper.NewClient(st, nil)
	var batch []*hopper.PreparedJob
	for i := range n {
		opts := &hopper.EnqueueOpts{Queue: "q"}
		if groups > 0 {
			opts.Group = "g" + strconv.Itoa(i%groups)
		}
		j, err := hopper.Prepare(client, Job{N: i}, opts)
		if err != nil {
			return 0, 0, 0, err
		}
		batch = append(batch, j)
		if len(batch) == 1000 || i == n-1 {
			if _, err := client.EnqueuePrepared(ctx, batch); err != nil {
				return 0, 0, 0, err
			}
			batch = batch[:0]
		}
	}
	enqAfter, err := servercpu.Read(ctx, rdb)
	if err != nil {
		return 0, 0, 0, err
	}
	enqPerJob = float64((enqAfter - enqBefore).Microseconds()) / float64(n)
	var done atomic.Int64
	finished := make(chan time.Time, 1)
	w := hopper.NewWorker(st, &hopper.WorkerConfig{Queues: map[string]int{"q": 1}, Concurrency: conc})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Job]) error {
		if done.Add(1) == int64(n) {
			finished <- time.Now()
		}
		return nil
	})
	if showStats {
		if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
			return 0, 0, 0, err
		}
	}
	before, err := servercpu.Read(ctx, rdb)
	if err != nil {
		return 0, 0, 0, err
	}
	wctx, stop := context.WithCancel(ctx)
	start := time.Now()
	errc := make(chan error, 1)
	go func() { errc <- w.Run(wctx) }()
	var end time.Time
	select {
	case end = <-finished:
	case <-time.After(5 * time.Minute):
		stop()
		return 0, 0, 0, fmt.Errorf("drain over %d groups: %d of %d jobs ran in 5 minutes", groups, done.Load(), n)
	}
	after, err := servercpu.Read(ctx, rdb)
	stop()
	if showStats {
		printStats(ctx, rdb, groups, n)
	}
	if werr := <-errc; werr != nil && err == nil {
		err = werr
	}
	return float64(n) / end.Sub(start).Seconds(), float64((after - before).Microseconds()) / float64(n), enqPerJob, err
}

// median returns the middle of xs (the upper one of an even count).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// printStats prints, per job, the calls and time of the commands Redis ran
// since the last CONFIG RESETSTAT, the costliest first.
func printStats(ctx context.Context, rdb *redis.Client, groups, n int) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return
	}
	type stat struct {
		cmd         string
		calls, usec float64
	}
	var stats []stat
	for _, line := range strings.Split(info, "\r\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		s := stat{cmd: strings.TrimPrefix(name, "cmdstat_")}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			f, _ := strconv.ParseFloat(v, 64)
			switch k {
			case "calls":
				s.calls = f
			case "usec":
				s.usec = f
			}
		}
		stats = append(stats, s)
	}
	slices.SortFunc(stats, func(a, b stat) int { return cmp.Compare(b.usec, a.usec) })
	fmt.Printf("groups %d, per job:", groups)
	for i, s := range stats {
		if i == 10 {
			break
		}
		fmt.Printf(" %s %.2f calls %.2f µs;", s.cmd, s.calls/float64(n), s.usec/float64(n))
	}
	fmt.Println()
}
