package store

import "fmt"

// ValidateRequeue checks an Admin.RequeueJobs call: a valid queue and a
// state jobs can be requeued from (JobState.Requeueable: pending, retry,
// garbage or done). It returns an error wrapping ErrInvalidQueue or
// ErrInvalidState. The IDs are not checked: one no job has is skipped.
func ValidateRequeue(queue string, from JobState) error {
	return validateFrom(queue, from, from.Requeueable(), "requeue", "pending, retry, garbage or done")
}

// ValidateDelete checks an Admin.DeleteJobs call: a valid queue and a
// state jobs can be deleted from (JobState.Deletable: any state but
// unack). It returns an error wrapping ErrInvalidQueue or ErrInvalidState.
// The IDs are not checked: one no job has is skipped.
func ValidateDelete(queue string, from JobState) error {
	return validateFrom(queue, from, from.Deletable(), "delete", "pending, ready, retry, garbage or done")
}

// validateFrom checks the queue of an action on the jobs in state from,
// then whether the action allows from (allowed), naming the states it
// wants in the error.
func validateFrom(queue string, from JobState, allowed bool, action, want string) error {
	if err := ValidateQueue(queue); err != nil {
		return err
	}
	if !allowed {
		return fmt.Errorf("%w: cannot %s from %q (want %s)", ErrInvalidState, action, from, want)
	}
	return nil
}
