// Package middleware provides hopper middleware: panic recovery with a
// hook (Recover), OpenTelemetry tracing across producer and worker
// (TracingEnqueue, Tracing), OpenTelemetry metrics (Metrics,
// RegisterQueueMetrics, RegisterWorkerMetrics) and log/slog logging
// (Logging).
//
// The library depends only on the OpenTelemetry API; the application picks
// the SDK and exporters. Every constructor takes a pointer to its options
// (middleware.Tracing(nil), or middleware.Tracing(&opts)), as every hopper
// constructor does; nil means defaults, and every provider defaults to the
// OpenTelemetry global.
//
// # Order
//
// Worker middleware wrap the handler net/http style, in the order given to
// hopper.Worker.Use, the first outermost; the recover middleware of
// hopper.WorkerConfig.Recover (the worker's own by default, or Recover) is
// always innermost. With
//
//	w := hopper.NewWorker(store, &hopper.WorkerConfig{
//		Recover: middleware.Recover(&middleware.RecoverConfig{OnPanic: report}),
//	})
//	w.Use(
//		middleware.Tracing(nil),
//		middleware.Metrics(nil),
//		middleware.Logging(logger, nil),
//	)
//
// an attempt runs
//
//	tracing start -> metrics start -> logging start -> recover -> handler
//	-> recover end -> logging end -> metrics end -> tracing end
//
// and then the worker acks, retries, snoozes or buries the job by the
// returned error. Before the chain starts the worker has claimed the job
// and set the attempt's deadline on its context, so the job's timeout
// bounds middleware and handler together; outside the chain the worker also
// renews the lease and recovers any panic a middleware lets escape.
//
// This order is the one to use: Tracing first, so that the span is in the
// context Metrics and Logging see (metric exemplars and trace IDs in log
// records point at the attempt's span) and so that the span covers the
// others; Metrics and Logging next, each timing what runs inside it;
// Recover innermost, so that all of them see a panic as a
// *hopper.PanicError with its stack.
//
// Client middleware wrap the store call of hopper.Client the same way, in
// the order given to hopper.Client.Use, the first outermost. Enqueue and
// EnqueueMany encode and validate the jobs first, then
//
//	client.Use(middleware.TracingEnqueue(nil), other)
//	// tracing start -> other start -> Store.Enqueue -> other end -> tracing end
//
// once per call, with every job of an EnqueueMany in the same batch.
//
// # Attributes
//
// Spans and metrics follow the OpenTelemetry messaging semantic conventions
// (go.opentelemetry.io/otel/semconv/v1.43.0): messaging.system is "hopper"
// (SystemName), messaging.destination.name is the queue and
// messaging.message.id the job ID. hopper adds hopper.job.kind,
// hopper.job.attempt, hopper.job.outcome, hopper.job.state and
// hopper.job.duplicate (the Attr constants).
//
// A failed attempt carries error.type, with one of these values: "panic",
// "timeout" (the attempt's deadline passed), "cancelled" (Store.CancelJob),
// "unknown_kind", "decode", or else the Go type of the error after
// unwrapping hopper.Permanent and fmt.Errorf wrappers (such as
// "*errors.errorString"), or what the error's ErrorType() string method
// returns. A custom error type keeps the cardinality low by naming its
// class this way.
//
// # Outcomes
//
// Tracing, Metrics and Logging report each attempt's outcome as the worker
// decides it (hopper.AttemptOutcome): what hopper.OutcomeOf makes of the
// handler's error, except that a job cancelled while it ran is "cancel", an
// attempt interrupted by a shutdown is "release" (it runs again at once, not
// counted), and an attempt whose lease was lost is "lease_lost" (its result
// is dropped; another worker may run the job).
package middleware
