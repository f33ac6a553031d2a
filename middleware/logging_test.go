package middleware_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
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
			job := &hopper.JobRecord{ID: "j1", Queue: "q", Kind: "k", Attempt: tt.attempt, JobSpec: hopper.JobSpec{MaxRetries: 2}}
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
	mw := middleware.Logging(slog.New(h), &middleware.LoggingConfig{AckLevel: slog.LevelDebug})
	job := &hopper.JobRecord{ID: "j1", Queue: "q", Kind: "k", Attempt: 1, JobSpec: hopper.JobSpec{MaxRetries: 2}}
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
