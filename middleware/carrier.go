package middleware

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// MetaCarrier adapts a job's metadata (store.NewJob.Meta,
// hopper.JobRecord.Meta) to a propagation.TextMapCarrier, so that any
// OpenTelemetry propagator can inject context into a job and extract it
// from one:
//
//	ctx = propagation.TraceContext{}.Extract(ctx, middleware.MetaCarrier(job.Meta))
//
// With the W3C trace context propagator the keys are "traceparent" and
// "tracestate"; with the baggage propagator, "baggage". Set on a nil
// MetaCarrier panics, like any write to a nil map. A MetaCarrier is as safe
// for concurrent use as the map it wraps.
type MetaCarrier map[string]string

var _ propagation.TextMapCarrier = MetaCarrier(nil)

// Get returns the value stored under key, or "".
func (c MetaCarrier) Get(key string) string { return c[key] }

// Set stores value under key, replacing any value there.
func (c MetaCarrier) Set(key, value string) { c[key] = value }

// Keys lists the keys, in no particular order.
func (c MetaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// propagatorOr returns p, or when p is nil the global propagator as
// otel.SetTextMapPropagator set it. The global one is read on every call, so
// setting it after building the middleware takes effect. While no global
// propagator is set (the default is one that carries nothing), it returns
// W3C trace context, so that a trace crosses from producer to worker without
// any set-up.
func propagatorOr(p propagation.TextMapPropagator) propagation.TextMapPropagator {
	if p != nil {
		return p
	}
	if g := otel.GetTextMapPropagator(); len(g.Fields()) > 0 {
		return g
	}
	return propagation.TraceContext{}
}
