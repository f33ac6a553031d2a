package store

import (
	"fmt"
	"time"
)

// ClaimOpts asks Store.Claim for ready jobs.
type ClaimOpts struct {
	// Queue to claim from.
	Queue string
	// Max is how many jobs to claim at most; at least 1.
	Max int
	// Lease is how long the jobs stay invisible to other workers unless
	// extended; at least one millisecond.
	Lease time.Duration
	// WorkerID names the claiming process (for inspection).
	WorkerID string
}

// Validate returns an error wrapping ErrInvalidQueue or ErrInvalidConfig
// when the queue is invalid, Max is below 1 or Lease below a millisecond.
func (r *ClaimOpts) Validate() error {
	if err := ValidateQueue(r.Queue); err != nil {
		return err
	}
	if r.Max < 1 {
		return fmt.Errorf("%w: ClaimOpts.Max is %d, want at least 1", ErrInvalidConfig, r.Max)
	}
	if r.Lease < time.Millisecond {
		return fmt.Errorf("%w: ClaimOpts.Lease is %v, want at least 1ms", ErrInvalidConfig, r.Lease)
	}
	return nil
}

// ClaimResult is what Store.Claim returned.
type ClaimResult struct {
	// Jobs claimed, oldest first, each in StateUnack with Token, Deadline
	// and Attempt set. Every job of one claim has the same Token, new to
	// this call; a job's claim is named by its ID and that token together
	// (see the package documentation, Tokens).
	Jobs []*JobRecord
	// RetryIn is set when the queue is paused or a concurrency or rate
	// limit held jobs back: the earliest time worth claiming again.
	RetryIn time.Duration
	// StartWithin is set when a rate limit counted the claim
	// (QueueConfig.ClaimGuard): the claimer starts each job's handler no
	// later than StartWithin after the moment it sent the claim, on its
	// own clock, or hands the job back with OutcomeRelease. A rate limit
	// counts starts only under that rule (see RateTerms). Zero means no
	// such bound.
	StartWithin time.Duration
	// StartAfter is set when a smooth rate limit paced the claim
	// (QueueConfig.RateSmooth), one entry per job of Jobs: the job starts
	// no earlier than StartAfter[i] after the claim's reply came, on the
	// claimer's clock, and no later than StartAfter[i] + StartWithin
	// after the claim was sent (or it is handed back). Nil means every
	// job may start at once.
	StartAfter []time.Duration
}
