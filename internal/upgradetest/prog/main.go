// Command prog is the rolling-upgrade test's worker and producer. The test
// builds it twice: in this tree, and copied into a tree of an earlier
// commit, so it uses only public API that both have. It runs until
// SIGTERM or SIGINT, then stops gracefully and exits 0.
//
//	prog -mode setup    -redis ADDR -prefix P               configure the queues, then exit
//	prog -mode producer -redis ADDR -prefix P -name N -version V [-rate R]
//	prog -mode worker   -redis ADDR -prefix P -name N -version V
//
// A producer enqueues about R jobs a second (plain, delayed, retried,
// doomed, grouped) and, among them, a workflow now and then; a worker
// runs every queue and a scheduler with a schedule ticking every second.
// Both write what they did to Redis (package evidence). Once running,
// each prints "ready" on stdout.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/upgradetest/evidence"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

type config struct {
	mode, addr, prefix, name, version string
	rate                              float64
}

func main() {
	var c config
	flag.StringVar(&c.mode, "mode", "", "setup, producer or worker")
	flag.StringVar(&c.addr, "redis", "", "Redis address (host:port)")
	flag.StringVar(&c.prefix, "prefix", "hopper", "hopper's key prefix")
	flag.StringVar(&c.name, "name", "", "this process's name (the worker ID)")
	flag.StringVar(&c.version, "version", "", "which build this is, recorded with every run")
	flag.Float64Var(&c.rate, "rate", 40, "producer: jobs a second")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintf(os.Stderr, "prog %s %s: %v\n", c.mode, c.name, err)
		os.Exit(1)
	}
}

func run(c config) error {
	if c.addr == "" {
		return fmt.Errorf("-redis is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	rdb := redis.NewClient(&redis.Options{Addr: c.addr})
	defer rdb.Close()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).
		With("proc", c.name)
	st := redisstore.New(rdb, &redisstore.Config{Prefix: c.prefix, Logger: logger})
	rec := evidence.NewRecorder(rdb, c.version, c.name)
	switch c.mode {
	case "setup":
		return setup(ctx, st)
	case "producer":
		return produce(ctx, c, st, rec, logger)
	case "worker":
		return work(ctx, c, st, rec, logger)
	}
	return fmt.Errorf("unknown -mode %q (setup, producer or worker)", c.mode)
}

// setup writes the queue settings of package evidence: rate limits on
// the main and flow queues, a cap and a rate on each group.
func setup(ctx context.Context, st hopper.Store) error {
	ins := hopper.NewInspector(st)
	for queue, change := range map[string]func(*hopper.QueueConfig){
		queueMain: func(c *hopper.QueueConfig) { c.RateLimit = evidence.MainRateLimit },
		queueFlow: func(c *hopper.QueueConfig) { c.RateLimit, c.RateSmooth = evidence.FlowRateLimit, true },
		queueGroups: func(c *hopper.QueueConfig) {
			c.GroupMaxRunning, c.GroupRateLimit = evidence.GroupMaxRunning, evidence.GroupRateLimit
		},
	} {
		err := ins.UpdateQueueConfig(ctx, queue, func(c *hopper.QueueConfig) error {
			change(c)
			return nil
		})
		if err != nil {
			return fmt.Errorf("configure %s: %w", queue, err)
		}
	}
	return nil
}
