package middleware

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/hopperq/hopper"
	hstore "github.com/hopperq/hopper/store"
)

// QueueMetricsConfig configures RegisterQueueMetrics. The zero value (or
// nil) means defaults. RegisterQueueMetrics copies it; changing it
// afterwards has no effect.
type QueueMetricsConfig struct {
	// MeterProvider creates the meter. Defaults to the global one
	// (otel.GetMeterProvider), read at registration.
	MeterProvider metric.MeterProvider
	// Queues lists the queues to report. Defaults to every queue the store
	// has seen (Store.ListQueues), listed again at each collection.
	Queues []string
	// Timeout bounds the store calls of one collection. Defaults to 5 s.
	Timeout time.Duration
}

// RegisterQueueMetrics registers gauges that read queue depths from store
// each time the metrics are collected (a callback on the meter; nothing
// polls in between). A nil cfg means defaults.
//
// Instruments:
//
//   - hopper.queue.jobs (gauge, "{job}"): jobs in each state, with
//     messaging.destination.name (the queue) and hopper.job.state
//     ("pending", "ready", "unack", "retry", "garbage", "done"); every state
//     is reported, zeros included.
//   - hopper.queue.latency (gauge, "s"): how long the oldest ready job has
//     waited since it fell due (hopper.QueueStats.Latency), with
//     messaging.destination.name; zero when nothing is ready.
//
// Both also carry messaging.system ("hopper"). Each collection calls
// Inspector.ListQueues (unless cfg.Queues is set) and Inspector.GetQueueStats
// once per queue, within cfg.Timeout; a failing or late queue is left out of that
// collection and the errors are returned to the meter's reader, which
// reports them (otel.Handle for periodic readers).
//
// The numbers describe the whole store, not this process: register them in
// one process per store (a worker, the dashboard, a sidecar), or expect one
// identical series per process that does. They are gauges, not up-down
// counters, so that several processes reporting the same store are never
// summed.
//
// unregister removes the callback; after it, collections no longer call the
// store. RegisterQueueMetrics returns an error when the instruments or the
// callback cannot be registered, and panics if store is nil.
func RegisterQueueMetrics(store hopper.Store, cfg *QueueMetricsConfig) (unregister func() error, err error) {
	if store == nil {
		panic("middleware: RegisterQueueMetrics with a nil Store")
	}
	var o QueueMetricsConfig
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
	jobs, err := meter.Int64ObservableGauge(MetricQueueJobs,
		metric.WithDescription("Number of jobs in each state of a queue."),
		metric.WithUnit("{job}"))
	if err != nil {
		return nil, fmt.Errorf("middleware: %s: %w", MetricQueueJobs, err)
	}
	latency, err := meter.Float64ObservableGauge(MetricQueueLatency,
		metric.WithDescription("Age of the oldest ready job of a queue since it fell due."),
		metric.WithUnit("s"))
	if err != nil {
		return nil, fmt.Errorf("middleware: %s: %w", MetricQueueLatency, err)
	}
	reg, err := meter.RegisterCallback(func(ctx context.Context, obs metric.Observer) error {
		ctx, cancel := context.WithTimeout(ctx, o.Timeout)
		defer cancel()
		queues := o.Queues
		if queues == nil {
			var err error
			if queues, err = ins.ListQueues(ctx); err != nil {
				return fmt.Errorf("hopper queue metrics: listing queues: %w", err)
			}
		}
		var errs []error
		for _, q := range queues {
			st, err := ins.GetQueueStats(ctx, q)
			if err != nil {
				errs = append(errs, fmt.Errorf("hopper queue metrics: queue %q: %w", q, err))
				if ctx.Err() != nil {
					break
				}
				continue
			}
			dest := semconv.MessagingDestinationName(q)
			for _, s := range hstore.States {
				obs.ObserveInt64(jobs, st.Counts.Get(s),
					metric.WithAttributes(systemAttr, dest, AttrJobState.String(string(s))))
			}
			obs.ObserveFloat64(latency, st.Latency.Seconds(),
				metric.WithAttributeSet(attribute.NewSet(systemAttr, dest)))
		}
		return errors.Join(errs...)
	}, jobs, latency)
	if err != nil {
		return nil, fmt.Errorf("middleware: registering the queue metrics callback: %w", err)
	}
	return reg.Unregister, nil
}
