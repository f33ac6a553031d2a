// Worker is a worker binary: it runs email and payment jobs from Redis
// until SIGINT or SIGTERM, then shuts down gracefully (running jobs get 10 s
// to finish; the rest are handed back for another worker).
//
//	HOPPER_REDIS_URL=redis://localhost:6379/0 go run ./examples/worker
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/examples/internal/jobs"
	"github.com/hopperq/hopper/middleware"
	"github.com/hopperq/hopper/redisstore"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))

	opts, err := redis.ParseURL(envOr("HOPPER_REDIS_URL", "redis://localhost:6379/0"))
	if err != nil {
		return err
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	store := redisstore.New(rdb, nil)
	if err := store.Check(ctx); err != nil {
		return err // unreachable server, Redis older than 7.0, ...
	}

	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Queues:          map[string]int{"payments": 3, "mail": 1},
		Concurrency:     32,
		ShutdownTimeout: 10 * time.Second,
		Logger:          logger,
	})
	w.Use(middleware.Logging(logger, nil))
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[jobs.SendEmail]) error {
		logger.Info("sending email", "to", job.Args.To, "subject", job.Args.Subject)
		return nil
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[jobs.ChargeCard]) error {
		if job.Args.Cents <= 0 {
			return hopper.Permanent(errors.New("amount must be positive"))
		}
		logger.Info("charging", "customer", job.Args.Customer, "cents", job.Args.Cents)
		return nil
	})
	logger.Info("worker started; Ctrl-C to stop")
	return w.Run(ctx)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
