package main

import (
	"context"
	"fmt"
	"time"
)

// drainTable describes the drain workload's table.
func drainTable(cfg *config) table {
	return table{
		title: "Drain",
		about: fmt.Sprintf("%s jobs enqueued first, then workers (concurrency %d, no-op handler) start: jobs/s = N / (last first-time delivery − worker start). "+
			"Duplicates = deliveries − distinct jobs, counted until %s after the last delivery.", num(cfg.n), cfg.concurrency, grace),
		metrics: []metric{
			{key: "jobs_per_s", label: "jobs/s", better: higherBetter},
			{key: "first_ms", label: "time to first job, ms", better: lowerBetter, decimals: 1},
			{key: "duplicates", label: "duplicates", better: lowerBetter, noRatio: true},
		},
	}
}

// costTable describes the cost table, measured during the drain runs.
func costTable(cfg *config) table {
	return table{
		title: "Cost (measured during drain)",
		about: "Redis INFO deltas divided by N, with CONFIG RESETSTAT before each phase. Enqueue phase: the drain's pre-enqueue; drain phase: worker start until the last delivery. " +
			"Commands include those run inside Lua scripts and the library's background traffic, not the benchmark's INFO/CONFIG. " +
			"Client CPU is this whole process (getrusage), harness included. Memory: used_memory growth with N jobs pending.",
		metrics: []metric{
			{key: "enqueue_cmds_per_job", label: "enqueue: Redis commands/job", better: lowerBetter, decimals: 2},
			{key: "enqueue_reads_per_job", label: "enqueue: round trips/job", better: lowerBetter, decimals: 2},
			{key: "enqueue_redis_cpu_us", label: "enqueue: Redis CPU µs/job", better: lowerBetter, decimals: 1},
			{key: "enqueue_client_cpu_us", label: "enqueue: client CPU µs/job", better: lowerBetter, decimals: 1},
			{key: "enqueue_net_bytes", label: "enqueue: network bytes/job", better: lowerBetter},
			{key: "memory_bytes_per_job", label: "memory bytes/pending job", better: lowerBetter},
			{key: "drain_cmds_per_job", label: "drain: Redis commands/job", better: lowerBetter, decimals: 2},
			{key: "drain_reads_per_job", label: "drain: round trips/job", better: lowerBetter, decimals: 2},
			{key: "drain_redis_cpu_us", label: "drain: Redis CPU µs/job", better: lowerBetter, decimals: 1},
			{key: "drain_client_cpu_us", label: "drain: client CPU µs/job", better: lowerBetter, decimals: 1},
			{key: "drain_net_bytes", label: "drain: network bytes/job", better: lowerBetter},
		},
	}
}

// runDrain enqueues cfg.n jobs, then times workers emptying the queue, and
// meters both phases.
func runDrain(ctx context.Context, e *runEnv) (metrics, error) {
	n := e.cfg.n
	tr := newTracker(n)
	m := metrics{}

	enq, err := e.meter.begin(ctx)
	if err != nil {
		return nil, err
	}
	ectx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	err = produce(ectx, n, producers, func(ctx context.Context, id int) error {
		ts := time.Now().UnixNano()
		return e.sys.Enqueue(ctx, e.queue, encodePayload(uint32(id), ts, ts), 0)
	})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("pre-enqueue: %w", err)
	}
	enqCost, err := e.meter.end(ctx, enq)
	if err != nil {
		return nil, err
	}
	putCost(m, "enqueue", enqCost, n)
	m.set("memory_bytes_per_job", enqCost.memory/float64(n))
	e.commands["enqueue"] = enqCost.commands

	drn, err := e.meter.begin(ctx)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	stop, err := e.sys.StartWorkers(e.queue, e.cfg.concurrency, tr.deliver)
	if err != nil {
		return nil, fmt.Errorf("start workers: %w", err)
	}
	waitErr := tr.wait(ctx, start.Add(e.cfg.timeout))
	var drnCost phaseCost
	if waitErr == nil {
		drnCost, waitErr = e.meter.end(ctx, drn)
	}
	if err := finish(ctx, stop, waitErr); err != nil {
		return nil, err
	}
	putCost(m, "drain", drnCost, n)
	e.commands["drain"] = drnCost.commands

	startNS := start.UnixNano()
	m.set("jobs_per_s", float64(n)/time.Duration(tr.last.Load()-startNS).Seconds())
	m.set("first_ms", float64(tr.first.Load()-startNS)/1e6)
	putDeliveryCounts(m, tr)
	return m, nil
}

// putCost stores a phase's cost per job under the phase's metric keys.
func putCost(m metrics, phase string, c phaseCost, n int) {
	per := float64(n)
	m.set(phase+"_cmds_per_job", float64(c.calls)/per)
	m.set(phase+"_reads_per_job", c.reads/per)
	m.set(phase+"_redis_cpu_us", c.redisCPU*1e6/per)
	m.set(phase+"_client_cpu_us", float64(c.clientCPU.Microseconds())/per)
	m.set(phase+"_net_bytes", c.netBytes/per)
}
