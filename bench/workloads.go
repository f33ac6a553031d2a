package main

import (
	"context"
	"fmt"
	"time"
)

// Fixed parameters of the workloads.
const (
	producers      = 8                                     // enqueue goroutines of the throughput workloads
	pacedProducers = 4                                     // producers of the latency workload
	batchSize      = 100                                   // jobs per EnqueueMany call
	delayMin       = 1 * time.Second                       // shortest delay of the delayed workload
	delayMax       = 3 * time.Second                       // longest delay of the delayed workload
	settle         = 250 * time.Millisecond                // workers run this long before paced or delayed jobs are sent
	grace          = 1 * time.Second                       // workers keep running this long after the last delivery, to catch duplicates
	delaySeed      = 20240601                              // seed of the delays, the same for every system and run
	workloadsAll   = "enqueue,batch,drain,latency,delayed" // the default of -workloads
)

// runEnv is what a workload's run function gets: the configuration, a
// freshly opened system, a queue name no other run uses, the meter, and a
// place for the per-command mix of the run's phases.
type runEnv struct {
	cfg      *config
	sys      System
	queue    string
	meter    meter
	commands map[string]map[string]int64
}

// workload is one measured scenario. A run returns its metrics or an error
// (the run is then FAILED).
type workload struct {
	id         string // unique name in results and JSON
	flag       string // its name in -workloads
	needsBatch bool   // only systems implementing BatchEnqueuer run it
	tables     []table
	run        func(ctx context.Context, e *runEnv) (metrics, error)
}

// workloadList returns every workload, in the order they run, with table
// descriptions filled in from cfg.
func workloadList(cfg *config) []workload {
	throughput := []metric{{key: "jobs_per_s", label: "jobs/s", better: higherBetter}}
	return []workload{
		{
			id: "enqueue-8", flag: "enqueue",
			tables: []table{{
				title:   fmt.Sprintf("Enqueue, %d producers", producers),
				about:   fmt.Sprintf("%s jobs, %d goroutines calling Enqueue one job per call; jobs/s over the whole enqueue.", num(cfg.n), producers),
				metrics: throughput,
			}},
			run: func(ctx context.Context, e *runEnv) (metrics, error) { return runEnqueue(ctx, e, producers) },
		},
		{
			id: "enqueue-1", flag: "enqueue",
			tables: []table{{
				title:   "Enqueue, 1 producer",
				about:   fmt.Sprintf("%s jobs from one goroutine, one Enqueue call after the other: the round-trip cost of a single enqueue.", num(cfg.n)),
				metrics: throughput,
			}},
			run: func(ctx context.Context, e *runEnv) (metrics, error) { return runEnqueue(ctx, e, 1) },
		},
		{
			id: "batch", flag: "batch", needsBatch: true,
			tables: []table{{
				title:   "Batch enqueue",
				about:   fmt.Sprintf("%s jobs, %d goroutines, %d jobs per call (hopper: EnqueueMany). n/a: the library has no batch enqueue.", num(cfg.n), producers, batchSize),
				metrics: throughput,
			}},
			run: runBatch,
		},
		{
			id: "drain", flag: "drain",
			tables: []table{drainTable(cfg), costTable(cfg)},
			run:    runDrain,
		},
		{
			id: "latency", flag: "latency",
			tables: []table{latencyTable(cfg)},
			run:    runLatency,
		},
		{
			id: "delayed", flag: "delayed",
			tables: []table{delayedTable(cfg)},
			run:    runDelayed,
		},
	}
}

// runEnqueue measures enqueue throughput of cfg.n jobs from the given
// number of producers.
func runEnqueue(ctx context.Context, e *runEnv, producers int) (metrics, error) {
	ctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	defer cancel()
	start := time.Now()
	err := produce(ctx, e.cfg.n, producers, func(ctx context.Context, id int) error {
		ts := time.Now().UnixNano()
		return e.sys.Enqueue(ctx, e.queue, encodePayload(uint32(id), ts, ts), 0)
	})
	if err != nil {
		return nil, err
	}
	m := metrics{}
	m.set("jobs_per_s", float64(e.cfg.n)/time.Since(start).Seconds())
	return m, nil
}

// runBatch measures batch enqueue throughput: cfg.n jobs in calls of
// batchSize from the producers.
func runBatch(ctx context.Context, e *runEnv) (metrics, error) {
	b := e.sys.(BatchEnqueuer)
	ctx, cancel := context.WithTimeout(ctx, e.cfg.timeout)
	defer cancel()
	batches := (e.cfg.n + batchSize - 1) / batchSize
	start := time.Now()
	err := produce(ctx, batches, producers, func(ctx context.Context, batch int) error {
		first := batch * batchSize
		ps := make([][]byte, min(batchSize, e.cfg.n-first))
		ts := time.Now().UnixNano()
		for i := range ps {
			ps[i] = encodePayload(uint32(first+i), ts, ts)
		}
		return b.EnqueueBatch(ctx, e.queue, ps)
	})
	if err != nil {
		return nil, err
	}
	m := metrics{}
	m.set("jobs_per_s", float64(e.cfg.n)/time.Since(start).Seconds())
	return m, nil
}

// putDeliveryCounts stores the duplicate and foreign delivery counts.
func putDeliveryCounts(m metrics, tr *tracker) {
	m.set("duplicates", float64(tr.duplicates()))
	if f := tr.foreign.Load(); f > 0 {
		m.set("foreign", float64(f))
	}
}

// finish ends a run whose workers are running: after a successful wait
// (waitErr nil) it keeps them running for grace, then stops them. It
// returns waitErr if set, else the stop's error.
func finish(ctx context.Context, stop func() error, waitErr error) error {
	if waitErr == nil {
		waitErr = sleepCtx(ctx, grace)
	}
	stopErr := stopWithin(stop)
	if waitErr != nil {
		return waitErr
	}
	if stopErr != nil {
		return fmt.Errorf("stop workers: %w", stopErr)
	}
	return nil
}
