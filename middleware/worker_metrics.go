package middleware

import (
	"context"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// MetricWorkers is a gauge of the live worker processes that work on each
// queue, read from the store's worker registry ("{worker}"); see
// RegisterWorkerMetrics.
const MetricWorkers = "hopper.workers"

// WorkerMetricsConfig configures RegisterWorkerMetrics. The zero value (or
// nil) means defaults. RegisterWorkerMetrics copies it; changing it
// afterwards has no effect.
type WorkerMetricsConfig struct {
	// MeterProvider creates the meter. Defaults to the global one
	// (otel.GetMeterProvider), read at registration.
	MeterProvider metric.MeterProvider
	// Queues lists the queues reported even when no worker works on them
	// (with 0). Defaults to every queue the store has seen
	// (Store.ListQueues), listed again at each collection.
	Queues []string
	// Timeout bounds the store calls of one collection. Defaults to 5 s.
	Timeout time.Duration
}

// RegisterWorkerMetrics registers a gauge that reads the live worker
// processes from store's worker registry (Inspector.ListWorkers) each time
// the metrics are collected (a callback on the meter; nothing polls in
// between, and nothing is read while no reader collects). A nil cfg means
// defaults.
//
// Instrument:
//
//   - hopper.workers (gauge, "{worker}"): the live worker processes whose
//     WorkerConfig.Queues include the queue, with messaging.system
//     ("hopper") and messaging.destination.name (the queue). Every queue of
//     cfg.Queues (default: every queue the store has seen) is reported,
//     zeros included, so "no worker left on a queue" is a 0 and not a
//     missing series. A worker is live until its heartbeat expires, so a
//     killed process leaves the count when its record lapses.
//
// Each collection costs one ListWorkers call (and a ListQueues unless
// cfg.Queues is set), within cfg.Timeout; an error is returned to the
// meter's reader. Like RegisterQueueMetrics, the number describes the whole
// store: register it in one process per store.
//
// unregister removes the callback. RegisterWorkerMetrics returns an error
// when the instrument or the callback cannot be registered, and panics if
// store is nil.
func RegisterWorkerMetrics(store hopper.Store, cfg *WorkerMetricsConfig) (unregister func() error, err error) {
	if store == nil {
		panic("middleware: RegisterWorkerMetrics with a nil Store")
	}
	var o WorkerMetricsConfig
	if cfg != nil {
		o = *cfg
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	o.Queues = slices.Clone(o.Queues)
	ins := hopper.NewInspector(store)
	mp := o.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	meter := mp.Meter(instrumentationName, metric.WithSchemaURL(semconv.SchemaURL))
	workers, err := meter.Int64ObservableGauge(MetricWorkers,
		metric.WithDescription("Number of live worker processes working on a queue."),
		metric.WithUnit("{worker}"))
	if err != nil {
		return nil, fmt.Errorf("middleware: %s: %w", MetricWorkers, err)
	}
	reg, err := meter.RegisterCallback(func(ctx context.Context, obs metric.Observer) error {
		ctx, cancel := context.WithTimeout(ctx, o.Timeout)
		defer cancel()
		counts, err := countWorkers(ctx, ins, o.Queues)
		for q, n := range counts {
			obs.ObserveInt64(workers, n,
				metric.WithAttributeSet(attribute.NewSet(systemAttr, semconv.MessagingDestinationName(q))))
		}
		return err
	}, workers)
	if err != nil {
		return nil, fmt.Errorf("middleware: registering the worker metrics callback: %w", err)
	}
	return reg.Unregister, nil
}

// countWorkers counts the live workers of each queue: those of queues
// (or of every queue the store lists, when queues is nil) start at zero.
// A partition ("images~2") counts the workers of its partitioned queue,
// which they name (the store lists the partitions). On an error it
// returns nothing but the error.
func countWorkers(ctx context.Context, ins *hopper.Inspector, queues []string) (map[string]int64, error) {
	if queues == nil {
		var err error
		if queues, err = ins.ListQueues(ctx); err != nil {
			return nil, fmt.Errorf("hopper worker metrics: listing queues: %w", err)
		}
	}
	ws, err := ins.ListWorkers(ctx)
	if err != nil {
		return nil, fmt.Errorf("hopper worker metrics: listing workers: %w", err)
	}
	counts := make(map[string]int64, len(queues))
	for _, q := range queues {
		counts[q] = 0
	}
	for _, w := range ws {
		for q := range w.Queues {
			counts[q]++
		}
	}
	for _, q := range queues {
		if base, _, ok := store.SplitPartition(q); ok {
			for _, w := range ws {
				if _, serves := w.Queues[base]; serves {
					counts[q]++
				}
			}
		}
	}
	return counts, nil
}
