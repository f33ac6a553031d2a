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
//
// Each drain runs in a process of its own (the command starts itself
// again), and each repetition takes the numbers of groups in the other
// order: in one process the second drain came out slower than the first
// (a grouped drain measured 0.62–0.86× a plain one when it ran second,
// 0.92–0.96× when it ran first).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/bench/internal/drainrun"
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
	claims := flag.Int("claims", 0, "instead of drains, claim n jobs stored over each number of groups, this many a claim, and print what the claims alone cost Redis")
	one := flag.Int("one", -1, "run one drain over this many groups and print its figures (what the command runs each drain with)")
	flag.Parse()
	if *claims > 0 {
		if err := claimCost(context.Background(), newClient(*addr, *conc), *n, *claims, *groups, *limit); err != nil {
			fmt.Fprintln(os.Stderr, "groups:", err)
			os.Exit(1)
		}
		return
	}
	if *one >= 0 {
		rate, cpu, enq, err := drain(context.Background(), newClient(*addr, *conc), *n, *conc, *one, *limit)
		if err != nil {
			fmt.Fprintln(os.Stderr, "groups:", err)
			os.Exit(1)
		}
		fmt.Printf("%s %g %g %g\n", resultTag, rate, cpu, enq)
		return
	}
	if err := run(*n, *conc, *groups, *reps, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "groups:", err)
		os.Exit(1)
	}
}

// resultTag starts the line a -one drain prints its figures on.
const resultTag = "groups-drain:"

// newClient returns a client for the drains, with room for conc slots.
func newClient(addr string, conc int) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, PoolSize: 4 * conc})
}

// run drains over each number of groups in groupList reps times, each drain
// in a process of its own, and prints the medians.
func run(n, conc int, groupList string, reps, limit int) error {
	var counts []int
	for _, f := range strings.Split(groupList, ",") {
		g, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return err
		}
		counts = append(counts, g)
	}
	fmt.Printf("drain of %d jobs, %d worker slots, cap per group %d (0: none), kind index %v, median of %d (each drain in a process of its own)\n\n", n, conc, limit, kindIndex, reps)
	rates, cpus, enqs := map[int][]float64{}, map[int][]float64{}, map[int][]float64{}
	for rep := range reps {
		order := slices.Clone(counts)
		if rep%2 == 1 {
			slices.Reverse(order)
		}
		for _, g := range order {
			rate, cpu, enq, err := drainApart(g)
			if err != nil {
				return err
			}
			rates[g], cpus[g], enqs[g] = append(rates[g], rate), append(cpus[g], cpu), append(enqs[g], enq)
		}
	}
	fmt.Println("| groups | jobs/s | × no groups | Redis CPU µs per job (drain) | Redis CPU µs per job (enqueue, 1,000 a call) |")
	fmt.Println("|---|---|---|---|---|")
	var base float64
	for _, g := range counts {
		rate, cpu, enq := median(rates[g]), median(cpus[g]), median(enqs[g])
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

// drainApart runs one drain over groups groups in a new process of this
// command (flag -one), with this process's other flags, passing its other
// output through, and returns the figures it prints.
func drainApart(groups int) (rate, cpu, enq float64, err error) {
	self, err := os.Executable()
	if err != nil {
		return 0, 0, 0, err
	}
	cmd := exec.Command(self, append(slices.Clone(os.Args[1:]), "-one", strconv.Itoa(groups))...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("drain over %d groups: %w", groups, err)
	}
	for line := range strings.Lines(string(out)) {
		rest, ok := strings.CutPrefix(line, resultTag)
		if !ok {
			fmt.Print(line)
			continue
		}
		if _, err := fmt.Sscan(rest, &rate, &cpu, &enq); err != nil {
			return 0, 0, 0, fmt.Errorf("drain over %d groups printed %q: %w", groups, line, err)
		}
		return rate, cpu, enq, nil
	}
	return 0, 0, 0, fmt.Errorf("drain over %d groups printed no figures", groups)
}

// drain enqueues n jobs over groups groups (none when 0; with a cap of
// limit per group when not 0), then starts a
// worker and returns the jobs per second from its start to the last job's
// start, and the server's CPU per job meanwhile.
func drain(ctx context.Context, rdb *redis.Client, n, conc, groups, limit int) (rate, cpuPerJob, enqPerJob float64, err error) {
	if err := rdb.FlushAll(ctx).Err(); err != nil {
		return 0, 0, 0, err
	}
	st := redisstore.New(rdb, &redisstore.Config{Prefix: "grbench"})
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
			if _, err := hopper.EnqueuePrepared(ctx, client, batch); err != nil {
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
	var before, after time.Duration
	took, err := drainrun.Run[Job](ctx, st, "q", n, conc, 5*time.Minute, func() error {
		var err error
		if before == 0 {
			if showStats {
				if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
					return err
				}
			}
			before, err = servercpu.Read(ctx, rdb)
			return err
		}
		after, err = servercpu.Read(ctx, rdb)
		if showStats {
			printStats(ctx, rdb, groups, n)
		}
		return err
	})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("drain over %d groups: %w", groups, err)
	}
	return float64(n) / took.Seconds(), float64((after - before).Microseconds()) / float64(n), enqPerJob, nil
}

// median returns the middle of xs (the upper one of an even count).
func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[len(s)/2]
}

// printStats prints, per job, the calls and time of the commands Redis ran
// since the last CONFIG RESETSTAT, the costliest first.
func printStats(ctx context.Context, rdb *redis.Client, groups, n int) {
	stats, err := servercpu.CommandStats(ctx, rdb)
	if err != nil {
		return
	}
	fmt.Printf("groups %d, per job:%s\n", groups, servercpu.PerJob(stats, n, 10))
}
