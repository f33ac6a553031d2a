package store

import (
	"fmt"
	"time"
)

// NewJob is a job as a producer hands it to Store.Enqueue: encoded args plus
// everything the store needs to schedule, limit and identify it: its
// identity, its options (the embedded JobSpec) and the directives of this
// one enqueue (RunAt or Delay, Replace, Schedule and Tick).
//
// A field's `wire` tag is its key in the keyed formats (hopper.PreparedJob,
// the stored schedules; see JobSpec). Delay, Schedule and Tick have none:
// a prepared job's Delay is already its RunAt, and only the Scheduler
// makes periodic jobs.
type NewJob struct {
	// ID identifies the job within its queue. Required; hopper's Client
	// generates one (time-ordered, 20 characters) when the caller gives
	// none.
	ID string `wire:"id"`
	// Queue is a valid queue name (see ValidateQueue).
	Queue string `wire:"q"`
	// Kind names the handler (hopper.Args.Kind).
	Kind string `wire:"k"`
	// Args are the encoded arguments (msgpack).
	Args []byte `wire:"a"`
	// JobSpec holds the job's options (priority, group, retries, timeout,
	// retention, unique key, metadata): see JobSpec.
	JobSpec
	// RunAt is when the job falls due. When zero, the job falls due Delay
	// after the store's now; a time not in the future makes it ready at once.
	RunAt time.Time `wire:"at"`
	// Delay is used when RunAt is zero; zero or negative means now.
	Delay time.Duration
	// Replace says what this job changes of the job that holds its ID or
	// unique key, when that job is still waiting (pending, ready or
	// retry): ReplaceArgs makes the waiting job this one (kind, args
	// and JobSpec; its ID, attempts, history and unique key's hold stay),
	// ReplaceRunAt moves its due time to this job's. A running job, or
	// one that ended and still holds the ID, is never changed: the
	// enqueue is a plain duplicate. Zero changes nothing (a duplicate is
	// dropped).
	Replace Replace `wire:"rp"`
	// Schedule and Tick mark a periodic job: it is enqueued only when Tick is
	// later than the last tick recorded for Schedule in this queue, and that
	// tick is recorded in the same atomic step. Zero Tick means not periodic.
	Schedule string
	Tick     time.Time
}

// Validate checks a job before it reaches a store: a valid queue, an ID of
// 1 to MaxIDLen printable ASCII bytes (no spaces), a valid kind
// (ValidateKind), valid options (JobSpec.Validate), a RunAt no later than
// MaxRunAt, known Replace flags and none on a periodic job, and Schedule
// and Tick set together. It returns an error wrapping ErrInvalidJob or
// ErrInvalidQueue that names the field. Stores call it on every job.
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
	if err := j.JobSpec.Validate(); err != nil {
		return err
	}
	if j.RunAt.After(MaxRunAt) {
		return fmt.Errorf("%w: RunAt %v is after the year 9999", ErrInvalidJob, j.RunAt)
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
