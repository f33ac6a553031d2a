package hopper

import "github.com/hopperq/hopper/store"

// JobState is store.JobState.
type JobState = store.JobState

// The job states (store.JobState), in lifecycle order; the package
// documentation says what other systems call each.
const (
	StatePending = store.StatePending
	StateReady   = store.StateReady
	StateUnack   = store.StateUnack
	StateRetry   = store.StateRetry
	StateGarbage = store.StateGarbage
	StateDone    = store.StateDone
)
