package store

import "time"

// LeaseRef names one claim of one job: the job and the token its worker
// holds. Other jobs of the same claim have the same token; a LeaseRef
// concerns its own job alone.
type LeaseRef struct {
	Queue string
	ID    string
	Token uint64
	// Progress, when not nil, is the attempt's progress since the last
	// renewal: Extend stores it with the job (replacing Percent and Data,
	// appending the log lines, keeping the last MaxLogLines) and emits a
	// progress event, when the lease is held.
	Progress *Progress
}

// Validate returns an error wrapping ErrInvalidQueue or ErrInvalidJob when
// the queue or ID is invalid, or the progress breaks a limit.
func (r LeaseRef) Validate() error {
	if err := ValidateQueue(r.Queue); err != nil {
		return err
	}
	if err := ValidateID(r.ID); err != nil {
		return err
	}
	if r.Progress != nil {
		return r.Progress.Validate()
	}
	return nil
}

// LeaseStatus is what Store.Extend found for one lease.
type LeaseStatus struct {
	// Held is false when the token is no longer current: the lease expired
	// and the job was reclaimed, released or deleted. The worker must stop
	// treating the job as its own.
	Held bool
	// Cancel reports that Cancel was called for the job.
	Cancel bool
	// Deadline is the new lease deadline when Held.
	Deadline time.Time
	// Err is set when the store could not check this lease (its queue's
	// shard failed, or the ref is invalid); Held and Cancel then mean
	// nothing, and the worker keeps the job and tries again.
	Err error
}

// MinLease is the shortest lease a store grants.
const MinLease = time.Millisecond
