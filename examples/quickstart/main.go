// Quickstart: enqueue a job and handle it, on the in-memory store, or on
// Redis when HOPPER_REDIS_URL is set (redis://localhost:6379/0).
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
)

// SendEmail is the job's arguments: hopper encodes them with msgpack.
type SendEmail struct {
	To      string
	Subject string
}

func (SendEmail) Kind() string { return "send_email" } // stable name stored with the job

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	var store hopper.Store = memstore.New(nil)
	if url := os.Getenv("HOPPER_REDIS_URL"); url != "" {
		opts, err := redis.ParseURL(url)
		if err != nil {
			log.Fatal(err)
		}
		store = redisstore.New(redis.NewClient(opts), nil)
	}
	client := hopper.NewClient(store, nil)

	w := hopper.NewWorker(store, &hopper.WorkerConfig{Queues: map[string]int{"default": 1}, Concurrency: 8})
	handled := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		fmt.Printf("sending %q to %s (attempt %d)\n", job.Args.Subject, job.Args.To, job.Attempt)
		close(handled)
		return nil
	})
	go func() {
		if err := w.Run(ctx); err != nil {
			log.Fatal(err)
		}
	}()

	info, err := hopper.Enqueue(ctx, client, SendEmail{To: "a@b.c", Subject: "hello"}, &hopper.EnqueueOpts{Delay: time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("enqueued", info.ID, "into", info.Queue, "as", info.State)
	select {
	case <-handled:
	case <-ctx.Done():
		log.Fatal("job not handled in time")
	}
}
