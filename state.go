package hopper

import "github.com/hopperq/hopper/store"

// JobState is where a job is in its lifecycle. hopper keeps the names of
// the classic Redis delay-queue design it is built on; the comments say
// what other systems call each state.
type JobState = store.JobState

// The states a job moves through, in lifecycle order.
const (
	// StatePending: waiting for its run time (delayed or snoozed), sorted
	// by due time. Elsewhere: scheduled.
	StatePending = store.StatePending
	// StateReady: due and waiting for a worker, first in first out.
	// Elsewhere: available, enqueued, waiting.
	StateReady = store.StateReady
	// StateUnack: claimed by a worker under a lease; invisible to other
	// workers until the lease deadline passes. Elsewhere: running, active.
	StateUnack = store.StateUnack
	// StateRetry: failed, waiting for its backoff to pass. Elsewhere:
	// retryable.
	StateRetry = store.StateRetry
	// StateGarbage: dead (retries used up, permanent failure, cancelled,
	// undecodable or of an unknown kind), kept for inspection until
	// collected. Elsewhere: dead, archived, discarded.
	StateGarbage = store.StateGarbage
	// StateDone: completed and kept for its retention (only jobs with a
	// retention reach it). Elsewhere: completed.
	StateDone = store.StateDone
)

// States lists every state in lifecycle order. Callers must not modify it.
var States = store.States

// ParseState returns the state named s ("pending", "ready", "unack",
// "retry", "garbage" or "done"), or an error wrapping ErrInvalidState.
func ParseState(s string) (JobState, error) { return store.ParseState(s) }
