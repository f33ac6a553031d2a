package hopper

import "github.com/hopperq/hopper/store"

// JobRecord is a job as the store holds it, in any state: its ID, queue,
// kind, encoded args, metadata, attempt count, limits, times, error history
// and result. A handler sees it inside Job; Inspector returns it. See
// store.JobRecord for every field.
type JobRecord = store.JobRecord

// AttemptError is one failed attempt in a job's history: the attempt
// number, when it failed (store clock), the error's text and, for a panic,
// the stack.
type AttemptError = store.AttemptError

// JobSpec is a job's options as a JobRecord carries them (priority, group,
// retries, timeout, retention, unique key, metadata): see store.JobSpec.
// EnqueueOpts sets them.
type JobSpec = store.JobSpec
