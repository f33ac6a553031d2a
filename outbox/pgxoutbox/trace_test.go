package pgxoutbox_test

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/middleware"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// TestTraceFromTransactionToHandler enqueues in a transaction whose context
// carries a span, relays through a client with TracingEnqueue and runs the
// job under Tracing: the handler runs in the transaction's trace.
func TestTraceFromTransactionToHandler(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	e.client.Use(middleware.TracingEnqueue(nil))
	relay := e.relay(t, nil)
	w := hopper.NewWorker(e.store, &hopper.WorkerConfig{
		Logger:   testutil.Logger(),
		Services: []func(context.Context) error{relay.Run},
	})
	w.Use(middleware.Tracing(nil))
	traces := make(chan trace.TraceID, 1)
	hopper.Handle(w, func(ctx context.Context, _ *hopper.Job[Welcome]) error {
		traces <- trace.SpanContextFromContext(ctx).TraceID()
		return nil
	})
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	defer func() {
		stop()
		<-done
	}()

	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID:    trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
		SpanID:     trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
		TraceFlags: trace.FlagsSampled,
	})
	txCtx := trace.ContextWithSpanContext(ctx, sc) // the request's span
	tx, err := e.pool.Begin(txCtx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = outbox.Enqueue(txCtx, e.ob, pgxoutbox.Tx(tx), Welcome{User: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(txCtx); err != nil {
		t.Fatal(err)
	}
	if got := testutil.Receive(t, traces, testutil.Wait, "the handler"); got != sc.TraceID() {
		t.Fatalf("handler ran in trace %s, want the transaction's %s", got, sc.TraceID())
	}
}
