package middleware

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hopperq/hopper"
)

// LoggingConfig configures Logging. The zero value (or nil) means defaults.
// Logging reads it once; changing it afterwards has no effect.
type LoggingConfig struct {
	// AckLevel is the level of the records of successful and snoozed
	// attempts. Defaults to slog.LevelInfo, the zero value; set
	// slog.LevelDebug to keep them out of Info logs.
	AckLevel slog.Level
}

// Logging returns worker middleware that writes one log/slog record when
// each attempt of a job ends.
//
// A nil logger means slog.Default(), read when each record is written, so
// that slog.SetDefault takes effect. cfg may be nil, which means the zero
// LoggingConfig: AckLevel slog.LevelInfo (the zero slog.Level). Logging
// copies cfg before it returns; changing cfg afterwards has no effect.
//
// Message and level by outcome:
//
//	ack       "job done"       cfg.AckLevel (Info)
//	snooze    "job snoozed"    cfg.AckLevel (Info)
//	retry     "job failed"     Warn
//	release   "job released at shutdown"  cfg.AckLevel (Info)
//	lease_lost "job lease lost"  Warn
//	cancel    "job cancelled"  Warn
//	garbage   "job failed"     Error (retries used up, or Permanent)
//
// Attributes: queue, id, kind, attempt (from 1), duration (of the rest of
// the chain and the handler), outcome ("ack", "retry", ...), and for any
// error but a snooze, error; a panic adds stack, the panicking goroutine's
// stack. The outcome is the one the worker decides (hopper.AttemptOutcome).
//
// The record is logged with the context the middleware was given, so a
// handler that adds trace IDs to records (such as an OpenTelemetry slog
// bridge) sees the attempt's span when Tracing runs before Logging. When
// the logger is not enabled at the record's level, the middleware costs a
// clock read and allocates nothing. The returned middleware is safe for
// concurrent use; several workers may share it.
func Logging(logger *slog.Logger, cfg *LoggingConfig) hopper.Middleware {
	var o LoggingConfig
	if p := cfg; p != nil {
		o = *p
	}
	return func(next hopper.Handler) hopper.Handler {
		return hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error {
			start := time.Now()
			err := next.Handle(ctx, job)
			l := logger
			if l == nil {
				l = slog.Default()
			}
			outcome := attemptOutcome(ctx, job, err)
			level, msg := o.AckLevel, "job done"
			switch outcome {
			case hopper.OutcomeSnooze:
				msg = "job snoozed"
			case hopper.OutcomeRetry:
				level, msg = slog.LevelWarn, "job failed"
			case hopper.OutcomeCancel:
				level, msg = slog.LevelWarn, "job cancelled"
			case hopper.OutcomeGarbage:
				level, msg = slog.LevelError, "job failed"
			case hopper.OutcomeRelease:
				msg = "job released at shutdown"
			case hopper.OutcomeLeaseLost:
				level, msg = slog.LevelWarn, "job lease lost"
			}
			if !l.Enabled(ctx, level) {
				return err
			}
			var buf [8]slog.Attr
			attrs := append(buf[:0],
				slog.String("queue", job.Queue),
				slog.String("id", job.ID),
				slog.String("kind", job.Kind),
				slog.Int("attempt", job.Attempt),
				slog.Duration("duration", time.Since(start)),
				slog.String("outcome", outcome.String()),
			)
			if err != nil && outcome != hopper.OutcomeSnooze {
				attrs = append(attrs, slog.Any("error", err))
				var p *hopper.PanicError
				if errors.As(err, &p) && len(p.Stack) > 0 {
					attrs = append(attrs, slog.String("stack", string(p.Stack)))
				}
			}
			l.LogAttrs(ctx, level, msg, attrs...)
			return err
		})
	}
}
