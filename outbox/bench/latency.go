package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// warmUp is left out of the percentiles.
const warmUp = time.Second

// runLatency writes one job per transaction at c.rate for c.duration,
// with c.relays relays and a worker running in this process, and reports
// the time from each commit's return to its handler's start; then the same
// with plain hopper.Enqueue, from its return to the handler's start.
func runLatency(ctx context.Context, e *benchEnv, c config) error {
	for _, viaOutbox := range []bool{true, false} {
		ob, st, orders, err := e.fresh(ctx)
		if err != nil {
			return err
		}
		total := int(c.duration.Seconds() * float64(c.rate))
		done := make([]atomic.Int64, total)  // when the commit (or Enqueue) returned, Unix ns
		start := make([]atomic.Int64, total) // when the handler started
		var ran atomic.Int64

		wctx, stopWorker := context.WithCancel(ctx)
		w := hopper.NewWorker(st, &hopper.WorkerConfig{Concurrency: 64, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		hopper.Handle(w, func(_ context.Context, j *hopper.Job[Job]) error {
			start[j.Args.Order].Store(time.Now().UnixNano())
			ran.Add(1)
			return nil
		})
		var bg sync.WaitGroup
		bg.Go(func() { _ = w.Run(wctx) })
		if viaOutbox {
			for range c.relays {
				r := pgxoutbox.NewRelay(e.pool, ob, &pgxoutbox.RelayConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				bg.Go(func() { _ = r.Run(wctx) })
			}
		}

		write := func(i int) error {
			if !viaOutbox {
				if _, err := hopper.Enqueue(ctx, ob.Client(), Job{Order: int64(i)}, nil); err != nil {
					return err
				}
				done[i].Store(time.Now().UnixNano())
				return nil
			}
			tx, err := e.pool.Begin(ctx)
			if err != nil {
				return err
			}
			defer tx.Rollback(ctx) //nolint:errcheck
			if _, err := tx.Exec(ctx, "INSERT INTO "+orders+" (total) VALUES ($1)", i); err != nil {
				return err
			}
			if _, err := outbox.Enqueue(ctx, ob, pgxoutbox.Tx(tx), Job{Order: int64(i)}, nil); err != nil {
				return err
			}
			if err := tx.Commit(ctx); err != nil {
				return err
			}
			done[i].Store(time.Now().UnixNano())
			return nil
		}
		late, err := pace(ctx, c.rate, total, c.concurrent, write)
		if err != nil {
			stopWorker()
			bg.Wait()
			return err
		}
		deadline := time.Now().Add(time.Minute)
		for ran.Load() < int64(total) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // waiting for the last jobs to run
		}
		stopWorker()
		bg.Wait()

		skip := int(warmUp.Seconds() * float64(c.rate))
		lat := make([]time.Duration, 0, total)
		for i := skip; i < total; i++ {
			if s := start[i].Load(); s != 0 {
				lat = append(lat, time.Duration(s-done[i].Load()))
			}
		}
		name := "outbox: commit → handler start"
		if !viaOutbox {
			name = "plain Enqueue: return → handler start"
		}
		fmt.Printf("latency %-40s %d jobs at %d/s (%d relays), %d not run, pacer late %d times: %s\n",
			name, total, c.rate, map[bool]int{true: c.relays}[viaOutbox], total-int(ran.Load()), late, percentiles(lat))
	}
	return nil
}

// pace calls write(i) for i from 0 to total-1 at rate per second from
// producers goroutines, and returns how often it fell behind the schedule
// by more than a millisecond (the producers could not keep up).
func pace(ctx context.Context, rate, total, producers int, write func(i int) error) (late int, err error) {
	jobs := make(chan int, producers)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	for range producers {
		wg.Go(func() {
			for i := range jobs {
				if err := write(i); err != nil {
					once.Do(func() { first = err })
				}
			}
		})
	}
	interval := time.Second / time.Duration(rate)
	t0 := time.Now()
	for i := range total {
		due := t0.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d) // the schedule of the load, not a synchronisation
		} else if d < -time.Millisecond {
			late++
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return late, first
}

// percentiles formats p50, p90, p99, p99.9 and max of lat.
func percentiles(lat []time.Duration) string {
	if len(lat) == 0 {
		return "no samples"
	}
	slices.Sort(lat)
	p := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	r := func(d time.Duration) string { return d.Round(10 * time.Microsecond).String() }
	return fmt.Sprintf("p50 %s  p90 %s  p99 %s  p99.9 %s  max %s", r(p(0.50)), r(p(0.90)), r(p(0.99)), r(p(0.999)), r(lat[len(lat)-1]))
}
