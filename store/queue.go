package store

import (
	"fmt"
	"time"
)

// DefaultRatePeriod is QueueConfig.RatePeriod when zero.
const DefaultRatePeriod = time.Second

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
	// RatePeriod is the window of RateLimit. Zero means DefaultRatePeriod
	// (one second).
	RatePeriod time.Duration
	// Retention keeps acked jobs in done for this long unless the job sets
	// its own. Zero means acked jobs are deleted.
	Retention time.Duration
	// EventsMaxLen bounds the queue's event stream (see EventReader): it
	// keeps the events of about this many store steps, each step (an
	// enqueue call, a claim, a batch of outcomes, a maintenance pass) one
	// entry holding the events of all its jobs. Zero means
	// DefaultEventsMaxLen; negative turns the queue's events off (its
	// transitions then cost nothing more).
	EventsMaxLen int
}

// Normalize returns c with its defaults applied (RatePeriod), or an error
// wrapping ErrInvalidConfig that names a negative field. The Inspector
// calls it before a config reaches a store, so stores keep what they are
// given.
func (c QueueConfig) Normalize() (QueueConfig, error) {
	switch {
	case c.MaxRunning < 0:
		return c, fmt.Errorf("%w: QueueConfig.MaxRunning %d is negative", ErrInvalidConfig, c.MaxRunning)
	case c.RateLimit < 0:
		return c, fmt.Errorf("%w: QueueConfig.RateLimit %d is negative", ErrInvalidConfig, c.RateLimit)
	case c.RatePeriod < 0:
		return c, fmt.Errorf("%w: QueueConfig.RatePeriod %v is negative", ErrInvalidConfig, c.RatePeriod)
	case c.RatePeriod > 0 && c.RatePeriod < time.Millisecond:
		return c, fmt.Errorf("%w: QueueConfig.RatePeriod %v is below a millisecond", ErrInvalidConfig, c.RatePeriod)
	case c.Retention < 0:
		return c, fmt.Errorf("%w: QueueConfig.Retention %v is negative", ErrInvalidConfig, c.Retention)
	}
	if c.RatePeriod == 0 {
		c.RatePeriod = DefaultRatePeriod
	}
	return c, nil
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
	// Latency is how long the oldest ready job has been waiting since it
	// fell due; zero when nothing is ready.
	Latency time.Duration
}

// ThroughputPoint counts the attempts that ended in one minute.
type ThroughputPoint struct {
	// Minute is the start of the minute, on the store's clock.
	Minute time.Time
	// Done counts acks; Failed counts attempts that ended in retry or
	// garbage (including expired leases).
	Done, Failed int64
}
