package store

import "time"

// JobRecord is a job as a store holds it, in any state. Workers get one per
// claimed job (a handler sees it inside hopper.Job); the Inspector, the
// dashboard and the command line read them. A record returned by a store
// belongs to the caller.
type JobRecord struct {
	// ID identifies the job within its queue.
	ID string
	// Queue is the queue the job is in.
	Queue string
	// Kind names the job's handler (hopper.Args.Kind).
	Kind string
	// Args are the encoded arguments (msgpack).
	Args []byte
	// JobSpec holds the options the job was enqueued with (priority,
	// group, retries, timeout, retention, unique key, metadata): see
	// JobSpec. Meta is nil when the job has none.
	JobSpec
	// State is where the job is.
	State JobState
	// Attempt counts attempts made so far, the running one included; Claim
	// increments it, snoozes and releases do not count.
	Attempt int
	// EnqueuedAt is when Enqueue stored the job.
	EnqueuedAt time.Time
	// RunAt is when the job falls due (pending, retry) or last fell due (in
	// every other state; its enqueue time when it went straight to ready).
	// A periodic job's RunAt is its tick.
	RunAt time.Time
	// AttemptedAt is when the latest attempt was claimed; zero before the
	// first.
	AttemptedAt time.Time
	// FinishedAt is when the job reached done or garbage.
	FinishedAt time.Time
	// Deadline is the lease deadline and Token the fencing token of the
	// current claim; both set only in unack. The jobs of one claim share
	// its token; the job's ID and Token together name its claim (see
	// Tokens in the package documentation).
	Deadline time.Time
	Token    uint64
	// Errors holds the latest failed attempts, oldest first, at most
	// MaxErrorHistory.
	Errors []AttemptError
	// Result is what the handler recorded (hopper.RecordResult), kept in
	// done.
	Result []byte
	// Cancelled reports that Cancel was called for the job.
	Cancelled bool
	// Progress is what the job's attempts reported (hopper.Progress,
	// hopper.Log); nil when none did.
	Progress *Progress
}

// AttemptError is one failed attempt in a job's history.
type AttemptError struct {
	// Attempt is the attempt number that failed, from 1.
	Attempt int
	// At is when the failure was recorded, on the store's clock.
	At time.Time
	// Error is the error's text; a worker keeps its first 8 KiB, cut at
	// a character's start and marked "… (truncated)".
	Error string
	// Stack is the goroutine stack of a panic, its first 16 KiB kept the
	// same way; empty otherwise.
	Stack string
	// StartedAt is when the failed attempt's handler started, on the
	// worker's clock, and Worker the ID of the worker process that ran it
	// (the attempt timeline of the dashboard). Zero and empty for a failure
	// no handler saw (an expired lease, a cancel) or recorded by an older
	// version.
	StartedAt time.Time
	Worker    string
}
