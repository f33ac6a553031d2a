package pgxoutbox_test

import (
	"context"
	"log"
	"os"
	"os/signal"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
	"github.com/hopperq/hopper/redisstore"
)

type SendReceipt struct {
	OrderID int64
}

func (SendReceipt) Kind() string { return "send_receipt" }

// A worker that also relays the outbox: jobs committed in the application's
// transactions reach Redis within milliseconds and run here. (It needs
// PostgreSQL and Redis, so it is compiled, not run.)
func ExampleNewRelay() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if err := outbox.Migrate(ctx, pgxoutbox.Tx(pool), ""); err != nil {
		log.Fatal(err)
	}
	store := redisstore.New(redis.NewClient(&redis.Options{Addr: "localhost:6379"}), nil)
	ob := outbox.New(hopper.NewClient(store, nil), nil)

	relay := pgxoutbox.NewRelay(pool, ob, nil)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Services: []func(context.Context) error{relay.Run},
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendReceipt]) error {
		log.Printf("receipt for order %d", job.Args.OrderID)
		return nil
	})
	if err := w.Run(ctx); err != nil {
		log.Fatal(err)
	}
}

// Enqueue in a pgx transaction.
func ExampleTx() {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatal(err)
	}
	ob := outbox.New(hopper.NewClient(redisstore.New(redis.NewClient(&redis.Options{}), nil), nil), nil)

	tx, err := pool.Begin(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	var orderID int64
	if err := tx.QueryRow(ctx, `INSERT INTO orders (total) VALUES (42) RETURNING id`).Scan(&orderID); err != nil {
		log.Fatal(err)
	}
	if _, err := outbox.Enqueue(ctx, ob, pgxoutbox.Tx(tx), SendReceipt{OrderID: orderID}, nil); err != nil {
		log.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		log.Fatal(err)
	}
}
