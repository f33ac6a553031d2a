package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// DefaultRatePeriod is QueueConfig.RatePeriod when zero.
const DefaultRatePeriod = time.Second

// QueueConfig is a queue's settings, shared by every process: paused,
// MaxRunning (a cap on running jobs across all workers), RateLimit per
// RatePeriod (exact for handler starts: at most RateLimit starts in any
// window of RatePeriod, wherever it starts; see RateTerms), or paced
// evenly (RateSmooth), group caps and rates, the Retention of acked jobs,
// the kind index, and EventsMaxLen, the length of its event stream.
// Change some of it with hopper's Inspector.UpdateQueueConfig, PauseQueue
// and ResumeQueue (atomic: see ConfigSwapper), all of it with
// Inspector.SetQueueConfig.
type QueueConfig struct {
	// Paused stops every worker from claiming from the queue. Enqueue still
	// works.
	Paused bool
	// MaxRunning caps the jobs of this queue running at once across all
	// workers. Zero means no cap.
	MaxRunning int
	// RateLimit caps the handler starts of the queue across all workers:
	// at most RateLimit starts in any window of length RatePeriod,
	// wherever the window starts, the claim-to-start lag included. The
	// store counts each claim for RatePeriod plus a twentieth (1 ms to
	// 1 s: 50 ms for a second) in a sliding window, and a worker starts a
	// claimed job within a guard of four fifths of that (40 ms) of sending
	// its claim or hands it back uncounted (RateTerms says why that holds),
	// so a backlog runs at about 95% of the limit. Zero means no limit. A
	// claim held back by it has a RetryIn of when its oldest counted claim
	// leaves the window.
	RateLimit int
	// RatePeriod is the window of RateLimit. Zero means DefaultRatePeriod
	// (one second). Without a RateLimit, hopper's Inspector refuses any
	// other than zero or DefaultRatePeriod.
	RatePeriod time.Duration
	// RateSmooth paces the starts RateLimit allows evenly instead of in
	// bursts (a GCRA, as a leaky bucket): each job gets a slot, one every
	// RatePeriod/RateLimit plus a twentieth (about 95% of the limit), and
	// starts within a guard of two fifths of RatePeriod/RateLimit after it
	// (the worker waits for the slot and hands the job back if it cannot
	// start in time), so that no window of k × RatePeriod/RateLimit, for k
	// of 10 or more, holds more than k + RateBurst starts, and a shorter
	// one at most one more. Above 400 starts a second the guard's floor
	// of 1 ms makes that about 20 ms windows. The guard is tight (4 ms at 100
	// a second): a worker starved of CPU misses it more often and hands
	// back more jobs, each losing its slot, so the pace runs slower (never
	// faster) than on an idle machine. False (the default) counts starts
	// in a sliding window. It needs a RateLimit, and RatePeriod/RateLimit
	// of at least a millisecond (a RateLimit of at most 1,000 a second).
	RateSmooth bool
	// RateBurst lets RateSmooth start up to this many jobs ahead of its
	// pace after a quiet spell (the bucket's depth), on top of the one
	// the pace allows. Zero (the default) means none; it needs
	// RateSmooth.
	RateBurst int
	// Retention keeps acked jobs in done for this long unless the job sets
	// its own. Zero means acked jobs are deleted.
	Retention time.Duration
	// GroupMaxRunning caps the running jobs of each group of the queue
	// (NewJob.Group) across all workers: 1 runs a group's jobs one at a
	// time, in order, a crash included (hopper's package doc, Order, says
	// what order holds after a lost lease, a shutdown, a retry or a
	// snooze). Zero means no cap (groups then only share the
	// claims fairly). Ungrouped jobs are not capped by it; a group's own
	// cap (Groups.SetGroupLimit) wins over it.
	GroupMaxRunning int
	// GroupRateLimit caps the handler starts of each group of the queue:
	// at most GroupRateLimit in any window of GroupRatePeriod, the
	// claim-to-start lag included (a sliding window per group with the
	// same guard as RateLimit for the queue). A group that used its share
	// sits out of the rotation until its oldest counted claim leaves the
	// window. Ungrouped jobs are not limited by it. Zero means no limit.
	GroupRateLimit int
	// GroupRatePeriod is the window of GroupRateLimit. Zero means
	// DefaultRatePeriod (one second). Without a GroupRateLimit, hopper's
	// Inspector refuses any other than zero or DefaultRatePeriod.
	GroupRatePeriod time.Duration
	// GroupRateSmooth paces each group's starts as RateSmooth does the
	// queue's, with GroupRateLimit per GroupRatePeriod. False (the
	// default) counts them in a sliding window. It needs a
	// GroupRateLimit.
	GroupRateSmooth bool
	// GroupRateBurst is each group's RateBurst under GroupRateSmooth.
	// Zero (the default) means none.
	GroupRateBurst int
	// EventsMaxLen bounds the queue's event stream (see EventReader): it
	// keeps the events of about this many store steps, each step (an
	// enqueue call, a claim, a batch of outcomes, a maintenance pass) one
	// entry holding the events of all its jobs. Zero means
	// DefaultEventsMaxLen; negative turns the queue's events off (its
	// transitions then cost nothing more).
	EventsMaxLen int
	// KindIndex keeps an index of the queue's jobs by kind, so that a
	// search by kind (Searcher, hopper.Inspector.SearchJobs) walks the
	// jobs of that kind instead of a whole state. Turning it on indexes
	// the jobs already there in the background (Maintain, a few thousand
	// jobs a pass: QueueStats.KindIndexBuilding until done); turning it off
	// drops the index. False (the default) costs nothing. On Redis the
	// index costs about 110 bytes of memory per job (a sorted-set entry;
	// measured with a million jobs), a ZADD per enqueued job (about 3 µs
	// of Redis CPU) and a ZREM per deleted one (about 2 µs).
	KindIndex bool
}

// NormalizeChange is Normalize for settings changed from old (the stored
// ones; zero for a queue never set up): it also refuses, wrapping
// ErrInvalidConfig, a RatePeriod (GroupRatePeriod) without a RateLimit
// (GroupRateLimit) that the change sets, which would do nothing. A period
// kept from old without a limit (one a change that removes the limit
// leaves behind) and DefaultRatePeriod, which Normalize writes, are
// dropped instead. The Inspector's SetQueueConfig and UpdateQueueConfig
// call it; a caller that checks a change before making it (the hopper
// command's queues set) calls it too, to refuse what they would.
func (c QueueConfig) NormalizeChange(old QueueConfig) (QueueConfig, error) {
	for _, r := range []struct {
		name          string
		limit         int
		period, prior *time.Duration
	}{
		{"", c.RateLimit, &c.RatePeriod, &old.RatePeriod},
		{"Group", c.GroupRateLimit, &c.GroupRatePeriod, &old.GroupRatePeriod},
	} {
		if r.limit != 0 || *r.period <= 0 {
			continue // a negative period is Normalize's to refuse
		}
		if *r.period != *r.prior && *r.period != DefaultRatePeriod {
			return c, fmt.Errorf("%w: QueueConfig.%sRatePeriod %v needs a %sRateLimit (the starts allowed per %sRatePeriod): set %sRateLimit too, or leave %sRatePeriod zero",
				ErrInvalidConfig, r.name, *r.period, r.name, r.name, r.name, r.name)
		}
		*r.period = 0
	}
	return c.Normalize()
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
	case c.GroupMaxRunning < 0:
		return c, fmt.Errorf("%w: QueueConfig.GroupMaxRunning %d is negative", ErrInvalidConfig, c.GroupMaxRunning)
	case c.GroupRateLimit < 0:
		return c, fmt.Errorf("%w: QueueConfig.GroupRateLimit %d is negative", ErrInvalidConfig, c.GroupRateLimit)
	case c.GroupRatePeriod < 0:
		return c, fmt.Errorf("%w: QueueConfig.GroupRatePeriod %v is negative", ErrInvalidConfig, c.GroupRatePeriod)
	case c.GroupRatePeriod > 0 && c.GroupRatePeriod < time.Millisecond:
		return c, fmt.Errorf("%w: QueueConfig.GroupRatePeriod %v is below a millisecond", ErrInvalidConfig, c.GroupRatePeriod)
	}
	if c.RatePeriod == 0 {
		c.RatePeriod = DefaultRatePeriod
	}
	if c.GroupRateLimit > 0 && c.GroupRatePeriod == 0 {
		c.GroupRatePeriod = DefaultRatePeriod
	}
	if err := checkSmooth("", c.RateLimit, c.RatePeriod, c.RateSmooth, c.RateBurst); err != nil {
		return c, err
	}
	if err := checkSmooth("Group", c.GroupRateLimit, c.GroupRatePeriod, c.GroupRateSmooth, c.GroupRateBurst); err != nil {
		return c, err
	}
	return c, nil
}

// checkSmooth checks the smooth mode of one rate limit (prefix "" for the
// queue's, "Group" for each group's), its period defaulted.
func checkSmooth(prefix string, limit int, period time.Duration, smooth bool, burst int) error {
	switch {
	case burst < 0:
		return fmt.Errorf("%w: QueueConfig.%sRateBurst %d is negative", ErrInvalidConfig, prefix, burst)
	case burst > 0 && !smooth:
		return fmt.Errorf("%w: QueueConfig.%sRateBurst %d needs %sRateSmooth", ErrInvalidConfig, prefix, burst, prefix)
	case smooth && limit == 0:
		return fmt.Errorf("%w: QueueConfig.%sRateSmooth needs a %sRateLimit", ErrInvalidConfig, prefix, prefix)
	case smooth && period/time.Duration(limit) < time.Millisecond:
		return fmt.Errorf("%w: QueueConfig.%sRateSmooth paces one start every %v (%sRatePeriod/%sRateLimit), below a millisecond",
			ErrInvalidConfig, prefix, period/time.Duration(limit), prefix, prefix)
	}
	return nil
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

// Add adds o's counts to c's.
func (c *StateCounts) Add(o StateCounts) {
	c.Pending += o.Pending
	c.Ready += o.Ready
	c.Unack += o.Unack
	c.Retry += o.Retry
	c.Garbage += o.Garbage
	c.Done += o.Done
}

// Total returns the sum over all states.
func (c StateCounts) Total() int64 {
	return c.Pending + c.Ready + c.Unack + c.Retry + c.Garbage + c.Done
}

// QueueStats describes one queue: jobs per state, its config, the age of
// its oldest ready job (Latency), the starts its rate limit counts now
// (RateUsed) and the end of a hold a handler asked for (HeldUntil).
type QueueStats struct {
	Queue  string
	Counts StateCounts
	Config QueueConfig
	// Latency is how long the oldest ready job has been waiting since it
	// fell due; zero when nothing is ready. In a queue with more than 100
	// groups (NewJob.Group) redisstore reads the oldest job of the 100
	// groups claimed from next, not of every group, so that its cost does
	// not grow with their number: an older job may wait in a group further
	// back. memstore is exact.
	Latency time.Duration
	// RateUsed is how many claims the rate limit counts now: those of the
	// last RatePeriod and its guard, or under RateSmooth the starts its
	// pace has given out ahead of now. Zero when the queue has no
	// RateLimit.
	RateUsed int
	// HeldUntil is when a hold a handler asked for (AttemptEnd.Hold)
	// ends; zero when none is in force. Until then no worker claims from
	// the queue.
	HeldUntil time.Time
	// KindIndexBuilding reports that Config.KindIndex is on and the jobs
	// enqueued before it was turned on are still being indexed: searches
	// by kind scan the state until it is done.
	KindIndexBuilding bool
}

// How long stores keep throughput (Admin.GetThroughput): per minute for a
// day, then per hour for 30 days. Both stores bound what they keep: on
// Redis at most 2 × (ThroughputMinutes + ThroughputHours) hash fields per
// queue (about 300 KB for a queue busy every minute of the month, nothing
// for an idle one); memstore about 52 KB per queue where a job ended.
const (
	ThroughputMinutes = 24 * 60
	ThroughputHours   = 30 * 24
)

// ThroughputPoint counts the attempts that ended in one minute, or in one
// hour for the older history.
type ThroughputPoint struct {
	// Minute is the start of the interval, on the store's clock.
	Minute time.Time
	// Span is the interval's length: time.Minute for the last
	// ThroughputMinutes, time.Hour before. An hour at the edge of the
	// minutes holds only what the minutes no longer show.
	Span time.Duration
	// Done counts acks; Failed counts attempts that ended in retry or
	// garbage (including expired leases).
	Done, Failed int64
	// Sampled reports that the queue's depth was sampled in the interval
	// (Maintain samples it once a minute, and a queue with jobs ready is
	// maintained at least that often while a Scheduler runs): Ready jobs
	// and the Latency of the oldest, the largest of the hour's samples for
	// an hour.
	Sampled bool
	Ready   int64
	Latency time.Duration
}

// GroupStats describes one group of a queue (NewJob.Group).
type GroupStats struct {
	Group string
	// Ready and Running count the group's jobs in ready and unack.
	Ready, Running int64
	// Limit is the cap on its running jobs: its own (SetGroupLimit), else
	// the queue's GroupMaxRunning; zero means none. Own reports that the
	// group has a cap of its own.
	Limit int
	Own   bool
	// HeldUntil is when the group's hold ends: its GroupRateLimit used up,
	// or a handler's RateLimited on one of its jobs. Its ready jobs wait
	// until then while other groups run. Zero when the group is not held.
	HeldUntil time.Time
}

// Groups is implemented by stores that keep per-group caps and report a
// queue's groups. Both stores of this module implement it.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type Groups interface {
	// SetGroupLimit gives group of queue a cap of its own on running
	// jobs, overriding QueueConfig.GroupMaxRunning; limit 0 removes it.
	// Every worker follows it from its next claim. A negative limit, or
	// more than MaxGroupLimits groups with caps in one queue, fails with
	// ErrInvalidConfig.
	SetGroupLimit(ctx context.Context, queue, group string, limit int) error
	// ListGroups returns the groups of queue that have ready or running jobs,
	// a cap of their own or a hold in force, sorted by name, at most limit
	// of them (all when limit is zero or less).
	ListGroups(ctx context.Context, queue string, limit int) ([]GroupStats, error)
}

// ValidateGroupLimit checks a SetGroupLimit call: a valid queue, a
// non-empty valid group, a limit not negative.
func ValidateGroupLimit(queue, group string, limit int) error {
	if err := ValidateQueue(queue); err != nil {
		return err
	}
	if group == "" {
		return fmt.Errorf("%w: SetGroupLimit with no group", ErrInvalidConfig)
	}
	if err := ValidateGroup(group); err != nil {
		// "hopper: invalid config: Group ...", wrapping both.
		why := strings.TrimPrefix(err.Error(), ErrInvalidJob.Error()+": ")
		return &worded{msg: ErrInvalidConfig.Error() + ": " + why, errs: []error{ErrInvalidConfig, err}}
	}
	if limit < 0 {
		return fmt.Errorf("%w: group limit %d is negative", ErrInvalidConfig, limit)
	}
	return nil
}

// ValidateQueueConfig checks an Admin.SetQueueConfig or
// ConfigSwapper.CompareAndSwapQueueConfig call: a valid queue and a cfg
// that Normalize accepts. It returns an error wrapping ErrInvalidQueue or
// ErrInvalidConfig. It does not normalize: a store keeps cfg as given.
func ValidateQueueConfig(queue string, cfg QueueConfig) error {
	if err := ValidateQueue(queue); err != nil {
		return err
	}
	_, err := cfg.Normalize()
	return err
}
