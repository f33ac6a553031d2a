package hopper

import (
	"errors"

	"github.com/hopperq/hopper/store"
)

// Outcome is how an attempt ended, as AttemptOutcome reports it to
// middleware. Its String is the lower-case name ("ack", "retry", ...).
type Outcome = store.Outcome

// The outcomes of an attempt.
//
//	handler returns            outcome        what happens to the job
//	nil                        OutcomeAck     deleted, or kept in done for its retention
//	an error, retries left     OutcomeRetry   waits in retry for its backoff, then runs again
//	an error, no retry left    OutcomeGarbage moves to garbage with its errors
//	Permanent(err)             OutcomeGarbage moves to garbage at once
//	Snooze(d)                  OutcomeSnooze  waits d in pending; the attempt is not counted
//	a panic                    as an error    recorded with its stack; the pool keeps its size
//	context deadline (timeout) as an error    retried or buried like any error
//	anything, job cancelled    OutcomeCancel  moves to garbage marked cancelled, never retried
//	anything, worker stopping  OutcomeRelease back to ready at once; the attempt is not counted
//	anything, lease lost       OutcomeLeaseLost nothing: another worker has the job now
//	(process dies mid-job)     -              its lease expires and the job runs again
const (
	OutcomeAck       = store.OutcomeAck
	OutcomeRetry     = store.OutcomeRetry
	OutcomeGarbage   = store.OutcomeGarbage
	OutcomeSnooze    = store.OutcomeSnooze
	OutcomeRelease   = store.OutcomeRelease
	OutcomeCancel    = store.OutcomeCancel
	OutcomeLeaseLost = store.OutcomeLeaseLost
)

// OutcomeOf returns what the worker does with a job whose handler returned
// err: OutcomeAck for nil, OutcomeSnooze for Snooze, OutcomeGarbage for
// Permanent or when the job has used its last attempt, OutcomeRetry
// otherwise. Middleware use it to report the outcome; the worker itself also
// turns attempts interrupted by a shutdown into OutcomeRelease and cancelled
// jobs into OutcomeCancel.
func OutcomeOf(job *JobRecord, err error) Outcome {
	if err == nil {
		return OutcomeAck
	}
	var snooze *SnoozeError
	if errors.As(err, &snooze) {
		return OutcomeSnooze
	}
	if errors.Is(err, ErrCancelled) {
		return OutcomeCancel
	}
	var perm *PermanentError
	if errors.As(err, &perm) || job.Attempt > job.MaxRetries {
		return OutcomeGarbage
	}
	return OutcomeRetry
}
