package middleware

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
)

// TracingEnqueue returns client middleware, for hopper.Client.Use, that
// traces each enqueue with PRODUCER spans and stores each job's creation
// context in its metadata (PreparedJob.Meta, with the Propagator of cfg
// and MetaCarrier), where Tracing finds it to continue the trace in the
// worker.
//
// cfg may be nil, which means the zero TracingConfig: spans from the global
// TracerProvider (otel.GetTracerProvider, read by this call) and creation
// contexts written with the global propagator (otel.GetTextMapPropagator,
// read on every enqueue; W3C trace context while none is set). A zero
// field of a non-nil cfg means the same default; NewRoot is ignored (it is
// Tracing's). TracingEnqueue copies what it needs from cfg before it
// returns; changing cfg afterwards has no effect.
//
// The spans follow the OpenTelemetry messaging conventions, which give every
// message its own creation context:
//
//   - Enqueue (a batch of one job): one PRODUCER span "send <queue>",
//     messaging.operation.type "send", whose context is the job's creation
//     context. It covers the store call.
//   - EnqueueMany (a batch of several jobs): one PRODUCER span "create
//     <queue>" per job (operation type "create"), whose context becomes that
//     job's creation context, and one CLIENT span "send <queue>" for the store
//     call, with messaging.batch.message_count and a link to each job's
//     creation context (at most the tracer's link limit, 128 by default). The
//     send span is CLIENT, not PRODUCER, because no consumer continues it.
//     When the jobs go to several queues the send span is named "send" and
//     has no destination.
//
// All of them are children of the span in the caller's context, so an
// enqueue made while handling a request belongs to the request's trace.
// A job whose metadata already carries a valid creation context (a job
// copied from another store, or one the caller injected itself) keeps it
// unchanged and gets no create span; the send span links to it and is a
// CLIENT span if that was the batch's only job.
//
// Producer span attributes: messaging.system ("hopper"),
// messaging.operation.type, messaging.operation.name ("send" or "create"),
// messaging.destination.name, and per job messaging.message.id,
// messaging.message.body.size and hopper.job.kind; hopper.job.duplicate is
// set when the store reported the job as a duplicate. A failed store call is
// recorded on every span of the batch as an exception event with an Error
// status and error.type.
//
// The keys the propagator writes
// ("traceparent", "tracestate" for W3C trace context) replace any the caller
// set. The returned middleware is safe for concurrent use: one value may
// serve every enqueue of every client it is given to.
func TracingEnqueue(cfg *TracingConfig) hopper.EnqueueMiddleware {
	tr := newTracer(cfg)
	return func(next hopper.EnqueueFunc) hopper.EnqueueFunc {
		return func(ctx context.Context, jobs []*hopper.PreparedJob) ([]*hopper.JobInfo, error) {
			if len(jobs) == 0 {
				return next(ctx, jobs)
			}
			return tr.enqueue(ctx, jobs, next)
		}
	}
}

func (tr *tracer) enqueue(ctx context.Context, jobs []*hopper.PreparedJob, next hopper.EnqueueFunc) ([]*hopper.JobInfo, error) {
	prop := tr.propagator()
	batch := len(jobs) > 1
	// Creation contexts: a create span per job of a batch, or the custom
	// context a job carries already.
	links := make([]trace.Link, 0, len(jobs))
	var creates []trace.Span // parallel to jobs when batch; nil entries for custom contexts
	if batch {
		creates = make([]trace.Span, len(jobs))
	}
	custom := false
	for i, j := range jobs {
		if _, sc := tr.extract(ctx, j.Meta()); sc.IsValid() {
			custom = true
			links = append(links, trace.Link{SpanContext: sc, Attributes: []attribute.KeyValue{semconv.MessagingMessageID(j.ID())}})
			continue
		}
		if !batch {
			continue
		}
		cctx, span := tr.t.Start(ctx, opCreate+" "+j.Queue(),
			trace.WithSpanKind(trace.SpanKindProducer),
			trace.WithAttributes(producerAttrs(opCreate, j)...))
		creates[i] = span
		inject(prop, cctx, j)
		links = append(links, trace.Link{SpanContext: span.SpanContext(), Attributes: []attribute.KeyValue{semconv.MessagingMessageID(j.ID())}})
	}

	// The send span. For a single job without a custom context it is the
	// creation context itself: PRODUCER, injected into the job.
	queue := jobs[0].Queue()
	for _, j := range jobs[1:] {
		if j.Queue() != queue {
			queue = ""
			break
		}
	}
	kind := trace.SpanKindClient
	var attrs []attribute.KeyValue
	if !batch {
		attrs = producerAttrs(opSend, jobs[0])
		if !custom {
			kind = trace.SpanKindProducer
		}
	} else {
		attrs = []attribute.KeyValue{
			systemAttr,
			semconv.MessagingOperationTypeSend,
			semconv.MessagingOperationName(opSend),
			semconv.MessagingBatchMessageCount(len(jobs)),
		}
		if queue != "" {
			attrs = append(attrs, semconv.MessagingDestinationName(queue))
		}
	}
	name := opSend
	if queue != "" {
		name += " " + queue
	}
	sctx, send := tr.t.Start(ctx, name,
		trace.WithSpanKind(kind),
		trace.WithAttributes(attrs...),
		trace.WithLinks(links...))
	if !batch && !custom {
		inject(prop, sctx, jobs[0])
	}

	if batch {
		linkDependencies(jobs, creates)
	}
	res, err := next(sctx, jobs)

	end := func(span trace.Span, i int) {
		e := err
		if e == nil && i >= 0 && i < len(res) {
			e = res[i].Err // this job's queue alone failed
		}
		if e != nil {
			span.SetAttributes(semconv.ErrorTypeKey.String(errorType(ctx, e)))
			recordError(span, e)
		} else if i >= 0 && i < len(res) && res[i].Duplicate {
			span.SetAttributes(AttrJobDuplicate.Bool(true))
		}
		span.End()
	}
	for i, span := range creates {
		if span != nil {
			end(span, i)
		}
	}

	if batch {
		end(send, -1)
	} else {
		end(send, 0)
	}
	return res, err
}

// inject stores the span context of ctx in the job's metadata.
func inject(prop propagation.TextMapPropagator, ctx context.Context, j *hopper.PreparedJob) {
	prop.Inject(ctx, MetaCarrier(j.Meta()))
}
