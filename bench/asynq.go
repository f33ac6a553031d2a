package main

import (
	"context"
	"time"

	"github.com/hibiken/asynq"
)

// asynqSystem drives asynq, the baseline, with its defaults except the
// server's queue, concurrency and log level.
type asynqSystem struct {
	opt    asynq.RedisClientOpt
	client *asynq.Client
}

// openAsynq opens asynq on the Redis server at addr.
func openAsynq(addr string) (System, error) {
	opt := asynq.RedisClientOpt{Addr: addr}
	return &asynqSystem{opt: opt, client: asynq.NewClient(opt)}, nil
}

// Enqueue adds one task with asynq.Client.Enqueue; a delay becomes
// asynq.ProcessIn.
func (a *asynqSystem) Enqueue(ctx context.Context, queue string, p []byte, delay time.Duration) error {
	opts := []asynq.Option{asynq.Queue(queue)}
	if delay > 0 {
		opts = append(opts, asynq.ProcessIn(delay))
	}
	_, err := a.client.EnqueueContext(ctx, asynq.NewTask("bench", p), opts...)
	return err
}

// StartWorkers starts an asynq.Server on queue until stop is called.
func (a *asynqSystem) StartWorkers(queue string, concurrency int, handle func(p []byte)) (func() error, error) {
	srv := asynq.NewServer(a.opt, asynq.Config{
		Concurrency: concurrency,
		Queues:      map[string]int{queue: 1},
		LogLevel:    asynq.WarnLevel,
	})
	mux := asynq.NewServeMux()
	mux.HandleFunc("bench", func(_ context.Context, t *asynq.Task) error {
		handle(t.Payload())
		return nil
	})
	if err := srv.Start(mux); err != nil {
		return nil, err
	}
	stop := func() error {
		srv.Shutdown()
		return nil
	}
	return stop, nil
}

// Close closes the client's connections.
func (a *asynqSystem) Close() error { return a.client.Close() }
