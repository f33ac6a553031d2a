package hopper

import "github.com/hopperq/hopper/store"

// Replace is a set of flags (EnqueueOpts.Replace): what an enqueue changes
// of the waiting job that holds its ID or unique key, instead of being
// dropped as a duplicate. The zero value changes nothing.
//
//	holder is          ReplaceArgs                 ReplaceRunAt
//	pending            takes the new args          due at the new time (ready if now)
//	retry              takes the new args          due at the new time (ready if now)
//	ready              takes the new args          back to pending if the new time is later
//	running (unack)    unchanged; this job is added and takes the unique key
//	done, garbage      unchanged: a duplicate      unchanged: a duplicate
//
// A replaced job keeps its ID, attempt count, error history, enqueue time
// and unique key. Debounce ("run once, D after the last event, with the
// last event's args") is a unique key, Delay D and both flags:
//
//	hopper.EnqueueOpts{Unique: &hopper.UniqueOpts{Key: "reindex:" + user},
//		Delay: 200 * time.Millisecond, Replace: hopper.ReplaceArgs | hopper.ReplaceRunAt}
//
// An event that arrives while the job runs cannot change what that run
// read: it is added as a new job, which takes the unique key, so the last
// event is always followed by a run. (An ID held by a running job is a
// plain duplicate: the ID cannot name two jobs.) BullMQ calls this
// debouncing (its deduplication with extend and
// replace); River and asynq have no equivalent at enqueue.
type Replace = store.Replace

// The Replace flags.
const (
	// ReplaceArgs gives the waiting job this enqueue's kind, args, meta,
	// MaxRetries, Timeout and Retention.
	ReplaceArgs = store.ReplaceArgs
	// ReplaceRunAt moves the waiting job's due time to this enqueue's:
	// RunAt, or Delay from the store's now.
	ReplaceRunAt = store.ReplaceRunAt
)
