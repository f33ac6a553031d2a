package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// delayedTable describes the delayed workload's table.
func delayedTable(cfg *config) table {
	return table{
		title: "Delayed jobs",
		about: fmt.Sprintf("Workers (concurrency %d) running; %s jobs enqueued by %d producers with a delay uniform in [%s, %s]. "+
			"Lateness = handler start − due time (enqueue timestamp + delay); early = jobs that started before they were due.",
			cfg.concurrency, num(cfg.delayedN), producers, delayMin, delayMax),
		metrics: []metric{
			{key: "p50_ms", label: "lateness p50, ms", better: lowerBetter, decimals: 1},
			{key: "p90_ms", label: "lateness p90, ms", better: lowerBetter, decimals: 1},
			{key: "p99_ms", label: "lateness p99, ms", better: lowerBetter, decimals: 1},
			{key: "max_ms", label: "lateness max, ms", better: lowerBetter, decimals: 1},
			{key: "min_ms", label: "lateness min, ms", better: neutral, decimals: 1, noRatio: true},
			{key: "early", label: "ran early", better: lowerBetter, noRatio: true},
			{key: "duplicates", label: "duplicates", better: lowerBetter, noRatio: true},
		},
	}
}

// runDelayed enqueues jobs with random delays to running workers and
// measures how late each one started.
func runDelayed(ctx context.Context, e *runEnv) (metrics, error) {
	n := e.cfg.delayedN
	rng := rand.New(rand.NewPCG(delaySeed, uint64(n)))
	delays := make([]time.Duration, n)
	for i := range delays {
		delays[i] = delayMin + time.Duration(rng.Int64N(int64(delayMax-delayMin)+1))
	}
	tr := newTracker(n)
	stop, err := e.sys.StartWorkers(e.queue, e.cfg.concurrency, tr.deliver)
	if err != nil {
		return nil, fmt.Errorf("start workers: %w", err)
	}
	if err := sleepCtx(ctx, settle); err != nil {
		return nil, finish(ctx, stop, err)
	}

	var lastDue atomic.Int64
	pctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	err = produce(pctx, n, producers, func(ctx context.Context, id int) error {
		ts := time.Now().UnixNano()
		due := ts + int64(delays[id])
		storeExtreme(&lastDue, due, func(cur int64) bool { return due > cur })
		return e.sys.Enqueue(ctx, e.queue, encodePayload(uint32(id), ts, due), delays[id])
	})
	cancel()
	if err != nil {
		return nil, finish(ctx, stop, fmt.Errorf("enqueue: %w", err))
	}
	deadline := time.Unix(0, lastDue.Load()).Add(e.cfg.timeout)
	if err := finish(ctx, stop, tr.wait(ctx, deadline)); err != nil {
		return nil, err
	}

	m := metrics{}
	late := millis(tr.latenesses())
	putPercentiles(m, late)
	early := 0
	for _, l := range late {
		if l < 0 {
			early++
		}
	}
	m.set("early", float64(early))
	putDeliveryCounts(m, tr)
	return m, nil
}
