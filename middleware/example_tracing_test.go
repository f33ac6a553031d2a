package middleware_test

import (
	"context"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
)

type SendEmail struct{ To string }

func (SendEmail) Kind() string { return "send_email" }

// The producer traces enqueues with TracingEnqueue and the worker continues
// the trace with Tracing: the handler runs in the trace of the request that
// enqueued the job. Both use the global TracerProvider and propagator
// unless their options name others; install the OpenTelemetry SDK of your
// choice as usual (go run -C examples/otel . shows it with the stdout
// exporter, and middleware/sdktest checks it).
func ExampleTracing() {
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	client.Use(middleware.TracingEnqueue(nil))

	w := hopper.NewWorker(store, nil)
	w.Use(middleware.Tracing(nil))
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		// ctx carries the span of this attempt, a child of the enqueue's.
		return nil
	})
	_, _ = hopper.Enqueue(context.Background(), client, SendEmail{To: "a@example.com"}, nil)
}
