package main

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

// benchArgs are the arguments of a hopper benchmark job: the payload.
type benchArgs struct {
	P []byte `msgpack:"p"`
}

// Kind names the benchmark job's handler.
func (benchArgs) Kind() string { return "bench" }

// hopperSystem drives hopper through its public API on a Redis store, with
// default settings except the worker's queue, concurrency and logger.
type hopperSystem struct {
	rdb    *redis.Client
	store  *redisstore.Store
	client *hopper.Client
}

// openHopper opens hopper on the Redis server at addr.
func openHopper(addr string) (System, error) {
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	st := redisstore.New(rdb, nil)
	return &hopperSystem{rdb: rdb, store: st, client: hopper.NewClient(st, nil)}, nil
}

// Enqueue adds one job with hopper.Enqueue.
func (h *hopperSystem) Enqueue(ctx context.Context, queue string, p []byte, delay time.Duration) error {
	_, err := hopper.Enqueue(ctx, h.client, benchArgs{P: p}, &hopper.EnqueueOpts{Queue: queue, Delay: delay})
	return err
}

// EnqueueBatch adds the jobs with one hopper.EnqueueMany call.
func (h *hopperSystem) EnqueueBatch(ctx context.Context, queue string, ps [][]byte) error {
	args := make([]benchArgs, len(ps))
	for i, p := range ps {
		args[i] = benchArgs{P: p}
	}
	_, err := hopper.EnqueueMany(ctx, h.client, args, &hopper.EnqueueOpts{Queue: queue})
	return err
}

// StartWorkers runs a hopper.Worker on queue until stop is called.
func (h *hopperSystem) StartWorkers(queue string, concurrency int, handle func(p []byte)) (func() error, error) {
	w := hopper.NewWorker(h.store, &hopper.WorkerConfig{
		Queues:      map[string]int{queue: 1},
		Concurrency: concurrency,
		Logger:      slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	hopper.Handle(w, func(_ context.Context, job *hopper.Job[benchArgs]) error {
		handle(job.Args.P)
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- w.Run(ctx) }()
	stop := func() error {
		cancel()
		return <-result
	}
	return stop, nil
}

// Close closes the Redis connections.
func (h *hopperSystem) Close() error { return h.rdb.Close() }
