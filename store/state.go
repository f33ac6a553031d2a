package store

import "fmt"

// JobState is where a job is in its lifecycle. The names come from the
// classic Redis delay-queue design hopper is built on; other systems call
// pending "scheduled", unack "running" or "active", and garbage "dead",
// "archived" or "discarded".
type JobState string

// The states a job moves through.
const (
	// StatePending: waiting for its run time (delayed or snoozed), sorted
	// by due time. Elsewhere: scheduled.
	StatePending JobState = "pending"
	// StateReady: due and waiting for a worker, first in first out.
	// Elsewhere: available, enqueued, waiting.
	StateReady JobState = "ready"
	// StateUnack: claimed by a worker under a lease; invisible to other
	// workers until the lease deadline passes. Elsewhere: running, active.
	StateUnack JobState = "unack"
	// StateRetry: failed, waiting for its backoff to pass, sorted by due
	// time. Elsewhere: retryable.
	StateRetry JobState = "retry"
	// StateGarbage: dead (retries used up, permanent failure, cancelled,
	// undecodable or of an unknown kind), kept for inspection until
	// collected. Elsewhere: dead, archived, discarded.
	StateGarbage JobState = "garbage"
	// StateDone: completed and kept for its retention; only jobs enqueued
	// or queued with a retention ever reach it. Elsewhere: completed.
	StateDone JobState = "done"
)

// States lists every state in lifecycle order. Callers must not modify it.
var States = []JobState{StatePending, StateReady, StateUnack, StateRetry, StateGarbage, StateDone}

// Valid reports whether s is one of the States.
func (s JobState) Valid() bool {
	switch s {
	case StatePending, StateReady, StateUnack, StateRetry, StateGarbage, StateDone:
		return true
	}
	return false
}

// ParseState returns the state named s, or an error wrapping
// ErrInvalidState.
func ParseState(s string) (JobState, error) {
	if st := JobState(s); st.Valid() {
		return st, nil
	}
	return "", fmt.Errorf("%w: %q (want one of pending, ready, unack, retry, garbage, done)", ErrInvalidState, s)
}

// Requeueable reports whether a job in s can be requeued (Admin.RequeueJobs):
// pending, retry, garbage and done. Ready is ready already; unack is
// running (cancel it instead).
func (s JobState) Requeueable() bool {
	switch s {
	case StatePending, StateRetry, StateGarbage, StateDone:
		return true
	}
	return false
}

// Deletable reports whether a job in s can be deleted (Admin.DeleteJobs): any
// state but unack, whose job is running (cancel it instead).
func (s JobState) Deletable() bool { return s.Valid() && s != StateUnack }

// Replaceable reports whether a job in s can be changed in place (an
// enqueue with NewJob.Replace, hopper.Inspector.UpdateJob): a waiting job,
// pending, ready or retry. A running job or an ended one never is.
func (s JobState) Replaceable() bool {
	switch s {
	case StatePending, StateReady, StateRetry:
		return true
	}
	return false
}

// Cancellable reports whether cancelling a job in s does anything
// (Admin.CancelJob): waiting (pending, ready, retry) or running (unack).
func (s JobState) Cancellable() bool {
	switch s {
	case StatePending, StateReady, StateRetry, StateUnack:
		return true
	}
	return false
}
