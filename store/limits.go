package store

import "time"

// Limits on what a store accepts and keeps. Package hopper re-exports the
// ones a job author meets.
const (
	// MaxQueueNameLen is the longest queue name, in bytes.
	MaxQueueNameLen = 64
	// MaxIDLen is the longest job ID, in bytes.
	MaxIDLen = 128
	// MaxKindLen is the longest job kind, in bytes.
	MaxKindLen = 255
	// MaxUniqueKeyLen is the longest unique key, in bytes.
	MaxUniqueKeyLen = 1024
	// MaxMetaBytes is the most a job's Meta may hold, its keys' and
	// values' bytes added up: 64 KiB. Meta is for small values such as
	// trace context; a job's data goes in its args, which have their own
	// limit (hopper.ClientConfig.MaxArgsBytes).
	MaxMetaBytes = 64 << 10
	// MaxRetriesLimit is the largest MaxRetries a job may have.
	MaxRetriesLimit = 10000
	// MaxErrorHistory is how many attempt errors a store keeps per job;
	// older ones are dropped first.
	MaxErrorHistory = 20
	// MinPriority and MaxPriority bound NewJob.Priority: seven levels,
	// 0 the default, higher claimed first.
	MinPriority = -3
	MaxPriority = 3
	// MaxGroupLen is the longest NewJob.Group, in bytes.
	MaxGroupLen = 128
	// MaxGroupLimits is how many groups of one queue may have a cap of
	// their own (Groups.SetGroupLimit).
	MaxGroupLimits = 10000
	// GroupQuantum is the most jobs a group gives one claim per turn of
	// the rotation over a queue's groups, when the claim has enough groups
	// to share among (NewJob.Group).
	GroupQuantum = 4
)

// MaxRunAt is the latest RunAt a job may have: the last millisecond of the
// year 9999 UTC. A store keeps due times as milliseconds in a float64
// (Redis sorted-set scores), exact only up to 2^53 ms (about the year
// 287,000), and no real job is due that late. A RunAt in the past, however
// far, means now.
var MaxRunAt = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
