package store

import (
	"fmt"
	"time"
)

// AttemptEnd ends one claimed attempt.
type AttemptEnd struct {
	// Queue and ID name the job.
	Queue string
	ID    string
	// Token is the fencing token from the claim (shared by the jobs of
	// that claim; the request ends job ID alone).
	Token uint64
	// Outcome says where the job goes; one of OutcomeAck to OutcomeCancel.
	Outcome Outcome
	// Delay is how long a retried or snoozed job waits, from the store's
	// now; zero or negative means due at once.
	Delay time.Duration
	// Hold, with OutcomeSnooze, stops every worker from claiming from the
	// queue for this long from the store's now (a handler told by a
	// downstream service to back off: hopper.RateLimited): until then
	// Claim returns no job of the queue and a RetryIn of the time left.
	// For a grouped job (NewJob.Group) it holds the job's group alone:
	// the group sits out of the rotation until then. A hold never shortens
	// one already in force. Zero or negative: none; ignored with other
	// outcomes.
	Hold time.Duration
	// Error is recorded in the job's history (retry, garbage, cancel). May
	// be nil; a cancel without one records ErrCancelled's text.
	Error *AttemptError
	// Result is kept with a done job (ack with a retention). May be nil.
	Result []byte
	// Retention keeps an acked job in done for this long. Zero means the
	// queue's QueueConfig.Retention as it is when the store applies the
	// ack. The worker sets the job's own retention here: the store does not
	// look it up again.
	Retention time.Duration
	// Kind and Attempt are the job's kind and attempt as its claim
	// returned them. A store may use them in the event the outcome emits
	// rather than read them again (redisstore does); when Kind is empty it
	// reads both. They change nothing else.
	Kind    string
	Attempt int
}

// Validate returns an error wrapping ErrInvalidQueue, ErrInvalidJob or
// ErrInvalidState when the queue or ID is invalid or the outcome is not one
// a store applies. Stores report it as that request's error.
func (r *AttemptEnd) Validate() error {
	if err := ValidateQueue(r.Queue); err != nil {
		return err
	}
	if err := ValidateID(r.ID); err != nil {
		return err
	}
	if !r.Outcome.Finishes() {
		return fmt.Errorf("%w: AttemptEnd for job %q of queue %q has outcome %v", ErrInvalidState, r.ID, r.Queue, r.Outcome)
	}
	return nil
}

// Ref returns the claim r finishes.
func (r *AttemptEnd) Ref() LeaseRef { return LeaseRef{Queue: r.Queue, ID: r.ID, Token: r.Token} }
