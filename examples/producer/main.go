// Producer enqueues jobs into Redis for examples/worker: a batch of emails
// in one round trip, a delayed reminder, and an idempotent payment.
//
//	HOPPER_REDIS_URL=redis://localhost:6379/0 go run ./examples/producer
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/examples/internal/jobs"
	"github.com/hopperq/hopper/redisstore"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "producer:", err)
		os.Exit(1)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	url := os.Getenv("HOPPER_REDIS_URL")
	if url == "" {
		url = "redis://localhost:6379/0"
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	client := hopper.NewClient(redisstore.New(rdb, nil), nil)

	emails := make([]jobs.SendEmail, 10)
	for i := range emails {
		emails[i] = jobs.SendEmail{To: fmt.Sprintf("user%d@example.com", i), Subject: "Welcome"}
	}
	infos, err := hopper.EnqueueMany(ctx, client, emails, &hopper.EnqueueOpts{Queue: "mail"})
	if err != nil {
		return err
	}
	fmt.Printf("enqueued %d emails in one round trip\n", len(infos))

	later, err := hopper.Enqueue(ctx, client, jobs.SendEmail{To: "user0@example.com", Subject: "Still there?"},
		&hopper.EnqueueOpts{Queue: "mail", Delay: 30 * time.Second})
	if err != nil {
		return err
	}
	fmt.Println("reminder", later.ID, "is", later.State, "for 30 s")

	// The same ID twice is one job: safe to retry after a timeout.
	for range 2 {
		info, err := hopper.Enqueue(ctx, client, jobs.ChargeCard{Customer: "cus_42", Cents: 1999},
			&hopper.EnqueueOpts{Queue: "payments", ID: "order-42-charge", MaxRetries: 5})
		if err != nil {
			return err
		}
		fmt.Println("payment", info.ID, "duplicate:", info.Duplicate)
	}
	return nil
}
