package hopper

import (
	"github.com/hopperq/hopper/internal/msgpackguard"
	"github.com/hopperq/hopper/store"
)

// Limits on what hopper accepts. Enqueue refuses a job beyond one of them
// with an error wrapping ErrInvalidJob, ErrInvalidQueue or ErrArgsTooLarge
// that names the field; nothing is ever truncated silently. Package store
// holds the limits every store keeps (store.MaxQueueNameLen and the rest).
const (
	// MinPriority and MaxPriority bound EnqueueOpts.Priority (-3 to 3).
	MinPriority = store.MinPriority
	MaxPriority = store.MaxPriority
	// MaxArgsDepth is how deep arrays and maps may nest in encoded args (a
	// struct counts as one level, as it encodes to a map).
	MaxArgsDepth = msgpackguard.MaxDepth
	// DefaultMaxArgsBytes is the largest encoded args a Client accepts
	// unless ClientConfig.MaxArgsBytes says otherwise: 1 MiB.
	DefaultMaxArgsBytes = 1 << 20
	// MaxResultBytes is the largest encoded result RecordResult accepts:
	// 64 KiB.
	MaxResultBytes = 64 << 10
	// MaxMetaBytes is the most a job's Meta (EnqueueOpts.Meta) may hold,
	// its keys' and values' bytes added up: 64 KiB.
	MaxMetaBytes = store.MaxMetaBytes
)
