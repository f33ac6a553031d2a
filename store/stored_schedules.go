package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// StoredSchedule is a periodic schedule kept in the store, so that it can
// be added, paused, changed and removed while processes run: every
// Scheduler reads the stored schedules and picks a change up within a
// second or so. Each tick is enqueued once across all processes, as for a
// schedule in code (NewJob.Schedule and Tick).
type StoredSchedule struct {
	// Name and Queue identify the schedule; ticks are recorded per name
	// and queue, shared with a schedule in code of the same name.
	Name  string
	Queue string
	// Spec is when it ticks, as hopper.NextTick reads it ("@every 5m", a
	// cron expression).
	Spec string
	// Job is the job of every tick: its Kind, Args and options (JobSpec),
	// a unique key included (each tick's job is then unique while it
	// waits or runs). Its Queue is the schedule's; ID, RunAt, Delay,
	// Replace, Schedule and Tick are the tick's to decide and must be
	// zero.
	Job NewJob
	// Paused stops the ticks until it is cleared.
	Paused bool
	// CatchUp enqueues, when a process starts running the schedule, the
	// latest tick missed while none did.
	CatchUp bool
	// UpdatedAt is when it was last put; set by the store.
	UpdatedAt time.Time
}

// Validate checks a schedule for PutSchedule: a valid name (as a job ID)
// and queue, a spec, and a job valid for its queue with none of the
// tick's fields set. It returns an error wrapping ErrInvalidConfig or
// ErrInvalidJob. parse, when not nil, checks the spec.
func (s *StoredSchedule) Validate(parse func(spec string) error) error {
	if err := checkScheduleName(s.Name); err != nil {
		return err
	}
	if err := ValidateQueue(s.Queue); err != nil {
		return err
	}
	if s.Spec == "" {
		return fmt.Errorf("%w: schedule %q has no Spec", ErrInvalidConfig, s.Name)
	}
	if parse != nil {
		if err := parse(s.Spec); err != nil {
			return fmt.Errorf("%w: schedule %q: %w", ErrInvalidConfig, s.Name, err)
		}
	}
	j := s.Job
	if j.ID != "" || !j.RunAt.IsZero() || j.Delay != 0 || j.Replace != 0 || j.Schedule != "" || !j.Tick.IsZero() {
		return fmt.Errorf("%w: schedule %q: the job's ID, RunAt, Delay, Replace, Schedule and Tick are the tick's to decide", ErrInvalidJob, s.Name)
	}
	j.ID, j.Queue = "x", s.Queue
	return j.Validate()
}

// checkScheduleName returns nil for a valid schedule name (a valid job ID,
// ValidateID), or an error wrapping ErrInvalidConfig and ValidateID's
// error that words it as the name it is: "hopper: invalid config:
// StoredSchedule.Name ...", as hopper words Schedule.Name.
func checkScheduleName(name string) error {
	err := ValidateID(name)
	if err == nil {
		return nil
	}
	why, ok := strings.CutPrefix(err.Error(), ErrInvalidJob.Error()+": ID")
	if !ok {
		return fmt.Errorf("%w: StoredSchedule.Name: %w", ErrInvalidConfig, err)
	}
	return &worded{msg: ErrInvalidConfig.Error() + ": StoredSchedule.Name" + why, errs: []error{ErrInvalidConfig, err}}
}

// ScheduleStore is implemented by stores that keep periodic schedules
// (both stores of this module). Safe for concurrent use.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type ScheduleStore interface {
	// PutSchedule adds the schedule, or replaces the one of the same
	// queue and name. A schedule that fails Validate fails the call.
	PutSchedule(ctx context.Context, s StoredSchedule) error
	// DeleteSchedule removes a schedule; it reports whether there was one.
	DeleteSchedule(ctx context.Context, queue, name string) (bool, error)
	// ListStoredSchedules returns every stored schedule, sorted by queue then
	// name, with the version the list is at.
	ListStoredSchedules(ctx context.Context) ([]StoredSchedule, int64, error)
	// SchedulesVersion returns a number that changes whenever a schedule
	// is put or deleted: a cheap check for a change.
	SchedulesVersion(ctx context.Context) (int64, error)
}
