package middleware

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
)

// instrumentationName names the tracer and the meter of this package.
const instrumentationName = "github.com/hopperq/hopper/middleware"

// TracingConfig configures Tracing and TracingEnqueue. The zero value (or
// nil) means defaults. They read it once; changing it afterwards has no
// effect, and one TracingConfig may serve both.
type TracingConfig struct {
	// TracerProvider creates the tracer. Defaults to the global one
	// (otel.GetTracerProvider), read when the middleware is built.
	TracerProvider trace.TracerProvider
	// Propagator injects the creation context into a job's metadata and
	// extracts it again; the producer and the worker must use the same
	// one. Defaults to the global propagator (otel.GetTextMapPropagator),
	// read on every job, or W3C trace context while no global propagator
	// is set, so that traces cross from producer to worker out of the box.
	Propagator propagation.TextMapPropagator
	// NewRoot makes each attempt's span the root of a new trace, linked to
	// the job's creation context instead of continuing it. Use it when a
	// job's attempts may span days (long traces are hard to store and
	// read) or when producers are not trusted to choose your trace IDs.
	// Defaults to false: the attempt continues the producer's trace.
	// Tracing only; TracingEnqueue ignores it.
	NewRoot bool
}

// tracer holds what both tracing middleware need.
type tracer struct {
	t       trace.Tracer
	prop    propagation.TextMapPropagator // nil: the global or trace context
	newRoot bool
}

func newTracer(cfg *TracingConfig) *tracer {
	var o TracingConfig
	if cfg != nil {
		o = *cfg
	}
	tp := o.TracerProvider
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	return &tracer{
		t:       tp.Tracer(instrumentationName, trace.WithSchemaURL(semconv.SchemaURL)),
		prop:    o.Propagator,
		newRoot: o.NewRoot,
	}
}

// Tracing returns worker middleware that runs each attempt of a job in a
// CONSUMER span that continues the trace of the job's producer, following
// the OpenTelemetry messaging conventions for a push-based "process"
// operation.
//
// cfg may be nil, which means the zero TracingConfig: spans from the global
// TracerProvider (otel.GetTracerProvider, read by this call), creation
// contexts read with the global propagator (otel.GetTextMapPropagator, read
// on every job; W3C trace context while none is set), and NewRoot false, so
// that each attempt continues the producer's trace. A zero field of a
// non-nil cfg means the same default. Tracing copies what it needs from cfg
// before it returns; changing cfg afterwards has no effect.
//
// The producer's creation context is read from the job's metadata, where
// TracingEnqueue (or any code using the same propagator with MetaCarrier)
// put it. Each attempt gets a span named "process <queue>" that is a child
// of that context, so one trace runs from Enqueue through every attempt of
// the handler, and that also links to it, as the conventions require of a
// process span (a link is what tools follow when the parent is not
// available, and what remains with NewRoot). A retried job has one span per
// attempt, all children of the same creation context. A job without a
// creation context (enqueued without TracingEnqueue) gets a root span: the
// span of the context Worker.Run was given is never used as a parent.
//
// Span attributes, set when the span starts:
//
//   - messaging.system: "hopper" (SystemName)
//   - messaging.operation.type: "process"
//   - messaging.operation.name: "process"
//   - messaging.destination.name: the queue
//   - messaging.message.id: the job ID
//   - messaging.message.body.size: the size of the encoded args, in bytes
//   - hopper.job.kind, hopper.job.attempt
//
// and when it ends, hopper.job.outcome ("ack", "retry", "garbage", "snooze"
// or "cancel"). A failed attempt (retry, garbage, cancel) also gets
// error.type (see the package documentation), the error recorded as an
// exception event (with exception.stacktrace for a panic) and an Error
// status; a snooze is not an error.
//
// The outcome is the one the worker decides (hopper.AttemptOutcome),
// including "release" for an attempt interrupted by a shutdown and
// "lease_lost" for one whose lease was lost.
//
// The handler's context carries the span, so its own spans and logs nest
// under it. The returned middleware is safe for concurrent use: one value
// may serve every attempt of every worker it is given to.
func Tracing(cfg *TracingConfig) hopper.Middleware {
	tr := newTracer(cfg)
	return func(next hopper.Handler) hopper.Handler {
		return hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error {
			ctx, span := tr.startProcess(ctx, job)
			ended := false
			defer func() {
				if !ended { // a panic is passing through
					span.SetStatus(codes.Error, "panic")
					span.End()
				}
			}()
			err := next.Handle(ctx, job)
			ended = true
			tr.endProcess(ctx, span, job, err)
			return err
		})
	}
}

// propagator returns the propagator to use now.
func (tr *tracer) propagator() propagation.TextMapPropagator { return propagatorOr(tr.prop) }

// extract returns ctx with the creation context carried in meta (and
// baggage, if the propagator carries it) and that span context, invalid when
// meta carries none. Any span ctx had is dropped first, so that it never
// passes for the job's creation context.
func (tr *tracer) extract(ctx context.Context, meta map[string]string) (context.Context, trace.SpanContext) {
	ctx = trace.ContextWithSpanContext(ctx, trace.SpanContext{})
	if len(meta) == 0 {
		return ctx, trace.SpanContext{}
	}
	ctx = tr.propagator().Extract(ctx, MetaCarrier(meta))
	return ctx, trace.SpanContextFromContext(ctx)
}

func (tr *tracer) startProcess(ctx context.Context, job *hopper.JobRecord) (context.Context, trace.Span) {
	ctx, creation := tr.extract(ctx, job.Meta)
	opts := []trace.SpanStartOption{
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			systemAttr,
			semconv.MessagingOperationTypeProcess,
			semconv.MessagingOperationName(opProcess),
			semconv.MessagingDestinationName(job.Queue),
			semconv.MessagingMessageID(job.ID),
			semconv.MessagingMessageBodySize(len(job.Args)),
			AttrJobKind.String(job.Kind),
			AttrJobAttempt.Int(job.Attempt),
		),
	}
	if creation.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: creation}))
	}
	if links := dependencyLinks(job.Meta); links != nil {
		opts = append(opts, trace.WithLinks(links...))
	}
	if tr.newRoot || !creation.IsValid() {
		opts = append(opts, trace.WithNewRoot())
	}
	return tr.t.Start(ctx, opProcess+" "+job.Queue, opts...)
}

func (tr *tracer) endProcess(ctx context.Context, span trace.Span, job *hopper.JobRecord, err error) {
	o := attemptOutcome(ctx, job, err)
	span.SetAttributes(AttrJobOutcome.String(o.String()))
	if err != nil && failed(o) {
		span.SetAttributes(semconv.ErrorTypeKey.String(errorType(ctx, err)))
		recordError(span, err)
	}
	span.End()
}

// recordError adds err to span as an exception event (with the stack of a
// panic) and sets the Error status.
func recordError(span trace.Span, err error) {
	var opts []trace.EventOption
	var p *hopper.PanicError
	if errors.As(err, &p) && len(p.Stack) > 0 {
		opts = append(opts, trace.WithAttributes(semconv.ExceptionStacktrace(string(p.Stack))))
	}
	span.RecordError(err, opts...)
	span.SetStatus(codes.Error, err.Error())
}

// producerAttrs are the attributes of a create span, or of the send span of
// a single job.
func producerAttrs(op string, j *hopper.PreparedJob) []attribute.KeyValue {
	typ := semconv.MessagingOperationTypeSend
	if op == opCreate {
		typ = semconv.MessagingOperationTypeCreate
	}
	return []attribute.KeyValue{
		systemAttr,
		typ,
		semconv.MessagingOperationName(op),
		semconv.MessagingDestinationName(j.Queue()),
		semconv.MessagingMessageID(j.ID()),
		semconv.MessagingMessageBodySize(len(j.Args())),
		AttrJobKind.String(j.Kind()),
	}
}
