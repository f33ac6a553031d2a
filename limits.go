package hopper

import (
	"github.com/hopperq/hopper/internal/msgpackguard"
	"github.com/hopperq/hopper/store"
)

// Limits on what hopper accepts. Enqueue refuses a job beyond one of them
// with an error wrapping ErrInvalidJob, ErrInvalidQueue or ErrArgsTooLarge
// that names the field; nothing is ever truncated silently.
const (
	// MaxQueueNameLen is the longest queue name, in bytes.
	MaxQueueNameLen = store.MaxQueueNameLen
	// MaxIDLen is the longest job ID (EnqueueOpts.ID), in bytes.
	MaxIDLen = store.MaxIDLen
	// MaxKindLen is the longest kind (Args.Kind), in bytes.
	MaxKindLen = store.MaxKindLen
	// MaxUniqueKeyLen is the longest UniqueOpts.Key, in bytes.
	MaxUniqueKeyLen = store.MaxUniqueKeyLen
	// MaxRetriesLimit is the largest EnqueueOpts.MaxRetries.
	MaxRetriesLimit = store.MaxRetriesLimit
	// MinPriority and MaxPriority bound EnqueueOpts.Priority (-3 to 3).
	MinPriority = store.MinPriority
	MaxPriority = store.MaxPriority
	// MaxGroupLen is the longest EnqueueOpts.Group, in bytes.
	MaxGroupLen = store.MaxGroupLen
	// MaxArgsDepth is how deep arrays and maps may nest in encoded args (a
	// struct counts as one level, as it encodes to a map).
	MaxArgsDepth = msgpackguard.MaxDepth
	// DefaultMaxArgsBytes is the largest encoded args a Client accepts
	// unless ClientConfig.MaxArgsBytes says otherwise: 1 MiB.
	DefaultMaxArgsBytes = 1 << 20
	// MaxResultBytes is the largest encoded result RecordResult accepts:
	// 64 KiB.
	MaxResultBytes = 64 << 10
	// MaxErrorHistory is how many attempt errors a store keeps per job;
	// older ones are dropped first.
	MaxErrorHistory = store.MaxErrorHistory
	// MaxProgressBytes is the largest encoded data Progress accepts: 4 KiB.
	MaxProgressBytes = store.MaxProgressBytes
	// MaxLogLines is how many log lines (Log) a job keeps; older ones are
	// dropped first.
	MaxLogLines = store.MaxLogLines
	// MaxLogLineBytes is the longest log line kept; Log cuts longer ones.
	MaxLogLineBytes = store.MaxLogLineBytes
)
