package store

import "fmt"

// Validate checks the options alone: MaxRetries between 0 and
// MaxRetriesLimit, a valid Group (ValidateGroup) and not both a Group and
// a Priority, a Priority between MinPriority and MaxPriority, no negative
// Timeout, Retention or UniqueFor, a UniqueKey of at most MaxUniqueKeyLen
// bytes and no UniqueFor without a UniqueKey. It returns an error
// wrapping ErrInvalidJob that names the field. NewJob.Validate calls it.
func (s *JobSpec) Validate() error {
	if s.MaxRetries < 0 || s.MaxRetries > MaxRetriesLimit {
		return fmt.Errorf("%w: MaxRetries %d must be between 0 and %d", ErrInvalidJob, s.MaxRetries, MaxRetriesLimit)
	}
	if err := ValidateGroup(s.Group); err != nil {
		return err
	}
	if s.Group != "" && s.Priority != 0 {
		return fmt.Errorf("%w: Priority %d with Group %q: a group runs its jobs first in first out, so a grouped job has no priority", ErrInvalidJob, s.Priority, s.Group)
	}
	if s.Priority < MinPriority || s.Priority > MaxPriority {
		return fmt.Errorf("%w: Priority %d must be between %d and %d", ErrInvalidJob, s.Priority, MinPriority, MaxPriority)
	}
	if s.Timeout < 0 {
		return fmt.Errorf("%w: Timeout %v is negative", ErrInvalidJob, s.Timeout)
	}
	if s.Retention < 0 {
		return fmt.Errorf("%w: Retention %v is negative", ErrInvalidJob, s.Retention)
	}
	if s.UniqueFor < 0 {
		return fmt.Errorf("%w: UniqueFor %v is negative", ErrInvalidJob, s.UniqueFor)
	}
	if len(s.UniqueKey) > MaxUniqueKeyLen {
		return fmt.Errorf("%w: UniqueKey is %d bytes, at most %d", ErrInvalidJob, len(s.UniqueKey), MaxUniqueKeyLen)
	}
	if s.UniqueFor > 0 && s.UniqueKey == "" {
		return fmt.Errorf("%w: UniqueFor is set without a UniqueKey", ErrInvalidJob)
	}
	return nil
}
