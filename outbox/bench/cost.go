package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// runCost measures, one call after another from one goroutine, what a job
// costs its producer: a plain hopper.Enqueue (one Redis round trip); a
// transaction that only writes the application's row; the same
// transaction writing the job to the outbox too. The outbox's extra cost
// at the producer is the difference of the last two; the relay's share per
// job is the inverse of the throughput measured by -mode throughput.
func runCost(ctx context.Context, e *benchEnv, c config) error {
	ob, _, orders, err := e.fresh(ctx)
	if err != nil {
		return err
	}
	n := c.costJobs
	measure := func(name string, f func(i int) error) (time.Duration, error) {
		for i := range n / 10 { // warm up
			if err := f(i); err != nil {
				return 0, err
			}
		}
		t0 := time.Now()
		for i := range n {
			if err := f(i); err != nil {
				return 0, err
			}
		}
		per := time.Since(t0) / time.Duration(n)
		fmt.Printf("cost %-52s %8.1f µs/job\n", name, float64(per.Nanoseconds())/1000)
		return per, nil
	}
	plain, err := measure("plain hopper.Enqueue", func(i int) error {
		_, err := hopper.Enqueue(ctx, ob.Client(), Job{Order: int64(i)}, nil)
		return err
	})
	if err != nil {
		return err
	}
	tx := func(withJob bool) func(i int) error {
		return func(i int) error {
			tx, err := e.pool.Begin(ctx)
			if err != nil {
				return err
			}
			defer tx.Rollback(ctx) //nolint:errcheck
			if _, err := tx.Exec(ctx, "INSERT INTO "+orders+" (total) VALUES ($1)", i); err != nil {
				return err
			}
			if withJob {
				if _, err := outbox.Enqueue(ctx, ob, pgxoutbox.Tx(tx), Job{Order: int64(i)}, nil); err != nil {
					return err
				}
			}
			return tx.Commit(ctx)
		}
	}
	bare, err := measure("transaction: INSERT order, COMMIT", tx(false))
	if err != nil {
		return err
	}
	with, err := measure("transaction: INSERT order, outbox.Enqueue, COMMIT", tx(true))
	if err != nil {
		return err
	}
	fmt.Printf("cost the outbox adds to the transaction: %.1f µs/job (plain Enqueue: %.1f µs/job)\n",
		float64((with-bare).Nanoseconds())/1000, float64(plain.Nanoseconds())/1000)
	return nil
}
