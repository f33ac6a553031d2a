package sdktest_test

import (
	"context"
	"slices"
	"testing"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/middleware"
)

func TestMetaCarrierRoundTrip(t *testing.T) {
	_, tp, _ := newTracerProvider(t)
	ctx, span := tp.Tracer("test").Start(t.Context(), "s")
	defer span.End()
	meta := map[string]string{"user": "u1"}
	propagation.TraceContext{}.Inject(ctx, middleware.MetaCarrier(meta))
	keys := middleware.MetaCarrier(meta).Keys()
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"traceparent", "user"}) {
		t.Errorf("keys %v, want traceparent and user", keys)
	}
	got := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), middleware.MetaCarrier(meta)))
	if got.TraceID() != span.SpanContext().TraceID() || got.SpanID() != span.SpanContext().SpanID() || !got.IsRemote() {
		t.Errorf("extracted %v, want the injected span as remote", got)
	}
	if middleware.MetaCarrier(nil).Get("x") != "" || len(middleware.MetaCarrier(nil).Keys()) != 0 {
		t.Errorf("a nil carrier is not empty")
	}
}

// TestTracingDefaultPropagator checks the propagator defaults: W3C trace
// context while no global propagator is set, the global one once it is.
func TestTracingDefaultPropagator(t *testing.T) {
	_, tp, _ := newTracerProvider(t)
	opts := &middleware.TracingConfig{TracerProvider: tp} // no Propagator
	enqueue := func(ctx context.Context) map[string]string {
		var meta map[string]string
		st := func(ctx context.Context, jobs []*hopper.PreparedJob) ([]*hopper.JobInfo, error) {
			meta = jobs[0].Meta()
			return []*hopper.JobInfo{{ID: jobs[0].ID()}}, nil
		}
		if _, err := middleware.TracingEnqueue(opts)(st)(ctx, []*hopper.PreparedJob{prepared(t, "j", "q", nil)}); err != nil {
			t.Fatal(err)
		}
		return meta
	}
	defer otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())

	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator()) // carries nothing: "unset"
	if meta := enqueue(t.Context()); meta["traceparent"] == "" {
		t.Errorf("meta %v without a global propagator, want W3C trace context", meta)
	}

	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	m, _ := baggage.NewMember("tenant", "t1")
	b, _ := baggage.New(m)
	meta := enqueue(baggage.ContextWithBaggage(t.Context(), b))
	if meta["traceparent"] == "" || meta["baggage"] != "tenant=t1" {
		t.Errorf("meta %v with a global trace context and baggage propagator, want both", meta)
	}
	// And the worker side extracts the baggage into the handler's context.
	var got string
	h := middleware.Tracing(opts)(hopper.HandlerFunc(func(ctx context.Context, _ *hopper.JobRecord) error {
		got = baggage.FromContext(ctx).Member("tenant").Value()
		return nil
	}))
	if err := h.Handle(t.Context(), &hopper.JobRecord{ID: "j", Queue: "q", JobSpec: hopper.JobSpec{Meta: meta}, Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if got != "t1" {
		t.Errorf("handler saw baggage tenant=%q, want t1", got)
	}
}
