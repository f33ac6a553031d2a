package sdktest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/middleware"
	"github.com/hopperq/hopper/redisstore"
)

// TestWorkerMetricsCountLiveWorkers: hopper.workers reports, per queue, the
// live processes working on it, a zero for a queue nobody works on, and
// the drop when a worker stops.
func TestWorkerMetricsCountLiveWorkers(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		reader, mp := newMeterProvider(t)
		ctx := t.Context()
		if _, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), Echo{}, &hopper.EnqueueOpts{Queue: "idle"}); err != nil {
			t.Fatal(err)
		}
		run := func(id string, queues map[string]int) context.CancelFunc {
			cfg := testConfig()
			cfg.ID, cfg.Queues = id, queues
			w := hopper.NewWorker(s, cfg)
			hopper.Handle(w, echoHandler)
			wctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- w.Run(wctx) }()
			t.Cleanup(func() { cancel(); <-done })
			return func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("worker %s: Run returned %v", id, err)
				}
				done <- nil
			}
		}
		run("w1", map[string]int{"q1": 1, "q2": 1})
		stop2 := run("w2", map[string]int{"q1": 1})
		_, err := middleware.RegisterWorkerMetrics(s, &middleware.WorkerMetricsConfig{MeterProvider: mp})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int64{"q1": 2, "q2": 1, "idle": 0}
		waitWorkers(t, reader, want)
		stop2()
		want["q1"] = 1
		waitWorkers(t, reader, want)
	})
}

// waitWorkers collects until hopper.workers reads want for every queue,
// failing after 10 s with the last reading.
func waitWorkers(t *testing.T, reader interface {
	Collect(context.Context, *metricdata.ResourceMetrics) error
}, want map[string]int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(context.Background(), &rm); err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		var unit string
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name != middleware.MetricWorkers {
					continue
				}
				unit = m.Unit
				g, ok := m.Data.(metricdata.Gauge[int64])
				if !ok {
					t.Fatalf("%s is %T, want an int64 gauge", m.Name, m.Data)
				}
				for _, p := range g.DataPoints {
					if v, _ := p.Attributes.Value(attribute.Key("messaging.system")); v.AsString() != "hopper" {
						t.Errorf("%s point without messaging.system=hopper: %v", m.Name, p.Attributes)
					}
					q, _ := p.Attributes.Value(attribute.Key("messaging.destination.name"))
					got[q.AsString()] = p.Value
				}
			}
		}
		ok := unit == "{worker}" && len(got) == len(want)
		for q, n := range want {
			ok = ok && got[q] == n
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s (unit %q) = %v, want %v in {worker}", middleware.MetricWorkers, unit, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWorkerMetricsCountPartitions: on a partitioned queue the workers,
// which serve the queue by its name, count for each of its partitions,
// which the store lists: every partition read 0, and the documented
// HopperWorkersGone alert fired with live workers.
func TestWorkerMetricsCountPartitions(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger(), Partitions: map[string]int{"images": 2}})
	ctx := t.Context()
	c := hopper.NewClient(s, nil)
	for i := range 20 { // jobs in both partitions, which the registry then lists
		if _, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Queue: "images", ID: fmt.Sprint("img-", i)}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig()
	cfg.Queues = map[string]int{"images": 1}
	w := hopper.NewWorker(s, cfg)
	hopper.Handle(w, echoHandler)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	t.Cleanup(func() { cancel(); <-done })
	reader, mp := newMeterProvider(t)
	if _, err := middleware.RegisterWorkerMetrics(s, &middleware.WorkerMetricsConfig{MeterProvider: mp}); err != nil {
		t.Fatal(err)
	}
	waitWorkers(t, reader, map[string]int64{"images~0": 1, "images~1": 1, "images": 1})
}
