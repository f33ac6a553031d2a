package store

import (
	"context"
	"time"
)

// Admin is the operator's interface: inspection and the actions the
// dashboard and the command line offer. A store implements it next to
// Store. hopper.Inspector checks every request first (valid queue names
// and states, a state the action allows, ranges in bounds); a store also
// refuses, before it reads or writes anything, an invalid queue name
// (ErrInvalidQueue) in every method that takes one, and what each
// method's doc names.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type Admin interface {
	// GetQueueStats reports one queue: jobs per state, its config and the age
	// of its oldest ready job. A queue never seen reports zeros.
	GetQueueStats(ctx context.Context, queue string) (QueueStats, error)

	// SetQueueConfig replaces a queue's settings (the Inspector has
	// normalized cfg). It takes effect for the next Claim in every
	// process; a resumed queue, or one whose caps were raised, wakes idle
	// workers. A cfg Normalize refuses fails with ErrInvalidConfig
	// (ValidateQueueConfig); a cfg it accepts is stored as given, not
	// normalized.
	SetQueueConfig(ctx context.Context, queue string, cfg QueueConfig) error

	// GetThroughput reports jobs finished in queue from since until now,
	// oldest first, one point per interval that had any: per minute for
	// the last ThroughputMinutes, per hour (Span) for ThroughputHours
	// before that. Points never overlap.
	GetThroughput(ctx context.Context, queue string, since time.Time) ([]ThroughputPoint, error)

	// GetJob returns one job with its error history, in whatever state it
	// is. It returns ErrJobNotFound when the queue has no such job.
	GetJob(ctx context.Context, queue, id string) (*JobRecord, error)

	// ListJobs returns a range of one queue's jobs in one state, in the
	// order ListJobsOpts describes.
	ListJobs(ctx context.Context, req ListJobsOpts) (JobPage, error)

	// RequeueJobs moves jobs in state from (pending, retry, garbage or done)
	// to the back of ready, due now, keeping their attempts and history;
	// a requeued job is no longer marked cancelled, loses its result, and
	// does not take its unique key again. With ids nil it moves all of
	// them. It returns how many moved; ids not in that state are skipped.
	// Another from (ready, unack, or not a state) fails with
	// ErrInvalidState (ValidateRequeue).
	RequeueJobs(ctx context.Context, queue string, from JobState, ids []string) (int, error)

	// DeleteJobs removes jobs in state from (any state but unack), releasing
	// their unique keys. With ids nil it deletes all of them. It returns
	// how many were deleted; ids not in that state are skipped. From
	// unack, or not a state, fails with ErrInvalidState (ValidateDelete).
	DeleteJobs(ctx context.Context, queue string, from JobState, ids []string) (int, error)

	// CancelJob stops a job: one waiting (pending, ready, retry) moves to
	// garbage marked cancelled at once, with ErrCancelled's text in its
	// history and its unique key released; one running is flagged, its
	// worker learns of it through Extend and finishes it as cancelled.
	// Cancelling a job in garbage or done changes nothing. It returns the
	// state the job was in, or ErrJobNotFound.
	CancelJob(ctx context.Context, queue, id string) (JobState, error)

	// ListWorkers lists the live worker processes, sorted by ID.
	ListWorkers(ctx context.Context) ([]WorkerInfo, error)
}
