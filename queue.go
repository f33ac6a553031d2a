package hopper

import "github.com/hopperq/hopper/store"

// QueueConfig is a queue's settings, shared by every process: paused,
// MaxRunning (a cap on running jobs across all workers), RateLimit per
// RatePeriod (exact: at most RateLimit starts in any window of RatePeriod,
// wherever it starts), the Retention of acked jobs, and EventsMaxLen, the length of
// its event stream (negative: no events). Change it with
// Inspector.SetQueueConfig, PauseQueue and ResumeQueue. See store.QueueConfig for
// every field and its default.
type QueueConfig = store.QueueConfig

// QueueStats describes one queue: jobs per state, its config, the age of
// its oldest ready job (Latency), the starts its rate limit counts now
// (RateUsed) and the end of a hold a handler asked for (HeldUntil,
// RateLimited).
type QueueStats = store.QueueStats

// StateCounts holds the number of jobs in each state.
type StateCounts = store.StateCounts

// ThroughputPoint counts the attempts that ended in one minute: Done
// (acks) and Failed (retry or garbage).
type ThroughputPoint = store.ThroughputPoint
