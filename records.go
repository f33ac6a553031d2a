package hopper

import "time"

// MaxErrorHistory is how many attempt errors a Store keeps per job; older ones
// are dropped first.
const MaxErrorHistory = 20

// NewJob is a job as a producer hands it to Store.Enqueue: encoded args plus
// everything the store needs to schedule, limit and identify it.
type NewJob struct {
	// ID identifies the job within its queue. Required; the Client generates
	// one (time-ordered, 20 characters) when EnqueueOpts.ID is empty.
	ID string
	// Queue is a valid queue name (see ValidateQueue).
	Queue string
	// Kind names the handler (Args.Kind).
	Kind string
	// Args are the encoded arguments (msgpack).
	Args []byte
	// Meta carries string metadata such as trace context. May be nil.
	Meta map[string]string
	// MaxRetries is how many times a failed attempt is retried: the job gets
	// at most MaxRetries+1 attempts. Zero means no retry.
	MaxRetries int
	// Timeout bounds one attempt. Zero means the worker's default.
	Timeout time.Duration
	// RunAt is when the job falls due. When zero, the job falls due Delay
	// after the store's now; a time not in the future makes it ready at once.
	RunAt time.Time
	// Delay is used when RunAt is zero; zero or negative means now.
	Delay time.Duration
	// Retention keeps the job in done for this long after it succeeds. Zero
	// means the queue's QueueConfig.Retention, which defaults to none.
	Retention time.Duration
	// UniqueKey, when set, makes the job unique in its queue: while another
	// job holds the key, Enqueue reports a duplicate instead. The key is
	// released when its job is acked, dies, is deleted or is cancelled, or
	// after UniqueFor when that is set.
	UniqueKey string
	// UniqueFor bounds how long the unique key is held. Zero means until the
	// job finishes.
	UniqueFor time.Duration
	// Schedule and Tick mark a periodic job: it is enqueued only when Tick is
	// later than the last tick recorded for Schedule in this queue, and that
	// tick is recorded in the same atomic step. Zero Tick means not periodic.
	Schedule string
	Tick     time.Time
}

// EnqueueResult is what Store.Enqueue did with one job.
type EnqueueResult struct {
	// ID is the job's ID, or for a duplicate the ID of the job that holds the
	// ID or unique key (empty for a skipped periodic tick).
	ID string
	// State is where the new job went: StatePending or StateReady. Empty for
	// a duplicate.
	State JobState
	// Duplicate reports that nothing was added.
	Duplicate bool
}

// ClaimRequest asks Store.Claim for ready jobs.
type ClaimRequest struct {
	// Queue to claim from.
	Queue string
	// Max is how many jobs to claim at most; at least 1.
	Max int
	// Lease is how long the jobs stay invisible to other workers unless
	// extended; at least one millisecond.
	Lease time.Duration
	// WorkerID names the claiming process (for inspection).
	WorkerID string
}

// ClaimResult is what Store.Claim returned.
type ClaimResult struct {
	// Jobs claimed, oldest first, each in StateUnack with Token, Deadline and
	// Attempt set.
	Jobs []*JobRecord
	// RetryIn is set when the queue is paused or a concurrency or rate limit
	// held jobs back: the earliest time worth claiming again.
	RetryIn time.Duration
}

// FinishRequest ends one claimed attempt.
type FinishRequest struct {
	Queue string
	ID    string
	// Token is the fencing token from the claim.
	Token   uint64
	Outcome Outcome
	// Delay is how long a retried or snoozed job waits, from the store's now.
	Delay time.Duration
	// Error is recorded in the job's history (retry, garbage, cancel). May be
	// nil.
	Error *AttemptError
	// Result is kept with a done job (ack with a retention). May be nil.
	Result []byte
	// Retention keeps an acked job in done for this long. Zero means the
	// queue's QueueConfig.Retention.
	Retention time.Duration
}

// LeaseRef names one claim: the job and the token its worker holds.
type LeaseRef struct {
	Queue string
	ID    string
	Token uint64
}

// LeaseStatus is what Store.Extend found for one lease.
type LeaseStatus struct {
	// Held is false when the token is no longer current: the lease expired
	// and the job was reclaimed, released or deleted. The worker must stop
	// treating the job as its own.
	Held bool
	// Cancel reports that Store.Cancel was called for the job.
	Cancel bool
	// Deadline is the new lease deadline when Held.
	Deadline time.Time
}

// MaintainOptions bounds one Store.Maintain call.
type MaintainOptions struct {
	// Batch is the most jobs each duty moves or deletes in one call. Zero
	// means 1000.
	Batch int
	// GarbageMaxAge deletes garbage jobs older than this. Zero keeps them
	// regardless of age.
	GarbageMaxAge time.Duration
	// GarbageMaxCount keeps at most this many garbage jobs, deleting the
	// oldest first. Zero means no limit.
	GarbageMaxCount int
}

// MaintainResult is what Store.Maintain did.
type MaintainResult struct {
	Promoted  int // pending and retry jobs moved to ready
	Reclaimed int // expired leases moved to retry or garbage
	Collected int // done and garbage jobs deleted
	// More reports that a batch limit was hit: call again at once.
	More bool
	// NextIn is how long until the next pending or retry job falls due, the
	// next lease expires or the next done or garbage job is due for
	// collection, on the store's clock. Meaningless when Idle.
	NextIn time.Duration
	// Idle reports that nothing in the queue is scheduled.
	Idle bool
}

// QueueConfig is a queue's settings, shared by every process.
type QueueConfig struct {
	// Paused stops every worker from claiming from the queue. Enqueue still
	// works.
	Paused bool
	// MaxRunning caps the jobs of this queue running at once across all
	// workers. Zero means no cap.
	MaxRunning int
	// RateLimit caps how many jobs are claimed per RatePeriod across all
	// workers. Zero means no limit. The windows are fixed and aligned on the
	// store's clock ([k·RatePeriod, (k+1)·RatePeriod)): each sees at most
	// RateLimit claims, and over many windows the rate holds, but a burst at
	// the end of one window and another at the start of the next can come
	// closer together than RatePeriod (up to twice RateLimit within any
	// sliding RatePeriod).
	RateLimit int
	// RatePeriod is the window of RateLimit. Zero means one second.
	RatePeriod time.Duration
	// Retention keeps acked jobs in done for this long unless the job sets
	// its own. Zero means acked jobs are deleted.
	Retention time.Duration
}

// StateCounts holds the number of jobs in each state.
type StateCounts struct {
	Pending, Ready, Unack, Retry, Garbage, Done int64
}

// Get returns the count for s (zero for an invalid state).
func (c StateCounts) Get(s JobState) int64 {
	switch s {
	case StatePending:
		return c.Pending
	case StateReady:
		return c.Ready
	case StateUnack:
		return c.Unack
	case StateRetry:
		return c.Retry
	case StateGarbage:
		return c.Garbage
	case StateDone:
		return c.Done
	}
	return 0
}

// Total returns the sum over all states.
func (c StateCounts) Total() int64 {
	return c.Pending + c.Ready + c.Unack + c.Retry + c.Garbage + c.Done
}

// QueueStats describes one queue.
type QueueStats struct {
	Queue  string
	Counts StateCounts
	Config QueueConfig
	// Latency is how long the oldest ready job has been waiting since it fell
	// due; zero when nothing is ready.
	Latency time.Duration
}

// ThroughputPoint counts the attempts that ended in one minute.
type ThroughputPoint struct {
	// Minute is the start of the minute, on the store's clock.
	Minute time.Time
	// Done counts acks; Failed counts attempts that ended in retry or garbage
	// (including expired leases).
	Done, Failed int64
}

// AttemptError is one failed attempt in a job's history.
type AttemptError struct {
	// Attempt is the attempt number that failed, from 1.
	Attempt int
	// At is when the failure was recorded, on the store's clock.
	At time.Time
	// Error is the error's text.
	Error string
	// Stack is the goroutine stack of a panic; empty otherwise.
	Stack string
}

// JobRecord is a job as the store holds it, in any state. Workers get one per
// claimed job; the dashboard and the CLI read them.
type JobRecord struct {
	ID    string
	Queue string
	Kind  string
	// Args are the encoded arguments (msgpack).
	Args  []byte
	Meta  map[string]string
	State JobState
	// Attempt counts attempts made so far, the running one included; Claim
	// increments it, snoozes and releases do not count.
	Attempt    int
	MaxRetries int
	Timeout    time.Duration
	Retention  time.Duration
	UniqueKey  string
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
	// current claim; both set only in unack.
	Deadline time.Time
	Token    uint64
	// Errors holds the latest failed attempts, oldest first, at most
	// MaxErrorHistory.
	Errors []AttemptError
	// Result is what the handler recorded, kept in done.
	Result []byte
	// Cancelled reports that Cancel was called for the job.
	Cancelled bool
}

// ListRequest asks Store.ListJobs for a page of one state of one queue.
//
// Order: pending and retry by due time, ready first-in first-out, unack by
// lease deadline, garbage and done by finish time; Newest reverses it.
type ListRequest struct {
	Queue string
	State JobState
	// Offset skips that many jobs (or matches, when filtering).
	Offset int
	// Limit caps the page. Zero means 50.
	Limit int
	// Newest lists the latest first.
	Newest bool
	// Kind, when set, keeps only jobs of that kind.
	Kind string
	// Match, when set, keeps only jobs it returns true for.
	Match func(*JobRecord) bool
	// ScanLimit bounds how many jobs a filtered listing examines. Zero means
	// 10,000.
	ScanLimit int
}

// JobPage is one page of ListJobs.
type JobPage struct {
	Jobs []*JobRecord
	// Total is the number of jobs in the state, or with a filter the number
	// of matches among the jobs examined.
	Total int
	// Truncated reports that a filtered listing stopped at ScanLimit.
	Truncated bool
}

// RunningJob is a job a worker process is running.
type RunningJob struct {
	Queue     string
	ID        string
	Kind      string
	StartedAt time.Time
}

// WorkerInfo describes a live worker process.
type WorkerInfo struct {
	ID          string
	Host        string
	PID         int
	Queues      map[string]int
	Concurrency int
	StartedAt   time.Time
	// HeartbeatAt is set by the store on each Heartbeat, on its clock.
	HeartbeatAt time.Time
	Running     []RunningJob
}

// ScheduleInfo describes a periodic schedule.
type ScheduleInfo struct {
	// Name identifies the schedule; ticks are recorded per name and queue.
	Name string
	// Spec is the schedule as written: a cron expression or "@every 1m".
	Spec  string
	Queue string
	Kind  string
	// Next is the next tick after registration, as the registering process
	// computed it.
	Next time.Time
	// LastTick is the latest tick enqueued; zero if none. Filled in by
	// Schedules.
	LastTick time.Time
}
