package store

import (
	"fmt"
	"time"
)

// DefaultMaintainBatch is MaintainOpts.Batch when zero, and
// Workflows.MaintainWorkflows' batch when zero.
const DefaultMaintainBatch = 1000

// MaintainOpts bounds one Store.Maintain call.
type MaintainOpts struct {
	// Batch is the most jobs each duty moves or deletes in one call. Zero
	// means DefaultMaintainBatch.
	Batch int
	// GarbageMaxAge deletes garbage jobs older than this. Zero keeps them
	// regardless of age.
	GarbageMaxAge time.Duration
	// GarbageMaxCount keeps at most this many garbage jobs, deleting the
	// oldest first. Zero means no limit.
	GarbageMaxCount int
}

// Normalize returns o with its defaults applied, or an error wrapping
// ErrInvalidConfig when a field is negative. Stores call it on every
// Maintain.
func (o MaintainOpts) Normalize() (MaintainOpts, error) {
	if o.Batch < 0 || o.GarbageMaxAge < 0 || o.GarbageMaxCount < 0 {
		return o, fmt.Errorf("%w: MaintainOpts %+v has a negative field", ErrInvalidConfig, o)
	}
	if o.Batch == 0 {
		o.Batch = DefaultMaintainBatch
	}
	return o, nil
}

// MaintainResult is what Store.Maintain did.
type MaintainResult struct {
	Promoted  int // pending and retry jobs moved to ready
	Reclaimed int // expired leases moved back to ready or to garbage
	Collected int // done and garbage jobs deleted
	// More reports that a batch limit was hit: call again at once.
	More bool
	// NextIn is how long until the next pending or retry job falls due,
	// the next lease expires or the next done or garbage job is due for
	// collection, on the store's clock. Meaningless when Idle.
	NextIn time.Duration
	// Idle reports that nothing in the queue is scheduled.
	Idle bool
	// Backlog reports that jobs were ready. Maintain samples the queue's
	// depth and latency once a minute (ThroughputPoint.Sampled): a
	// Scheduler maintains a queue with a backlog at least once a minute,
	// idle or not, so its history has a sample a minute.
	Backlog bool
}
