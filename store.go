package hopper

import (
	"context"
	"time"
)

// Store is the storage seam under hopper: the job lifecycle as atomic
// transitions, plus the inspection and admin operations the dashboard and the
// CLI need. It is non-generic: job arguments cross it as encoded bytes.
//
// hopper ships two implementations, memstore (in memory) and redisstore
// (Redis, one Lua script per transition). storetest.Run checks any Store
// against the rules below; a third-party Store should pass it.
//
// Rules every Store keeps:
//
//   - Each method is one atomic transition per job: a job is in exactly one
//     state at any time, and a crash between two calls loses nothing.
//   - All times (due times, lease deadlines, enqueue and finish times) come from
//     the store's own clock, never the caller's, with millisecond resolution.
//     Durations in requests (Delay, Lease) are measured on that clock.
//   - A job is never returned by Claim before it is due.
//   - Claim counts the attempt (Attempt+1) and issues a fresh fencing Token.
//     Finish and Extend succeed only with the token of the current claim; a
//     stale token changes nothing and reports ErrLeaseLost.
//   - Enqueue with an ID that already exists in the queue creates nothing and
//     reports the existing job as a duplicate.
//   - Batch methods take requests for several queues at once; the results are
//     in request order, one per request.
//   - All methods are safe for concurrent use by any number of goroutines and
//     processes.
type Store interface {
	// Enqueue adds jobs: to pending when due in the future, to ready otherwise.
	// A job whose ID or unique key is already held is not added; its result
	// says Duplicate and names the holder. A periodic job whose tick is not
	// newer than the last recorded tick of its schedule is skipped the same
	// way. The returned error is for the call as a whole (connection lost,
	// out of memory); per-job problems are in the results.
	Enqueue(ctx context.Context, jobs []*NewJob) ([]EnqueueResult, error)

	// Claim moves up to req.Max due jobs from ready to unack in FIFO order,
	// each with a lease of req.Lease, a new token and its attempt counted.
	// It claims nothing from a paused queue and respects the queue's global
	// concurrency and rate limits; when a limit held it back, the result's
	// RetryIn says when trying again may succeed.
	Claim(ctx context.Context, req ClaimRequest) (ClaimResult, error)

	// Finish ends claimed attempts: ack (delete, or keep as done for a
	// retention), retry after a delay, move to garbage, snooze back to
	// pending, release back to ready, or cancel. It returns one error per
	// request: nil, ErrLeaseLost when the token is no longer current, or
	// ErrJobNotFound.
	Finish(ctx context.Context, reqs []FinishRequest) ([]error, error)

	// Extend pushes the lease deadline of running jobs to now+lease. One status
	// per ref: whether the lease is still held, and whether someone asked for
	// the job to be cancelled.
	Extend(ctx context.Context, refs []LeaseRef, lease time.Duration) ([]LeaseStatus, error)

	// WaitReady blocks until a job may have become ready in one of queues,
	// until timeout passes, or until ctx is done. It returns nil in all three
	// cases but a store failure; wakeups may be spurious, so callers claim and
	// wait again. It lets an idle worker sleep without polling.
	WaitReady(ctx context.Context, queues []string, timeout time.Duration) error

	// Maintain runs the scheduler's duties on one queue: promote due pending and
	// retry jobs to ready, reclaim unack jobs whose lease expired (to retry, or
	// to garbage when attempts are used up), collect done jobs past their
	// retention and garbage past opts' age and count limits. Each is bounded by
	// opts.Batch; the result tells how long until the next job falls due.
	Maintain(ctx context.Context, queue string, opts MaintainOptions) (MaintainResult, error)

	// WaitSchedule blocks until the next due time in one of queues may have
	// moved earlier (a delayed job enqueued, a job sent to retry), until
	// timeout passes, or until ctx is done. Wakeups may be spurious.
	WaitSchedule(ctx context.Context, queues []string, timeout time.Duration) error

	// Queues lists every queue the store has seen, sorted by name.
	Queues(ctx context.Context) ([]string, error)

	// QueueStats reports one queue: jobs per state, whether it is paused, its
	// limits and the age of its oldest ready job.
	QueueStats(ctx context.Context, queue string) (QueueStats, error)

	// SetQueueConfig replaces a queue's settings (pause, limits). It takes
	// effect for the next Claim in every process.
	SetQueueConfig(ctx context.Context, queue string, cfg QueueConfig) error

	// Throughput reports jobs finished per minute in queue from since until
	// now, oldest first, one point per minute that had any. Stores keep at
	// least the last hour.
	Throughput(ctx context.Context, queue string, since time.Time) ([]ThroughputPoint, error)

	// GetJob returns one job with its error history, in whatever state it is.
	// It returns ErrJobNotFound when the queue has no such job.
	GetJob(ctx context.Context, queue, id string) (*JobRecord, error)

	// ListJobs returns a page of one queue's jobs in one state.
	ListJobs(ctx context.Context, req ListRequest) (JobPage, error)

	// Requeue moves jobs in state from (pending, retry, garbage or done) to
	// ready now, keeping their attempts. With ids nil it moves all of them.
	// It returns how many moved; ids not in that state are skipped.
	Requeue(ctx context.Context, queue string, from JobState, ids []string) (int, error)

	// Delete removes jobs in state from any state but unack. With ids nil it
	// deletes all of them. It returns how many were deleted.
	Delete(ctx context.Context, queue string, from JobState, ids []string) (int, error)

	// Cancel stops a job: one waiting (pending, ready, retry) moves to garbage
	// marked cancelled at once; one running is flagged, its worker learns of it
	// through Extend and finishes it as cancelled. Cancelling a job in garbage
	// or done changes nothing. It returns the state the job was in.
	Cancel(ctx context.Context, queue, id string) (JobState, error)

	// Heartbeat records a live worker process; the record expires after ttl
	// unless renewed.
	Heartbeat(ctx context.Context, w WorkerInfo, ttl time.Duration) error

	// Workers lists the live worker processes, sorted by ID.
	Workers(ctx context.Context) ([]WorkerInfo, error)

	// RemoveWorker deletes a worker's record (on graceful shutdown).
	RemoveWorker(ctx context.Context, id string) error

	// RegisterSchedules records periodic schedules for inspection (the
	// dashboard lists them). Registering again replaces the record.
	RegisterSchedules(ctx context.Context, s []ScheduleInfo) error

	// Schedules lists the registered periodic schedules with the last tick
	// each one enqueued, sorted by name.
	Schedules(ctx context.Context) ([]ScheduleInfo, error)
}
