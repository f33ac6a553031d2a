// Command bench measures the transactional outbox on PostgreSQL and Redis:
//
//	go run ./bench -mode latency      commit → handler start at a steady rate (default 1,000 jobs/s)
//	go run ./bench -mode throughput   how fast 1 and 4 relays drain a backlog into Redis
//	go run ./bench -mode cost         what a job costs the producer: plain Enqueue, a transaction, a transaction with the outbox
//	go run ./bench -mode all          all three
//
// Run it from the outbox module. It starts a throwaway PostgreSQL cluster
// (durable: fsync and synchronous_commit on, as in production; -fast turns
// them off) and a redis-server on free ports, unless -postgres and -redis
// name servers of your own (it creates and drops its own tables there).
// Numbers depend on the machine: run it on one that is otherwise idle.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

type config struct {
	mode       string
	pgURL      string
	redisAddr  string
	fast       bool
	rate       int
	duration   time.Duration
	relays     int
	backlog    int
	costJobs   int
	concurrent int
}

func main() {
	var c config
	flag.StringVar(&c.mode, "mode", "all", "latency, throughput, cost or all")
	flag.StringVar(&c.pgURL, "postgres", "", "PostgreSQL URL (default: a throwaway cluster)")
	flag.StringVar(&c.redisAddr, "redis", "", "Redis host:port (default: a throwaway redis-server)")
	flag.BoolVar(&c.fast, "fast", false, "run the throwaway cluster with fsync and synchronous_commit off")
	flag.IntVar(&c.rate, "rate", 1000, "latency: jobs per second, one job per transaction")
	flag.DurationVar(&c.duration, "duration", 20*time.Second, "latency: how long to write")
	flag.IntVar(&c.relays, "relays", 2, "latency: relays running")
	flag.IntVar(&c.backlog, "backlog", 200000, "throughput: rows in the backlog")
	flag.IntVar(&c.costJobs, "cost-jobs", 5000, "cost: jobs per variant")
	flag.IntVar(&c.concurrent, "producers", 16, "latency: goroutines writing transactions")
	flag.Parse()
	ctx := context.Background()
	env, err := setup(ctx, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	defer env.close()
	fmt.Println(env.describe())
	run := func(name string, f func(context.Context, *benchEnv, config) error) {
		if c.mode != "all" && c.mode != name {
			return
		}
		if err := f(ctx, env, c); err != nil {
			fmt.Fprintf(os.Stderr, "bench %s: %v\n", name, err)
			env.close()
			os.Exit(1)
		}
	}
	run("cost", runCost)
	run("latency", runLatency)
	run("throughput", runThroughput)
}
