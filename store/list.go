package store

import "fmt"

// ListJobsOpts asks Admin.ListJobs for a range of one state of one queue, in
// the state's order: pending and retry by due time, ready first in first
// out, unack by lease deadline, garbage and done by finish time (ties in
// the order the jobs entered the state); Newest reverses it. The Inspector
// sends a valid queue and state, Offset at least 0 and Limit at least 1;
// a store refuses what Validate refuses.
type ListJobsOpts struct {
	Queue  string
	State  JobState
	Offset int
	Limit  int
	Newest bool
}

// Validate returns an error wrapping ErrInvalidQueue, ErrInvalidState or
// ErrInvalidConfig when the queue is invalid, the state is not one of
// States, or Offset or Limit is negative. A Limit of 0 is valid: the
// page holds no job, only the state's total.
func (r *ListJobsOpts) Validate() error {
	if err := ValidateQueue(r.Queue); err != nil {
		return err
	}
	if _, err := ParseState(string(r.State)); err != nil {
		return err
	}
	if r.Offset < 0 || r.Limit < 0 {
		return fmt.Errorf("%w: ListJobsOpts Offset %d and Limit %d must not be negative", ErrInvalidConfig, r.Offset, r.Limit)
	}
	return nil
}

// JobPage is a range of jobs from Admin.ListJobs.
type JobPage struct {
	// Jobs are the jobs from Offset on, at most Limit of them.
	Jobs []*JobRecord
	// Total is the number of jobs in the state.
	Total int
}
