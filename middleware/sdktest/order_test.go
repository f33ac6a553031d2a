package sdktest_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/middleware"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// TestMiddlewareOrder runs the documented chain in a worker: Tracing first,
// then Metrics and Logging, Recover innermost. The log record carries the
// attempt's span and the panic arrives as an error at every layer.
func TestMiddlewareOrder(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		rec, _, topts := newTracerProvider(t)
		reader, mp := newMeterProvider(t)
		logs := &capture{level: slog.LevelInfo}
		var order []string
		var mu sync.Mutex
		note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
		mark := func(name string) hopper.Middleware {
			return func(next hopper.Handler) hopper.Handler {
				return hopper.HandlerFunc(func(ctx context.Context, j *hopper.JobRecord) error {
					note(name + " start")
					err := next.Handle(ctx, j)
					note(name + " end")
					return err
				})
			}
		}
		cfg := testConfig()
		hooked := make(chan struct{}, 1)
		cfg.Recover = middleware.Recover(&middleware.RecoverConfig{OnPanic: func(context.Context, *hopper.JobRecord, *hopper.PanicError) {
			note("recover")
			hooked <- struct{}{}
		}})
		w := hopper.NewWorker(s, cfg)
		w.Use(
			middleware.Tracing(topts),
			mark("m1"),
			middleware.Metrics(&middleware.MetricsConfig{MeterProvider: mp}),
			middleware.Logging(slog.New(logs), nil),
			mark("m2"),
		)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			note("handler")
			panic("bug")
		})
		startWorker(t, w)
		if _, err := hopper.Enqueue(t.Context(), hopper.NewClient(s, nil), Echo{}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry}); err != nil {
			t.Fatal(err)
		}
		testutil.Receive(t, hooked, 10*time.Second, "the panic")
		span := waitSpans(t, rec, "process default", 1)[0]
		mu.Lock()
		got := strings.Join(order, " -> ")
		mu.Unlock()
		if want := "m1 start -> m2 start -> handler -> recover -> m2 end -> m1 end"; got != want {
			t.Errorf("order %s, want %s", got, want)
		}
		recs := logs.records()
		if len(recs) != 1 || recs[0].span.SpanID() != span.SpanContext().SpanID() || recs[0].attrs["outcome"].String() != "garbage" {
			t.Errorf("log records %+v, want one garbage record carrying the process span", recs)
		}
		consumed := collect(t, reader)[middleware.MetricConsumedMessages]
		if n := sumInt(t, consumed, map[attribute.Key]string{kOutcome: "garbage", kErrorType: "panic"}); n != 1 {
			t.Errorf("garbage panics counted %d, want 1", n)
		}
	})
}

// capture is a slog.Handler that keeps records, with the span context of
// the context each was logged with.
type capture struct {
	level slog.Level
	mu    sync.Mutex
	recs  []captured
}

type captured struct {
	slog.Record
	attrs map[string]slog.Value
	span  trace.SpanContext
}

func (c *capture) Enabled(_ context.Context, l slog.Level) bool { return l >= c.level }
func (c *capture) WithAttrs([]slog.Attr) slog.Handler           { return c }
func (c *capture) WithGroup(string) slog.Handler                { return c }
func (c *capture) Handle(ctx context.Context, r slog.Record) error {
	a := map[string]slog.Value{}
	r.Attrs(func(at slog.Attr) bool { a[at.Key] = at.Value; return true })
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs = append(c.recs, captured{Record: r, attrs: a, span: trace.SpanContextFromContext(ctx)})
	return nil
}

func (c *capture) records() []captured {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]captured(nil), c.recs...)
}
