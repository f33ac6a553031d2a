package store

// ListJobsOpts asks Admin.ListJobs for a range of one state of one queue, in
// the state's order: pending and retry by due time, ready first in first
// out, unack by lease deadline, garbage and done by finish time (ties in
// the order the jobs entered the state); Newest reverses it. The Inspector
// has checked every field: a valid queue and state, Offset at least 0 and
// Limit at least 1.
type ListJobsOpts struct {
	Queue  string
	State  JobState
	Offset int
	Limit  int
	Newest bool
}

// JobPage is a range of jobs from Admin.ListJobs.
type JobPage struct {
	// Jobs are the jobs from Offset on, at most Limit of them.
	Jobs []*JobRecord
	// Total is the number of jobs in the state.
	Total int
}
