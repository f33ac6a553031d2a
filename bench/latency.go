package main

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"
)

// latencyTable describes the latency workload's table.
func latencyTable(cfg *config) table {
	return table{
		title: "Latency under steady load",
		about: fmt.Sprintf("Workers (concurrency %d) running; %d producers send %s jobs/s in total on an absolute schedule for %s. "+
			"Latency = handler start − time taken just before Enqueue.", cfg.concurrency, pacedProducers, num(cfg.rate), cfg.duration),
		metrics: []metric{
			{key: "achieved_rate", label: "achieved rate, jobs/s", better: neutral},
			{key: "p50_ms", label: "p50, ms", better: lowerBetter, decimals: 2},
			{key: "p90_ms", label: "p90, ms", better: lowerBetter, decimals: 2},
			{key: "p99_ms", label: "p99, ms", better: lowerBetter, decimals: 2},
			{key: "max_ms", label: "max, ms", better: lowerBetter, decimals: 2},
			{key: "duplicates", label: "duplicates", better: lowerBetter, noRatio: true},
		},
	}
}

// runLatency sends jobs at a fixed rate to running workers and measures
// enqueue-to-handler latency.
func runLatency(ctx context.Context, e *runEnv) (metrics, error) {
	n := max(1, int(float64(e.cfg.rate)*e.cfg.duration.Seconds()))
	interval := float64(time.Second) / float64(e.cfg.rate)
	tr := newTracker(n)
	stop, err := e.sys.StartWorkers(e.queue, e.cfg.concurrency, tr.deliver)
	if err != nil {
		return nil, fmt.Errorf("start workers: %w", err)
	}
	if err := sleepCtx(ctx, settle); err != nil {
		return nil, finish(ctx, stop, err)
	}

	start := time.Now()
	pctx, cancel := context.WithTimeout(ctx, e.cfg.duration+e.cfg.timeout)
	err = pace(pctx, n, func(ctx context.Context, id int) error {
		if err := sleepCtx(ctx, time.Until(start.Add(time.Duration(float64(id)*interval)))); err != nil {
			return err
		}
		ts := time.Now().UnixNano()
		return e.sys.Enqueue(ctx, e.queue, encodePayload(uint32(id), ts, ts), 0)
	})
	cancel()
	sent := time.Since(start)
	if err != nil {
		return nil, finish(ctx, stop, fmt.Errorf("enqueue: %w", err))
	}
	if err := finish(ctx, stop, tr.wait(ctx, time.Now().Add(e.cfg.timeout))); err != nil {
		return nil, err
	}

	m := metrics{}
	m.set("achieved_rate", float64(n)/sent.Seconds())
	putPercentiles(m, millis(tr.latenesses()))
	putDeliveryCounts(m, tr)
	return m, nil
}

// pace runs fn for ids 0..n-1 from pacedProducers goroutines, producer k
// taking the ids k, k+pacedProducers, …; fn waits for each id's slot in
// the schedule itself. The first error stops every producer.
func pace(ctx context.Context, n int, fn func(ctx context.Context, id int) error) error {
	g, ctx := errgroup.WithContext(ctx)
	for k := range pacedProducers {
		g.Go(func() error {
			for id := k; id < n; id += pacedProducers {
				if err := fn(ctx, id); err != nil {
					return fmt.Errorf("job %d: %w", id, err)
				}
			}
			return nil
		})
	}
	return g.Wait()
}
