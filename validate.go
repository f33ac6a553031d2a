package hopper

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// Limits on the fields of a NewJob, checked by NewJob.Validate.
const (
	MaxIDLen        = 128   // bytes of a job ID
	MaxKindLen      = 255   // bytes of a kind
	MaxUniqueKeyLen = 1024  // bytes of a unique key
	MaxRetriesLimit = 10000 // largest MaxRetries
)

// maxRunAt is the latest RunAt a job may have: the last millisecond of
// the year 9999 UTC. Later times are rejected with ErrInvalidJob, because a
// store keeps due times as milliseconds in a float64 (Redis sorted-set
// scores), exact only up to 2^53 ms (about the year 287,000), and no real
// job is due that late. A RunAt in the past, however far, means now.
var maxRunAt = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)

// Validate checks a job before it reaches a store: a valid queue, an ID of 1
// to 128 printable ASCII bytes (no spaces), a non-empty UTF-8 kind without
// control characters, MaxRetries between 0 and 10,000, a RunAt no later
// than the end of the year 9999 UTC, and no negative Timeout, Retention or UniqueFor. It returns an error wrapping ErrInvalidJob
// or ErrInvalidQueue that names the field. Stores call it on every job.
func (j *NewJob) Validate() error {
	if err := ValidateQueue(j.Queue); err != nil {
		return err
	}
	if err := ValidateID(j.ID); err != nil {
		return err
	}
	if j.Kind == "" || len(j.Kind) > MaxKindLen || !utf8.ValidString(j.Kind) || hasControl(j.Kind) {
		return fmt.Errorf("%w: Kind %q must be 1 to %d bytes of UTF-8 without control characters", ErrInvalidJob, j.Kind, MaxKindLen)
	}
	if j.MaxRetries < 0 || j.MaxRetries > MaxRetriesLimit {
		return fmt.Errorf("%w: MaxRetries %d must be between 0 and %d", ErrInvalidJob, j.MaxRetries, MaxRetriesLimit)
	}
	if j.RunAt.After(maxRunAt) {
		return fmt.Errorf("%w: RunAt %v is after the year 9999", ErrInvalidJob, j.RunAt)
	}
	if j.Timeout < 0 {
		return fmt.Errorf("%w: Timeout %v is negative", ErrInvalidJob, j.Timeout)
	}
	if j.Retention < 0 {
		return fmt.Errorf("%w: Retention %v is negative", ErrInvalidJob, j.Retention)
	}
	if j.UniqueFor < 0 {
		return fmt.Errorf("%w: UniqueFor %v is negative", ErrInvalidJob, j.UniqueFor)
	}
	if len(j.UniqueKey) > MaxUniqueKeyLen {
		return fmt.Errorf("%w: UniqueKey is %d bytes, at most %d", ErrInvalidJob, len(j.UniqueKey), MaxUniqueKeyLen)
	}
	if j.UniqueFor > 0 && j.UniqueKey == "" {
		return fmt.Errorf("%w: UniqueFor is set without a UniqueKey", ErrInvalidJob)
	}
	if !j.Tick.IsZero() && j.Schedule == "" {
		return fmt.Errorf("%w: Tick is set without a Schedule", ErrInvalidJob)
	}
	if j.Schedule != "" && j.Tick.IsZero() {
		return fmt.Errorf("%w: Schedule %q is set without a Tick", ErrInvalidJob, j.Schedule)
	}
	return nil
}

// ValidateID returns nil for a valid job ID (1 to 128 bytes of printable
// ASCII, no spaces), or an error wrapping ErrInvalidJob.
func ValidateID(id string) error {
	if id == "" || len(id) > MaxIDLen {
		return fmt.Errorf("%w: ID must be 1 to %d bytes, got %d", ErrInvalidJob, MaxIDLen, len(id))
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' {
			return fmt.Errorf("%w: ID %q has %q at byte %d (allowed: printable ASCII, no spaces)", ErrInvalidJob, id, id[i:i+1], i)
		}
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return true
		}
	}
	return false
}
