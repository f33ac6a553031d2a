package store

import "fmt"

// ValidateRequeue checks an Admin.RequeueJobs call: a valid queue and a
// state jobs can be requeued from (JobState.Requeueable: pending, retry,
// garbage or done). It returns an error wrapping ErrInvalidQueue or
// ErrInvalidState. The IDs are not checked: one no job has is skipped.
func ValidateRequeue(queue string, from JobState) error {
	if err := ValidateQueue(queue); err != nil {
		return err
	}
	if !from.Requeueable() {
		return fmt.Errorf("%w: cannot requeue from %q (want pending, retry, garbage or done)", ErrInvalidState, from)
	}
	return nil
}

// ValidateDelete checks an Admin.DeleteJobs call: a valid queue and a
// state jobs can be deleted from (JobState.Deletable: any state but
// unack). It returns an error wrapping ErrInvalidQueue or ErrInvalidState.
// The IDs are not checked: one no job has is skipped.
func ValidateDelete(queue string, from JobState) error {
	if err := ValidateQueue(queue); err != nil {
		return err
	}
	if !from.Deletable() {
		return fmt.Errorf("%w: cannot delete from %q (want pending, ready, retry, garbage or done)", ErrInvalidState, from)
	}
	return nil
}
