package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// runThroughput fills an outbox with c.backlog committed rows while no
// relay runs, then starts 1 (and then 4) relays and times how long they
// take to store every job in Redis and empty the outbox.
func runThroughput(ctx context.Context, e *benchEnv, c config) error {
	for _, relays := range []int{1, 4} {
		ob, _, _, err := e.fresh(ctx)
		if err != nil {
			return err
		}
		if err := fill(ctx, e, ob, c.backlog); err != nil {
			return err
		}
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		probe := pgxoutbox.NewRelay(e.pool, ob, &pgxoutbox.RelayConfig{Logger: quiet})
		rctx, stop := context.WithCancel(ctx)
		var wg sync.WaitGroup
		t0 := time.Now()
		for range relays {
			r := pgxoutbox.NewRelay(e.pool, ob, &pgxoutbox.RelayConfig{Logger: quiet})
			wg.Go(func() { _ = r.Run(rctx) })
		}
		for {
			s, err := probe.Stats(ctx)
			if err != nil {
				stop()
				wg.Wait()
				return err
			}
			if s.Depth == 0 {
				break
			}
			time.Sleep(5 * time.Millisecond) // polling the depth
		}
		took := time.Since(t0)
		stop()
		wg.Wait()
		fmt.Printf("throughput %d relay(s): %d rows relayed in %v: %.0f jobs/s (batches of %d)\n",
			relays, c.backlog, took.Round(time.Millisecond), float64(c.backlog)/took.Seconds(), pgxoutbox.DefaultBatchSize)
	}
	return nil
}

// fill commits n jobs to the outbox, 1,000 per transaction.
func fill(ctx context.Context, e *benchEnv, ob *outbox.Outbox, n int) error {
	args := make([]Job, 1000)
	for done := 0; done < n; done += len(args) {
		batch := args[:min(len(args), n-done)]
		for i := range batch {
			batch[i].Order = int64(done + i)
		}
		tx, err := e.pool.Begin(ctx)
		if err != nil {
			return err
		}
		if _, err := outbox.EnqueueMany(ctx, ob, pgxoutbox.Tx(tx), batch, nil); err != nil {
			_ = tx.Rollback(ctx)
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
	}
	return nil
}
