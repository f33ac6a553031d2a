package hopper

import "errors"

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
