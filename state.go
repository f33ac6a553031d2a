package hopper

import "fmt"

// JobState is where a job is in its lifecycle. The names follow the classic
// Redis delay-queue design hopper comes from.
type JobState string

// The states a job moves through. See the README for the diagram.
const (
	// StatePending: waiting for its run time (delayed or snoozed), sorted by
	// due time.
	StatePending JobState = "pending"
	// StateReady: due and waiting for a worker, first in first out.
	StateReady JobState = "ready"
	// StateUnack: claimed by a worker under a lease; invisible to other
	// workers until the lease deadline passes.
	StateUnack JobState = "unack"
	// StateRetry: failed, waiting for its backoff to pass, sorted by due time.
	StateRetry JobState = "retry"
	// StateGarbage: dead (retries used up, permanent failure, cancelled,
	// undecodable or of an unknown kind), kept for inspection until collected.
	StateGarbage JobState = "garbage"
	// StateDone: completed and kept for its retention; only jobs enqueued or
	// queued with a retention ever reach it.
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

// ParseState returns the state named s, or an error wrapping ErrInvalidState.
func ParseState(s string) (JobState, error) {
	if st := JobState(s); st.Valid() {
		return st, nil
	}
	return "", fmt.Errorf("%w: %q (want one of pending, ready, unack, retry, garbage, done)", ErrInvalidState, s)
}

// Outcome is how a claimed attempt ended, as a worker reports it to
// Store.Finish.
type Outcome uint8

// The outcomes of an attempt.
const (
	// OutcomeAck: the handler succeeded; the job is deleted, or kept as done
	// for its retention.
	OutcomeAck Outcome = iota + 1
	// OutcomeRetry: the handler failed with attempts left; the job waits in
	// retry for FinishRequest.Delay.
	OutcomeRetry
	// OutcomeGarbage: the job is dead (retries used up, Permanent, unknown
	// kind, undecodable); it moves to garbage with its error.
	OutcomeGarbage
	// OutcomeSnooze: the handler asked to run again later; the job waits in
	// pending for FinishRequest.Delay and the attempt is not counted.
	OutcomeSnooze
	// OutcomeRelease: the worker shut down before the handler finished; the
	// job goes back to ready at once and the attempt is not counted.
	OutcomeRelease
	// OutcomeCancel: the job was cancelled while running; it moves to garbage
	// marked cancelled and is not retried.
	OutcomeCancel
)

var outcomeNames = [...]string{"", "ack", "retry", "garbage", "snooze", "release", "cancel"}

// String returns the outcome's lower-case name ("ack", "retry", ...).
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) && o != 0 {
		return outcomeNames[o]
	}
	if o == OutcomeLeaseLost {
		return "lease_lost"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}
