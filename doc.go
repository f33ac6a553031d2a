// Package hopper is a framework for background jobs on Redis: typed jobs,
// delayed jobs, acknowledgements with leases, retries with backoff, dead jobs
// kept for inspection, periodic jobs, and a web dashboard.
//
// A job's arguments are a Go type that names its kind:
//
//	type SendEmail struct{ To string }
//
//	func (SendEmail) Kind() string { return "send_email" }
//
// Producers enqueue them through a Client; workers register typed handlers
// with Handle and run them with Worker.Run. Everything below that edge — the
// Store, the middleware, the Scheduler — sees encoded bytes and metadata.
//
// Guarantees: a job whose Enqueue returned without error is handled until a
// handler acks it or it reaches garbage (at-least-once: a job can run more
// than once when a worker dies or stalls past its lease, never zero times);
// a worker whose lease was lost cannot ack, nack or extend the job; a job
// never runs before it is due by the store's clock. See the README for what
// each Store needs from its server to keep them.
package hopper
