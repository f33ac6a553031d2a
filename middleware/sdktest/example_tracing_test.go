package sdktest_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
)

type SendEmail struct{ To string }

func (SendEmail) Kind() string { return "send_email" }

// The producer traces enqueues with TracingEnqueue and the worker continues
// the trace with Tracing: the handler runs in the trace of the request that
// enqueued the job.
func ExampleTracing() {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	opts := &middleware.TracingConfig{TracerProvider: tp, Propagator: propagation.TraceContext{}}

	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	client.Use(middleware.TracingEnqueue(opts))

	w := hopper.NewWorker(store, &hopper.WorkerConfig{Logger: slog.New(slog.DiscardHandler)})
	w.Use(middleware.Tracing(opts))
	handled := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		close(handled)
		return nil
	})
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()

	reqCtx, request := tp.Tracer("shop").Start(ctx, "POST /signup")
	if _, err := hopper.Enqueue(reqCtx, client, SendEmail{To: "a@example.com"}, nil); err != nil {
		panic(err)
	}
	request.End()
	<-handled
	for len(spans.Ended()) < 3 {
		time.Sleep(time.Millisecond) // poll until the process span has ended
	}
	stop()
	<-done

	trace := request.SpanContext().TraceID()
	for _, s := range tracetest.SpanStubsFromReadOnlySpans(spans.Ended()) {
		fmt.Printf("%-16s %-9v same trace: %v\n", s.Name, s.SpanKind, s.SpanContext.TraceID() == trace)
	}
	// Unordered output:
	// send default     producer  same trace: true
	// POST /signup     internal  same trace: true
	// process default  consumer  same trace: true
}
