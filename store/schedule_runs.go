package store

import (
	"context"
	"fmt"
	"time"
)

// MaxScheduleRuns is how many runs of a schedule ScheduleRuns keeps: the
// latest ones; recording another drops the oldest.
const MaxScheduleRuns = 10

// ScheduleRun is one job a periodic schedule enqueued.
type ScheduleRun struct {
	// At is the tick the job was enqueued for, or for a run started by
	// hand (Manual) when it was started.
	At time.Time
	// Queue and JobID name the job (Queue is where it went: a partition
	// of a partitioned queue).
	Queue, JobID string
	// Manual reports a run started by hand (Inspector.RunScheduleNow)
	// rather than a tick.
	Manual bool
}

// ScheduleRuns is an optional Store interface that keeps the last runs of
// each periodic schedule, capped at MaxScheduleRuns per schedule, and lets
// an operator forget a schedule no process registers any more. Find it
// with As. Implementations are safe for concurrent use.
type ScheduleRuns interface {
	// RecordScheduleRun adds run to the runs of schedule name of queue,
	// dropping the oldest beyond MaxScheduleRuns. Runs are kept in the
	// order recorded, which is not checked against At. A bad queue, name
	// or run gives an error wrapping ErrInvalidConfig or ErrInvalidQueue.
	RecordScheduleRun(ctx context.Context, queue, name string, run ScheduleRun) error
	// ListScheduleRuns returns the runs of schedule name of queue, the
	// latest first; none (and no error) for a schedule with none.
	ListScheduleRuns(ctx context.Context, queue, name string) ([]ScheduleRun, error)
	// UnregisterSchedule forgets schedule name of queue as a running
	// scheduler registered it (RegisterSchedules), with its runs, and
	// reports whether it was registered. A scheduler still running it
	// registers it again within ScheduleRefresh. Stored schedules
	// (ScheduleStore) and the last tick are left alone.
	UnregisterSchedule(ctx context.Context, queue, name string) (bool, error)
}

// ValidateScheduleRun checks what RecordScheduleRun records: a valid
// queue, a name and job ID of 1 to MaxIDLen bytes, and a non-zero time.
func ValidateScheduleRun(queue, name string, run ScheduleRun) error {
	if err := ValidateQueue(queue); err != nil {
		return err
	}
	if name == "" || len(name) > MaxIDLen {
		return fmt.Errorf("%w: schedule name must be 1 to %d bytes, got %d", ErrInvalidConfig, MaxIDLen, len(name))
	}
	if run.JobID == "" || len(run.JobID) > MaxIDLen {
		return fmt.Errorf("%w: schedule run job ID must be 1 to %d bytes, got %d", ErrInvalidConfig, MaxIDLen, len(run.JobID))
	}
	if err := ValidateQueue(run.Queue); err != nil {
		return fmt.Errorf("schedule run: %w", err)
	}
	if run.At.IsZero() {
		return fmt.Errorf("%w: schedule run has no time", ErrInvalidConfig)
	}
	return nil
}
