package store

import (
	"context"
	"time"
)

// Store is the engine's interface: what hopper's Client, Worker and
// Scheduler need to run jobs. It is non-generic: job arguments cross it as
// encoded bytes. See the package documentation for the rules every method
// keeps.
type Store interface {
	// Enqueue adds jobs: to pending when due in the future, to ready
	// otherwise. A job whose ID or unique key is already held is not
	// added; its result says Duplicate and names the holder. A periodic
	// job whose tick is not newer than the last recorded tick of its
	// schedule is skipped the same way. Jobs that fail ValidateJobs fail
	// the call before anything is written. The returned error is for the
	// call as a whole (connection lost, out of memory); see
	// EnqueueResult.Err for a job whose queue alone failed.
	Enqueue(ctx context.Context, jobs []*NewJob) ([]EnqueueResult, error)

	// Claim moves up to req.Max due jobs from ready to unack, highest
	// NewJob.Priority first and in FIFO order within one, each with a
	// lease of req.Lease and its attempt counted, all under one new token
	// that they share (ending or extending one of them never affects the
	// others: see Tokens in the package documentation). Tokens grow with
	// the claims on a queue: a claim's token is greater than that of every
	// claim on the queue that took its jobs before it (a worker with two
	// claims in flight on a queue dispatches their jobs in token order).
	// It claims nothing from a paused queue and respects the queue's
	// global concurrency and rate limits (by the terms
	// QueueConfig.QueueRate and GroupRate give: see RateTerms), telling
	// the claimer the guard its jobs must start within (StartWithin) and,
	// under a smooth rate, when each may start (StartAfter); when a limit
	// held it back, the result's RetryIn says when trying again may
	// succeed. A request that fails ClaimOpts.Validate fails the call.
	Claim(ctx context.Context, req ClaimOpts) (ClaimResult, error)

	// Finish ends claimed attempts: ack (delete, or keep as done for a
	// retention), retry after a delay, move to garbage, snooze back to
	// pending, release back to ready, or cancel. A job flagged by Cancel
	// is finished with Outcome.OnCancelled. It returns one error per
	// request: nil; ErrLeaseLost when the token is no longer current;
	// ErrJobNotFound; the error of AttemptEnd.Validate; or a store
	// error when the job's queue could not be reached (the request may or
	// may not have been applied, and sending it again is safe). A request
	// sent again after it was applied reports nil and changes nothing
	// while the job is where it put it under that claim (an ack's job kept
	// in done for a retention; a garbage's or a cancel's in garbage; a
	// retry's in retry, or in garbage cancelled), so that a retry after a
	// lost reply learns it held; an ack without a retention leaves the job gone, and its retry
	// reports ErrJobNotFound. A lease that expired into garbage leaves no
	// claim's mark there: that claim's late end reports ErrLeaseLost. The
	// returned error is for the call as a whole. Finish does not keep reqs
	// once it returns: the caller may reuse the slice.
	Finish(ctx context.Context, reqs []AttemptEnd) ([]error, error)

	// Extend pushes the lease deadline of running jobs to now+lease. One
	// status per ref: whether the lease is still held, whether someone
	// asked for the job to be cancelled, or an error for that ref alone.
	// A lease below MinLease fails the call with ErrInvalidConfig.
	Extend(ctx context.Context, refs []LeaseRef, lease time.Duration) ([]LeaseStatus, error)

	// WaitReady blocks until jobs may have become claimable in some of
	// queues (a job made ready, a paused queue resumed, a limit freed),
	// until timeout passes, or until ctx is done, and returns those queues
	// (nil on timeout or ctx). A signal for a queue that comes while no
	// caller waits on it is kept, once per queue, for the next WaitReady
	// that names the queue, so a job that became ready between a caller's
	// empty Claim and its WaitReady is not missed; when a store cannot
	// know what it missed (a lost connection) it returns every queue.
	// Signals may be spurious. It lets an idle worker sleep without
	// polling, and claim only where there may be work.
	WaitReady(ctx context.Context, queues []string, timeout time.Duration) ([]string, error)

	// Maintain runs the scheduler's duties on one queue: promote due
	// pending and retry jobs to the back of ready, reclaim unack jobs whose
	// lease expired (to garbage when attempts are used up or the job was
	// cancelled, otherwise back to ready at once: to the head of its group,
	// or of its priority level when ungrouped, before the jobs that were
	// ready, those of one call in their claim order or, when a store
	// cannot tell it, by lease deadline then ID; an EventRetried then an
	// EventPromoted), collect done jobs past their retention and
	// garbage past opts' age and count limits. Each is bounded by
	// opts.Batch; the result tells how long until the next job falls due.
	Maintain(ctx context.Context, queue string, opts MaintainOpts) (MaintainResult, error)

	// WaitSchedule blocks until the next due time of some of queues may
	// have moved earlier (a delayed job enqueued, a job sent to retry, a
	// lease granted on an idle queue), until timeout passes, or until ctx
	// is done, and returns those queues, with WaitReady's rules.
	WaitSchedule(ctx context.Context, queues []string, timeout time.Duration) ([]string, error)

	// ListQueues lists every queue the store has seen, sorted by name.
	ListQueues(ctx context.Context) ([]string, error)

	// Heartbeat records a live worker process; the record expires after
	// ttl unless renewed.
	Heartbeat(ctx context.Context, w WorkerInfo, ttl time.Duration) error

	// RemoveWorker deletes a worker's record (on graceful shutdown).
	RemoveWorker(ctx context.Context, id string) error

	// RegisterSchedules records periodic schedules for inspection.
	// Registering again replaces the record.
	RegisterSchedules(ctx context.Context, s []ScheduleInfo) error

	// ListSchedules lists the registered periodic schedules with the last tick
	// each one enqueued, sorted by name, then queue.
	ListSchedules(ctx context.Context) ([]ScheduleInfo, error)
}
