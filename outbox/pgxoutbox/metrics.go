package pgxoutbox

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// meterName names the meter of this package.
const meterName = "github.com/hopperq/hopper/outbox/pgxoutbox"

// attrTable names the outbox table on every metric.
const attrTable = attribute.Key("hopper.outbox.table")

// metrics are the relay's instruments. Creating them registers nothing;
// the gauges are observed only while Run runs.
type metrics struct {
	meter    metric.Meter
	set      metric.MeasurementOption
	depth    metric.Int64ObservableGauge
	age      metric.Float64ObservableGauge
	deadRows metric.Int64ObservableGauge
	moved    metric.Int64Counter
	buried   metric.Int64Counter
}

func newMetrics(mp metric.MeterProvider, table string) *metrics {
	m := &metrics{meter: mp.Meter(meterName), set: metric.WithAttributes(attrTable.String(table))}
	// Errors from instrument creation leave a no-op instrument: metrics
	// never stop a relay.
	m.depth, _ = m.meter.Int64ObservableGauge("hopper.outbox.depth", metric.WithUnit("{job}"),
		metric.WithDescription("Committed jobs waiting in the outbox for a relay."))
	m.age, _ = m.meter.Float64ObservableGauge("hopper.outbox.oldest_age", metric.WithUnit("s"),
		metric.WithDescription("How long the oldest waiting outbox row has waited: the relay lag."))
	m.deadRows, _ = m.meter.Int64ObservableGauge("hopper.outbox.dead", metric.WithUnit("{job}"),
		metric.WithDescription("Outbox rows the store refused, kept in the dead-letter table."))
	m.moved, _ = m.meter.Int64Counter("hopper.outbox.relayed", metric.WithUnit("{job}"),
		metric.WithDescription("Outbox rows stored by the relay and deleted."))
	m.buried, _ = m.meter.Int64Counter("hopper.outbox.dead_lettered", metric.WithUnit("{job}"),
		metric.WithDescription("Outbox rows moved to the dead-letter table."))
	return m
}

// observe registers the gauges' callback, which reads Stats, and returns
// the function that unregisters it.
func (m *metrics) observe(r *Relay) func() {
	reg, err := m.meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		s, err := r.Stats(ctx)
		if err != nil {
			return err
		}
		attrs := m.set
		o.ObserveInt64(m.depth, s.Depth, attrs)
		o.ObserveFloat64(m.age, s.Age.Seconds(), attrs)
		o.ObserveInt64(m.deadRows, s.Dead, attrs)
		return nil
	}, m.depth, m.age, m.deadRows)
	if err != nil {
		r.cfg.Logger.Warn("pgxoutbox: cannot register the outbox gauges", "error", err)
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}

// relayed counts rows a batch stored and rows it buried.
func (m *metrics) relayed(ctx context.Context, stored, buried int) {
	if stored > 0 {
		m.moved.Add(ctx, int64(stored), m.set)
	}
	if buried > 0 {
		m.buried.Add(ctx, int64(buried), m.set)
	}
}
