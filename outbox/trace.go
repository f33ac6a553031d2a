package outbox

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/middleware"
)

// instrumentationName names the tracer of this package.
const instrumentationName = "github.com/hopperq/hopper/outbox"

// startSpans starts a PRODUCER span "create <queue>" per job when ctx
// carries a span (a traced transaction), as middleware.TracingEnqueue does
// for each job of a batch, and writes its context into the job's
// metadata. The relay's client then keeps that context (TracingEnqueue
// leaves a job's creation context alone) and the worker's
// middleware.Tracing continues it: one trace from the transaction to the
// handler. Without a span in ctx it does nothing.
func (o *Outbox) startSpans(ctx context.Context, ps []*hopper.PreparedJob) []trace.Span {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	prop := o.propagator()
	spans := make([]trace.Span, len(ps))
	for i, p := range ps {
		sctx, span := o.tracer.Start(ctx, "create "+p.Queue(),
			trace.WithSpanKind(trace.SpanKindProducer),
			trace.WithAttributes(
				semconv.MessagingSystemKey.String(middleware.SystemName),
				semconv.MessagingOperationTypeCreate,
				semconv.MessagingOperationName("create"),
				semconv.MessagingDestinationName(p.Queue()),
				semconv.MessagingMessageID(p.ID()),
				middleware.AttrJobKind.String(p.Kind()),
			))
		prop.Inject(sctx, middleware.MetaCarrier(p.Meta()))
		spans[i] = span
	}
	return spans
}

// endSpans ends the spans, recording err (the write failed) on each.
func endSpans(spans []trace.Span, err error) {
	for _, s := range spans {
		if err != nil {
			s.RecordError(err)
			s.SetStatus(codes.Error, err.Error())
		}
		s.End()
	}
}

// propagator is Config.Propagator, or the global one, or W3C trace
// context while no global one is set.
func (o *Outbox) propagator() propagation.TextMapPropagator {
	if o.prop != nil {
		return o.prop
	}
	if g := otel.GetTextMapPropagator(); len(g.Fields()) > 0 {
		return g
	}
	return propagation.TraceContext{}
}
