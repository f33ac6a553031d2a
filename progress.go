package hopper

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/hopperq/hopper/internal/engine"
	"github.com/hopperq/hopper/store"
)

// Progress reports how far the job running in ctx has come: percent, from
// 0 to 100 (negative: no percentage), and data, any small value (encoded
// with msgpack, at most MaxProgressBytes; nil for none). Each call replaces
// the last. The report travels with the worker's next lease renewal (every
// WorkerConfig.RenewInterval, 500 ms by default) and the last one before
// the handler returns is sent before its outcome, so reporting as often as
// a handler likes costs no store call of its own. The store keeps it with
// the job (JobRecord.Progress) and emits an EventProgress; the dashboard's
// job page shows it as a progress bar. It returns an error outside a
// handler, for a percent above 100 or not a number, or for data too large
// or that cannot be encoded. Safe for concurrent use.
func Progress(ctx context.Context, percent float64, data any) error {
	if math.IsNaN(percent) || percent > 100 {
		return fmt.Errorf("%w: progress %v is not a percentage from 0 to 100", ErrInvalidConfig, percent)
	}
	if percent < 0 {
		percent = -1
	}
	var b []byte
	if data != nil {
		var err error
		if b, err = encodeValue("progress data", data, nil); err != nil {
			return err
		}
		if len(b) > store.MaxProgressBytes {
			return fmt.Errorf("%w: progress data of %d bytes is over store.MaxProgressBytes (%d)", ErrInvalidConfig, len(b), store.MaxProgressBytes)
		}
	}
	if !engine.ReportProgress(ctx, percent, b) {
		return errors.New("hopper: Progress called outside a job handler")
	}
	return nil
}

// Log adds a line to the log of the job running in ctx, stamped with the
// time. Lines travel like Progress reports, with the next lease renewal;
// the store keeps the job's last MaxLogLines lines (JobRecord.Progress.Log)
// and emits them in an EventProgress; the dashboard's job page shows them.
// A line longer than MaxLogLineBytes is cut (at a character boundary, with
// "…" at the end), and invalid UTF-8 is replaced. It returns an error
// outside a handler. Safe for concurrent use.
func Log(ctx context.Context, msg string) error {
	msg = strings.ToValidUTF8(msg, "\uFFFD")
	if len(msg) > store.MaxLogLineBytes {
		const ellipsis = "…"
		cut := store.MaxLogLineBytes - len(ellipsis)
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + ellipsis
	}
	if !engine.AppendLog(ctx, msg) {
		return errors.New("hopper: Log called outside a job handler")
	}
	return nil
}
