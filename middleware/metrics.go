package middleware

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/hopperq/hopper"
)

// Names of the instruments Metrics and RegisterQueueMetrics create. The
// first two are defined by the OpenTelemetry messaging conventions; the
// others are hopper's, under the hopper namespace.
const (
	// MetricProcessDuration is a histogram of how long each attempt's
	// handler ran, in seconds ("s").
	MetricProcessDuration = "messaging.process.duration"
	// MetricConsumedMessages counts attempts, one per delivery of a job to
	// its handler, by outcome ("{message}").
	MetricConsumedMessages = "messaging.client.consumed.messages"
	// MetricWaitDuration is a histogram of how long each attempt waited
	// between falling due and starting, in seconds ("s").
	MetricWaitDuration = "hopper.job.wait.duration"
	// MetricActiveJobs is an up-down counter of the attempts running now
	// ("{job}").
	MetricActiveJobs = "hopper.job.active"
	// MetricQueueJobs is a gauge of the jobs in each state of each queue,
	// read from the store ("{job}").
	MetricQueueJobs = "hopper.queue.jobs"
	// MetricQueueLatency is a gauge of the age of each queue's oldest ready
	// job since it fell due, read from the store ("s").
	MetricQueueLatency = "hopper.queue.latency"
)

// durationBuckets are the bucket boundaries, in seconds, of both duration
// histograms: those the messaging conventions advise (5 ms to 10 s), then up
// to an hour, since jobs run, and wait, far longer than messages. A view
// may replace them.
var durationBuckets = []float64{
	0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
	30, 60, 120, 300, 600, 1800, 3600,
}

// MetricsConfig configures Metrics. The zero value (or nil) means defaults.
// Metrics reads it once; changing it afterwards has no effect.
type MetricsConfig struct {
	// MeterProvider creates the meter. Defaults to the global one
	// (otel.GetMeterProvider), read when the middleware is built.
	MeterProvider metric.MeterProvider
}

// Metrics returns worker middleware that records OpenTelemetry metrics for
// every attempt of a job.
//
// cfg may be nil, which means the zero MetricsConfig: the instruments come
// from the global MeterProvider (otel.GetMeterProvider), read by this call;
// a nil MeterProvider in a non-nil cfg means the same. Metrics creates its
// instruments before it returns and keeps nothing of cfg; changing cfg
// afterwards has no effect.
//
// Instruments:
//
//   - messaging.client.consumed.messages (counter, "{message}"): one per
//     attempt, recorded when it ends, with hopper.job.outcome; so "jobs by
//     outcome" is this counter summed by hopper.job.outcome.
//   - messaging.process.duration (histogram, "s"): how long the rest of the
//     chain and the handler ran, with hopper.job.outcome.
//   - hopper.job.wait.duration (histogram, "s"): from when the attempt fell
//     due (the later of the job's EnqueuedAt and RunAt: its enqueue, delay,
//     snooze or retry backoff) until it started. Due times come from the
//     store's clock and the start from this process's, so clock skew shows
//     here; negative waits count as zero.
//   - hopper.job.active (up-down counter, "{job}"): attempts running now.
//
// Every measurement carries messaging.system ("hopper"),
// messaging.operation.name ("process"), messaging.destination.name (the
// queue) and hopper.job.kind; those recorded at the end of a failed attempt
// (retry, garbage, cancel) also carry error.type (see the package
// documentation). The outcome is the one the worker decides
// (hopper.AttemptOutcome).
//
// Queue depths are not recorded here but read from the store at collection
// time: see RegisterQueueMetrics. The returned middleware is safe for
// concurrent use; several workers may share it.
func Metrics(cfg *MetricsConfig) hopper.Middleware {
	var o MetricsConfig
	if p := cfg; p != nil {
		o = *p
	}
	mp := o.MeterProvider
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	m := newAttemptMetrics(mp.Meter(instrumentationName, metric.WithSchemaURL(semconv.SchemaURL)))
	return func(next hopper.Handler) hopper.Handler {
		return hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error {
			start := time.Now()
			base := m.attrs(attrKey{queue: job.Queue, kind: job.Kind})
			m.wait.Record(ctx, max(start.Sub(dueAt(job)), 0).Seconds(), base)
			m.active.Add(ctx, 1, base)
			defer m.active.Add(ctx, -1, base) // also when a panic passes through
			err := next.Handle(ctx, job)
			elapsed := time.Since(start).Seconds()
			k := attrKey{queue: job.Queue, kind: job.Kind, outcome: attemptOutcome(ctx, job, err)}
			if err != nil && failed(k.outcome) {
				k.errType = errorType(ctx, err)
			}
			end := m.attrs(k)
			m.duration.Record(ctx, elapsed, end)
			m.consumed.Add(ctx, 1, end)
			return err
		})
	}
}

// dueAt is when the job's current attempt fell due.
func dueAt(job *hopper.JobRecord) time.Time {
	if job.RunAt.After(job.EnqueuedAt) {
		return job.RunAt
	}
	return job.EnqueuedAt
}

type attemptMetrics struct {
	duration metric.Float64Histogram
	wait     metric.Float64Histogram
	consumed metric.Int64Counter
	active   metric.Int64UpDownCounter

	// cache maps attrKey to its metric.MeasurementOption, so that the
	// attribute set of a queue, kind and outcome is built once.
	cache  sync.Map
	cached atomic.Int64
}

// maxCachedAttrs bounds the attribute cache: beyond it (a flood of unknown
// kinds), sets are built on each use.
const maxCachedAttrs = 4096

type attrKey struct {
	queue, kind string
	outcome     hopper.Outcome // 0 for measurements taken before the outcome is known
	errType     string
}

func newAttemptMetrics(meter metric.Meter) *attemptMetrics {
	m := &attemptMetrics{}
	var err error
	m.duration, err = meter.Float64Histogram(MetricProcessDuration,
		metric.WithDescription("Duration of processing operation."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	handle(err)
	m.wait, err = meter.Float64Histogram(MetricWaitDuration,
		metric.WithDescription("Time a job waited between falling due and the start of its attempt."),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(durationBuckets...))
	handle(err)
	m.consumed, err = meter.Int64Counter(MetricConsumedMessages,
		metric.WithDescription("Number of messages that were delivered to the application."),
		metric.WithUnit("{message}"))
	handle(err)
	m.active, err = meter.Int64UpDownCounter(MetricActiveJobs,
		metric.WithDescription("Number of job attempts running."),
		metric.WithUnit("{job}"))
	handle(err)
	return m
}

// handle reports an error creating an instrument to the global OpenTelemetry
// error handler; the instrument returned with it still works (as a no-op).
func handle(err error) {
	if err != nil {
		otel.Handle(err)
	}
}

func (m *attemptMetrics) attrs(k attrKey) metric.MeasurementOption {
	if v, ok := m.cache.Load(k); ok {
		return v.(metric.MeasurementOption)
	}
	kv := make([]attribute.KeyValue, 0, 6)
	kv = append(kv,
		systemAttr,
		semconv.MessagingOperationName(opProcess),
		semconv.MessagingDestinationName(k.queue),
		AttrJobKind.String(k.kind))
	if k.outcome != 0 {
		kv = append(kv, AttrJobOutcome.String(k.outcome.String()))
	}
	if k.errType != "" {
		kv = append(kv, semconv.ErrorTypeKey.String(k.errType))
	}
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	if m.cached.Load() < maxCachedAttrs {
		if _, loaded := m.cache.LoadOrStore(k, opt); !loaded {
			m.cached.Add(1)
		}
	}
	return opt
}
