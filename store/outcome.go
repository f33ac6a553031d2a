package store

import "fmt"

// Outcome is how a claimed attempt ended.
type Outcome uint8

// The outcomes of an attempt. The first six are what a worker sends to
// Store.Finish; OutcomeLeaseLost is only ever reported to middleware.
const (
	// OutcomeAck: the handler succeeded; the job is deleted, or kept in
	// done for its retention.
	OutcomeAck Outcome = iota + 1
	// OutcomeRetry: the handler failed with attempts left; the job waits in
	// retry for AttemptEnd.Delay.
	OutcomeRetry
	// OutcomeGarbage: the job is dead (retries used up, permanent failure,
	// unknown kind, undecodable); it moves to garbage with its error.
	OutcomeGarbage
	// OutcomeSnooze: the handler asked to run again later; the job waits in
	// pending for AttemptEnd.Delay and the attempt is not counted.
	OutcomeSnooze
	// OutcomeRelease: the worker shut down before the handler finished; the
	// job goes back to the front of ready at once and the attempt is not
	// counted.
	OutcomeRelease
	// OutcomeCancel: the job was cancelled while it ran; it moves to
	// garbage marked cancelled and is not retried.
	OutcomeCancel

	// OutcomeLeaseLost: the lease was lost while the attempt ran (the job
	// was reclaimed and may run elsewhere), so the worker reports nothing
	// to the store and its result is dropped. Never sent to a store.
	OutcomeLeaseLost Outcome = 100
)

var outcomeNames = [...]string{"", "ack", "retry", "garbage", "snooze", "release", "cancel"}

// String returns the outcome's lower-case name ("ack", "retry", ...,
// "lease_lost").
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) && o != 0 {
		return outcomeNames[o]
	}
	if o == OutcomeLeaseLost {
		return "lease_lost"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Finishes reports whether o is an outcome a store applies (OutcomeAck to
// OutcomeCancel).
func (o Outcome) Finishes() bool { return o >= OutcomeAck && o <= OutcomeCancel }

// OnCancelled returns the outcome that applies instead of o to a job that
// Cancel flagged while it ran: OutcomeCancel for retry, snooze and release
// (a cancelled job never runs again), o itself otherwise. This is the one
// place the rule is written in Go; stores apply it atomically, against the
// flag as it is when they finish or reclaim the job.
func (o Outcome) OnCancelled() Outcome {
	if o == OutcomeRetry || o == OutcomeSnooze || o == OutcomeRelease {
		return OutcomeCancel
	}
	return o
}
