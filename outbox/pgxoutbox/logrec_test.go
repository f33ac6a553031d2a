package pgxoutbox_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/testutil"
)

// logRecorder is a slog.Handler that passes every record to a channel
// (dropping records when the channel is full).
type logRecorder struct{ ch chan slog.Record }

func newLogRecorder() *logRecorder { return &logRecorder{ch: make(chan slog.Record, 1000)} }

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	select {
	case l.ch <- r.Clone():
	default:
	}
	return nil
}

// next returns the next record whose message contains substr, skipping
// the others.
func (l *logRecorder) next(t *testing.T, substr string) slog.Record {
	t.Helper()
	for {
		r := testutil.Receive(t, l.ch, testutil.Wait, "a log record containing "+substr)
		if strings.Contains(r.Message, substr) {
			return r
		}
	}
}

// attr returns the value of r's attribute key, or the zero Value.
func attr(r slog.Record, key string) slog.Value {
	var v slog.Value
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value
			return false
		}
		return true
	})
	return v
}
