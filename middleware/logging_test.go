package middleware_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/middleware"
)

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

func TestLoggingOneRecordPerAttempt(t *testing.T) {
	cancelled, cancel := context.WithCancelCause(t.Context())
	cancel(hopper.ErrCancelled)
	tests := []struct {
		name    string
		ctx     context.Context
		attempt int
		err     error
		level   slog.Level
		msg     string
		outcome string
	}{
		{"ack", t.Context(), 1, nil, slog.LevelInfo, "job done", "ack"},
		{"snooze", t.Context(), 1, hopper.Snooze(time.Second), slog.LevelInfo, "job snoozed", "snooze"},
		{"retry", t.Context(), 1, errors.New("flaky"), slog.LevelWarn, "job failed", "retry"},
		{"garbage", t.Context(), 3, errors.New("flaky"), slog.LevelError, "job failed", "garbage"},
		{"permanent", t.Context(), 1, hopper.Permanent(errors.New("bad")), slog.LevelError, "job failed", "garbage"},
		{"cancel", cancelled, 1, context.Canceled, slog.LevelWarn, "job cancelled", "cancel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &capture{level: slog.LevelDebug}
			mw := middleware.Logging(slog.New(h), nil)
			job := &hopper.JobRecord{ID: "j1", Queue: "q", Kind: "k", Attempt: tt.attempt, MaxRetries: 2}
			if err := mw(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { return tt.err })).Handle(tt.ctx, job); err != tt.err {
				t.Fatalf("Handle returned %v, want the handler's %v", err, tt.err)
			}
			recs := h.records()
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1", len(recs))
			}
			r := recs[0]
			if r.Level != tt.level || r.Message != tt.msg {
				t.Errorf("record %v %q, want %v %q", r.Level, r.Message, tt.level, tt.msg)
			}
			for k, want := range map[string]string{"queue": "q", "id": "j1", "kind": "k", "outcome": tt.outcome} {
				if got := r.attrs[k].String(); got != want {
					t.Errorf("attr %s = %q, want %q", k, got, want)
				}
			}
			if r.attrs["attempt"].Int64() != int64(tt.attempt) || r.attrs["duration"].Kind() != slog.KindDuration {
				t.Errorf("attempt %v duration %v, want %d and a duration", r.attrs["attempt"], r.attrs["duration"], tt.attempt)
			}
			e, hasErr := r.attrs["error"]
			if wantErr := tt.err != nil && tt.outcome != "snooze"; hasErr != wantErr || hasErr && e.Any() != tt.err {
				t.Errorf("error attr %v (present %v), want present %v", e, hasErr, wantErr)
			}
			if _, ok := r.attrs["stack"]; ok {
				t.Errorf("stack attr without a panic")
			}
		})
	}
}

func TestLoggingPanicStackAndAckLevel(t *testing.T) {
	h := &capture{level: slog.LevelInfo}
	mw := middleware.Logging(slog.New(h), &middleware.LoggingOptions{AckLevel: slog.LevelDebug})
	job := &hopper.JobRecord{ID: "j1", Queue: "q", Kind: "k", Attempt: 1, MaxRetries: 2}
	ok := mw(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { return nil }))
	if err := ok.Handle(t.Context(), job); err != nil {
		t.Fatal(err)
	}
	if n := len(h.records()); n != 0 {
		t.Errorf("%d records for an ack at Debug with the logger at Info, want 0", n)
	}
	panicked := middleware.Recover(nil)(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { panic("kaboom") }))
	_ = mw(panicked).Handle(t.Context(), job)
	recs := h.records()
	if len(recs) != 1 || recs[0].Level != slog.LevelWarn || !strings.Contains(recs[0].attrs["stack"].String(), "logging_test.go") {
		t.Fatalf("records %+v, want one Warn with the panic's stack", recs)
	}
}

func TestLoggingNilLoggerUsesDefault(t *testing.T) {
	h := &capture{level: slog.LevelInfo}
	old := slog.Default()
	slog.SetDefault(slog.New(h)) // after Logging is built: read per record
	defer slog.SetDefault(old)
	mw := middleware.Logging(nil, nil)
	if err := mw(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { return nil })).Handle(t.Context(), &hopper.JobRecord{Attempt: 1}); err != nil {
		t.Fatal(err)
	}
	if n := len(h.records()); n != 1 {
		t.Errorf("%d records on slog.Default, want 1", n)
	}
}

func TestLoggingDisabledDoesNotAllocate(t *testing.T) {
	mw := middleware.Logging(slog.New(&capture{level: slog.LevelError}), nil)
	h := mw(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { return nil }))
	job := &hopper.JobRecord{ID: "j1", Queue: "q", Kind: "k", Attempt: 1}
	ctx := t.Context()
	if n := testing.AllocsPerRun(100, func() { _ = h.Handle(ctx, job) }); n != 0 {
		t.Errorf("%v allocations per attempt with the level disabled, want 0", n)
	}
}

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
		cfg.Recover = middleware.Recover(&middleware.RecoverOptions{OnPanic: func(context.Context, *hopper.JobRecord, *hopper.PanicError) {
			note("recover")
			hooked <- struct{}{}
		}})
		w := hopper.NewWorker(s, cfg)
		w.Use(
			middleware.Tracing(topts),
			mark("m1"),
			middleware.Metrics(&middleware.MetricsOptions{MeterProvider: mp}),
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
