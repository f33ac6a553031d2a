package store

import (
	"fmt"
	"time"
)

// NewJob is a job as a producer hands it to Store.Enqueue: encoded args plus
// everything the store needs to schedule, limit and identify it.
type NewJob struct {
	// ID identifies the job within its queue. Required; hopper's Client
	// generates one (time-ordered, 20 characters) when the caller gives
	// none.
	ID string
	// Queue is a valid queue name (see ValidateQueue).
	Queue string
	// Kind names the handler (hopper.Args.Kind).
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
	// Group puts the job in a group of its queue (a key such as a tenant
	// ID: 1 to MaxGroupLen printable ASCII bytes, no spaces or commas;
	// empty for none). A claim rotates over the groups that have ready
	// jobs, a turn of up to four jobs each (one each when a claim wants no
	// more), and takes a group's jobs first in first out;
	// QueueConfig.GroupMaxRunning and Groups.SetGroupLimit cap how many of
	// a group's jobs run at once. A grouped job has no Priority.
	Group string
	// Priority orders the job among the ready jobs of its queue: a claim
	// takes the highest priority first, and jobs of equal priority in the
	// order they became ready. From MinPriority to MaxPriority; zero is
	// the default level.
	Priority int
	// UniqueKey, when set, makes the job unique in its queue: while another
	// job holds the key, Enqueue reports a duplicate instead. The key is
	// released when its job is acked, dies, is deleted or is cancelled, or
	// after UniqueFor when that is set.
	UniqueKey string
	// UniqueFor bounds how long the unique key is held. Zero means until the
	// job finishes.
	UniqueFor time.Duration
	// Replace says what this job changes of the job that holds its ID or
	// unique key, when that job is still waiting (pending, ready or
	// retry): ReplaceArgs makes the waiting job this one (kind, args,
	// meta, retries, timeout; its ID, attempts and history stay),
	// ReplaceRunAt moves its due time to this job's. A running job, or
	// one that ended and still holds the ID, is never changed: the
	// enqueue is a plain duplicate. Zero changes nothing (a duplicate is
	// dropped).
	Replace Replace
	// Schedule and Tick mark a periodic job: it is enqueued only when Tick is
	// later than the last tick recorded for Schedule in this queue, and that
	// tick is recorded in the same atomic step. Zero Tick means not periodic.
	Schedule string
	Tick     time.Time
}

// Validate checks a job before it reaches a store: a valid queue, an ID of
// 1 to MaxIDLen printable ASCII bytes (no spaces), a valid kind
// (ValidateKind), MaxRetries between 0 and MaxRetriesLimit, a Priority
// between MinPriority and MaxPriority, a valid Group (ValidateGroup) and
// not both a Group and a Priority, a RunAt no
// later than MaxRunAt, no negative Timeout, Retention or UniqueFor, a
// UniqueKey of at most MaxUniqueKeyLen bytes, and Schedule and Tick set
// together. It returns an error wrapping ErrInvalidJob or ErrInvalidQueue
// that names the field. Stores call it on every job.
func (j *NewJob) Validate() error {
	if err := ValidateQueue(j.Queue); err != nil {
		return err
	}
	if err := ValidateID(j.ID); err != nil {
		return err
	}
	if err := ValidateKind(j.Kind); err != nil {
		return err
	}
	if j.MaxRetries < 0 || j.MaxRetries > MaxRetriesLimit {
		return fmt.Errorf("%w: MaxRetries %d must be between 0 and %d", ErrInvalidJob, j.MaxRetries, MaxRetriesLimit)
	}
	if j.RunAt.After(MaxRunAt) {
		return fmt.Errorf("%w: RunAt %v is after the year 9999", ErrInvalidJob, j.RunAt)
	}
	if err := ValidateGroup(j.Group); err != nil {
		return err
	}
	if j.Group != "" && j.Priority != 0 {
		return fmt.Errorf("%w: Priority %d with Group %q: a group runs its jobs first in first out, so a grouped job has no priority", ErrInvalidJob, j.Priority, j.Group)
	}
	if j.Priority < MinPriority || j.Priority > MaxPriority {
		return fmt.Errorf("%w: Priority %d must be between %d and %d", ErrInvalidJob, j.Priority, MinPriority, MaxPriority)
	}
	if j.Timeout < 0 {
		return fmt.Errorf("%w: Timeout %v is negative", ErrInvalidJob, j.Timeout)
	}
	if j.Retention < 0 {
		return fmt.Errorf("%w: Retention %v is negative", ErrInvalidJob, j.Retention)
	}
	if j.UniqueFor < 0 {
		return fmt.Errorf("%w: UniqueFor %v is negative", ErrInvalidJob, j.UniqueFor)
	}
	if len(j.UniqueKey) > MaxUniqueKeyLen {
		return fmt.Errorf("%w: UniqueKey is %d bytes, at most %d", ErrInvalidJob, len(j.UniqueKey), MaxUniqueKeyLen)
	}
	if j.UniqueFor > 0 && j.UniqueKey == "" {
		return fmt.Errorf("%w: UniqueFor is set without a UniqueKey", ErrInvalidJob)
	}
	if j.Replace&^(ReplaceArgs|ReplaceRunAt|ReplaceOnly) != 0 {
		return fmt.Errorf("%w: Replace %d has unknown bits (ReplaceArgs is 1, ReplaceRunAt 2, ReplaceOnly 4)", ErrInvalidJob, j.Replace)
	}
	if j.Replace != 0 && j.Schedule != "" {
		return fmt.Errorf("%w: Replace is set on a periodic job (Schedule %q): a tick is enqueued once", ErrInvalidJob, j.Schedule)
	}
	if !j.Tick.IsZero() && j.Schedule == "" {
		return fmt.Errorf("%w: Tick is set without a Schedule", ErrInvalidJob)
	}
	if j.Schedule != "" && j.Tick.IsZero() {
		return fmt.Errorf("%w: Schedule %q is set without a Tick", ErrInvalidJob, j.Schedule)
	}
	return nil
}

// ValidateJobs checks a batch for Store.Enqueue: no nil job and every job
// valid. It returns the first problem, naming the job's position.
func ValidateJobs(jobs []*NewJob) error {
	for i, j := range jobs {
		if j == nil {
			return fmt.Errorf("%w: job %d is nil", ErrInvalidJob, i)
		}
		if err := j.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// EnqueueResult is what Store.Enqueue did with one job.
type EnqueueResult struct {
	// ID is the job's ID, or for a duplicate the ID of the job that holds
	// the ID or unique key (empty for a skipped periodic tick).
	ID string
	// State is where the new job went: StatePending or StateReady. Empty
	// for a duplicate.
	State JobState
	// Duplicate reports that nothing was added.
	Duplicate bool
	// Replaced, with Duplicate, reports that the waiting job that holds
	// the ID or unique key took what NewJob.Replace asked; State is then
	// where that job is now.
	Replaced bool
	// Err is set when the store could not reach this job's queue (its
	// shard failed) while it stored other jobs of the same call: the job
	// may or may not have been added, and enqueueing it again under the
	// same ID is safe. A store fails the whole call instead when it
	// stored none.
	Err error
}
