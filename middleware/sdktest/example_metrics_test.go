package sdktest_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
)

type Charge struct{ Cents int }

func (Charge) Kind() string { return "charge" }

// Metrics counts attempts by outcome; here three jobs, one of which fails
// once before it succeeds.
func ExampleMetrics() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))

	store := memstore.New(nil)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Backoff: func(int, error) time.Duration { return 0 },
		Logger:  slog.New(slog.DiscardHandler),
	})
	w.Use(middleware.Metrics(&middleware.MetricsConfig{MeterProvider: mp}))
	var acked atomic.Int32
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Charge]) error {
		if job.Args.Cents == 0 && job.Attempt == 1 {
			return errors.New("card network timeout")
		}
		acked.Add(1)
		return nil
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()

	client := hopper.NewClient(store, nil)
	if _, err := hopper.EnqueueMany(ctx, client, []Charge{{0}, {100}, {250}}, nil); err != nil {
		panic(err)
	}
	for acked.Load() < 3 {
		time.Sleep(time.Millisecond) // poll until all three succeeded
	}
	stop()
	<-done

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		panic(err)
	}
	counts := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != middleware.MetricConsumedMessages {
				continue
			}
			for _, p := range m.Data.(metricdata.Sum[int64]).DataPoints {
				o, _ := p.Attributes.Value(middleware.AttrJobOutcome)
				counts[o.AsString()] += p.Value
			}
		}
	}
	fmt.Println("ack:", counts["ack"])
	fmt.Println("retry:", counts["retry"])
	// Output:
	// ack: 3
	// retry: 1
}

// RegisterQueueMetrics reads the jobs per state of every queue from the
// store each time metrics are collected.
func ExampleRegisterQueueMetrics() {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	store := memstore.New(nil)
	unregister, err := middleware.RegisterQueueMetrics(store, &middleware.QueueMetricsConfig{MeterProvider: mp})
	if err != nil {
		panic(err)
	}
	defer unregister()

	ctx := context.Background()
	client := hopper.NewClient(store, nil)
	if _, err := hopper.EnqueueMany(ctx, client, []Charge{{1}, {2}}, &hopper.EnqueueOpts{Queue: "billing"}); err != nil {
		panic(err)
	}
	if _, err := hopper.Enqueue(ctx, client, Charge{3}, &hopper.EnqueueOpts{Queue: "billing", Delay: time.Hour}); err != nil {
		panic(err)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		panic(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != middleware.MetricQueueJobs {
				continue
			}
			for _, p := range m.Data.(metricdata.Gauge[int64]).DataPoints {
				if p.Value == 0 {
					continue
				}
				q, _ := p.Attributes.Value("messaging.destination.name")
				s, _ := p.Attributes.Value(middleware.AttrJobState)
				fmt.Printf("%s %s: %d\n", q.AsString(), s.AsString(), p.Value)
			}
		}
	}
	// Unordered output:
	// billing pending: 1
	// billing ready: 2
}
