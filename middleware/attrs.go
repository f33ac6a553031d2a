package middleware

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/hopperq/hopper"
)

// SystemName is the value of the messaging.system attribute on every span
// and metric this package records. The OpenTelemetry messaging conventions
// list no well-known value that fits a job queue kept in Redis (the value
// names the messaging system as the client sees it, and hopper is that
// system), so hopper uses its own name, which the conventions allow.
const SystemName = "hopper"

// Attribute keys hopper adds to the OpenTelemetry messaging conventions.
// They all live under the hopper.job namespace and appear on spans and
// metrics alike (see each middleware for which one carries which).
const (
	// AttrJobKind is the job's kind (Args.Kind), a string.
	AttrJobKind = attribute.Key("hopper.job.kind")
	// AttrJobAttempt is the attempt number, from 1, an int. Snoozes do not
	// count as attempts.
	AttrJobAttempt = attribute.Key("hopper.job.attempt")
	// AttrJobOutcome is how the attempt ended: "ack", "retry", "garbage",
	// "snooze" or "cancel" (hopper.Outcome.String).
	AttrJobOutcome = attribute.Key("hopper.job.outcome")
	// AttrJobState is a job state ("pending", "ready", ...), on the queue
	// depth metric.
	AttrJobState = attribute.Key("hopper.job.state")
	// AttrJobDuplicate is true on a producer span whose job was not added
	// because its ID or unique key was already held.
	AttrJobDuplicate = attribute.Key("hopper.job.duplicate")
)

// The messaging operation names hopper uses (messaging.operation.name).
const (
	opSend    = "send"
	opCreate  = "create"
	opProcess = "process"
)

var systemAttr = semconv.MessagingSystemKey.String(SystemName)

// attemptOutcome is the outcome the worker gives the attempt: see
// hopper.AttemptOutcome.
func attemptOutcome(ctx context.Context, job *hopper.JobRecord, err error) hopper.Outcome {
	return hopper.AttemptOutcome(ctx, job, err)
}

// failed reports whether an outcome is a failed attempt: one that records
// an error on the span, error.type on metrics and a warning or error log.
func failed(o hopper.Outcome) bool {
	return o == hopper.OutcomeRetry || o == hopper.OutcomeGarbage || o == hopper.OutcomeCancel
}

// errorType returns the error.type value of a failed attempt: one of
//
//   - "panic": the handler panicked (*hopper.PanicError);
//   - "timeout": the attempt's deadline passed (its Timeout, KindTimeouts or
//     JobTimeout);
//   - "cancelled": the job was cancelled with Store.CancelJob;
//   - "unknown_kind": no handler is registered for the kind;
//   - "decode": the args did not decode;
//
// and otherwise the Go type of the error, after unwrapping hopper.Permanent
// and fmt.Errorf wrappers, as semconv.ErrorType reports it (an error type may
// name itself with an ErrorType() string method).
func errorType(ctx context.Context, err error) string {
	var p *hopper.PanicError
	switch {
	case errors.As(err, &p):
		return "panic"
	case errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded:
		return "timeout"
	case errors.Is(err, hopper.ErrCancelled) || errors.Is(context.Cause(ctx), hopper.ErrCancelled):
		return "cancelled"
	case errors.Is(err, hopper.ErrUnknownKind):
		return "unknown_kind"
	case errors.Is(err, hopper.ErrDecode):
		return "decode"
	}
	var perm *hopper.PermanentError
	if errors.As(err, &perm) && perm.Err != nil {
		err = perm.Err
	}
	return semconv.ErrorType(err).Value.AsString()
}
