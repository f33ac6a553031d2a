package pgxoutbox_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/embedded"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// TestRelayMetrics reads the relay's gauges while a committed row is held
// locked by another transaction (so the relay must skip it): depth 1, an
// age, one dead row. Once the lock goes, the relay moves the row and
// counts it; when Run returns the gauges are no longer observed.
func TestRelayMetrics(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	j, err := outbox.Enqueue(ctx, e.ob, pgxoutbox.Tx(e.pool), Welcome{User: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.pool.Exec(ctx, `INSERT INTO hopper_outbox_dead (seq, job_id, queue, kind, job, created_at, error)
		VALUES (-1, 'x', 'q', 'k', '\x00', now(), 'refused')`); err != nil {
		t.Fatal(err)
	}
	hold, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx) //nolint:errcheck
	if _, err := hold.Exec(ctx, `SELECT 1 FROM hopper_outbox FOR UPDATE`); err != nil {
		t.Fatal(err)
	}

	m := &fakeMeter{counts: map[string]int64{}}
	r := e.relay(t, &pgxoutbox.RelayConfig{MeterProvider: fakeProvider{m: m}, PollInterval: 20 * time.Millisecond})
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	var got map[string]float64
	testutil.Eventually(t, testutil.Wait, func() error {
		got = m.collect(t)
		if got["hopper.outbox.depth"] != 1 || got["hopper.outbox.dead"] != 1 || got["hopper.outbox.oldest_age"] <= 0 {
			return fmt.Errorf("gauges %v", got)
		}
		return nil
	})
	if err := hold.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyTrue(t, testutil.Wait, "the row relayed once the lock went", func() bool {
		return getJob(t, e.store, j.Queue, j.ID) != nil && m.count("hopper.outbox.relayed") == 1
	})
	if got := m.collect(t); got["hopper.outbox.depth"] != 0 || got["hopper.outbox.oldest_age"] != 0 {
		t.Fatalf("gauges after the relay: %v", got)
	}
	stop()
	if err := testutil.Receive(t, done, testutil.Wait, "Run to return"); err != nil {
		t.Fatal(err)
	}
	if got := m.collect(t); len(got) != 0 {
		t.Fatalf("gauges observed after Run returned: %v", got)
	}
}

// fakeProvider and fakeMeter record instruments by name, without the
// OpenTelemetry SDK (which this module does not require).
type fakeProvider struct {
	noop.MeterProvider
	m *fakeMeter
}

func (p fakeProvider) Meter(string, ...metric.MeterOption) metric.Meter { return p.m }

type fakeMeter struct {
	noop.Meter
	mu        sync.Mutex
	callbacks map[int]metric.Callback
	nextID    int
	counts    map[string]int64
}

type int64Gauge struct {
	noop.Int64ObservableGauge
	name string
}

type float64Gauge struct {
	noop.Float64ObservableGauge
	name string
}

type int64Counter struct {
	noop.Int64Counter
	name string
	m    *fakeMeter
}

func (c int64Counter) Add(_ context.Context, v int64, _ ...metric.AddOption) {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	c.m.counts[c.name] += v
}

func (m *fakeMeter) Int64ObservableGauge(name string, _ ...metric.Int64ObservableGaugeOption) (metric.Int64ObservableGauge, error) {
	return int64Gauge{name: name}, nil
}

func (m *fakeMeter) Float64ObservableGauge(name string, _ ...metric.Float64ObservableGaugeOption) (metric.Float64ObservableGauge, error) {
	return float64Gauge{name: name}, nil
}

func (m *fakeMeter) Int64Counter(name string, _ ...metric.Int64CounterOption) (metric.Int64Counter, error) {
	return int64Counter{name: name, m: m}, nil
}

type registration struct {
	embedded.Registration
	unregister func() error
}

func (r registration) Unregister() error { return r.unregister() }

func (m *fakeMeter) RegisterCallback(f metric.Callback, _ ...metric.Observable) (metric.Registration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.callbacks == nil {
		m.callbacks = map[int]metric.Callback{}
	}
	id := m.nextID
	m.nextID++
	m.callbacks[id] = f
	return registration{unregister: func() error {
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.callbacks, id)
		return nil
	}}, nil
}

// collect runs the registered callbacks, as a reader does, and returns
// what they observed by instrument name.
func (m *fakeMeter) collect(t *testing.T) map[string]float64 {
	m.mu.Lock()
	cbs := make([]metric.Callback, 0, len(m.callbacks))
	for _, f := range m.callbacks {
		cbs = append(cbs, f)
	}
	m.mu.Unlock()
	o := &observer{got: map[string]float64{}}
	for _, f := range cbs {
		if err := f(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	return o.got
}

func (m *fakeMeter) count(name string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts[name]
}

type observer struct {
	noop.Observer
	got map[string]float64
}

func (o *observer) ObserveInt64(inst metric.Int64Observable, v int64, _ ...metric.ObserveOption) {
	o.got[inst.(int64Gauge).name] = float64(v)
}

func (o *observer) ObserveFloat64(inst metric.Float64Observable, v float64, _ ...metric.ObserveOption) {
	o.got[inst.(float64Gauge).name] = v
}
