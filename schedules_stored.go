package hopper

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper/internal/sched"
	"github.com/hopperq/hopper/store"
)

// StoredSchedule is a periodic job kept in the store (Inspector.SetSchedule):
// every Scheduler runs it, and picks up a change within
// SchedulerConfig.StoredSchedulesPoll.
type StoredSchedule = store.StoredSchedule

// scheduleStore returns the store as a store.ScheduleStore, or an error
// wrapping ErrNotSupported naming what was asked.
func (i *Inspector) scheduleStore(what string) (store.ScheduleStore, error) {
	return optional[store.ScheduleStore](i.st, what, "store.ScheduleStore")
}

// SetSchedule adds a periodic job to the store, or replaces the stored one
// of the same name and queue, while processes run: every Scheduler (every
// Worker runs one) starts enqueuing its ticks within a second or so, each
// tick once across all of them, as for a PeriodicJob in code. The job is
// resolved now as Enqueue resolves it (the args' own options, then a
// default Client's: 25 retries); its Schedule must be one ParseSchedule
// reads back from its String (Every and ParseSchedule's are). paused
// stores it without ticks until PauseSchedule(false). Opts.Delay, RunAt,
// ID, Unique and Replace are the tick's to decide and must be zero; an
// invalid job or schedule fails with an error wrapping ErrInvalidConfig or
// ErrInvalidJob. A stored schedule shares its ticks with a PeriodicJob of
// the same name and queue. Safe for concurrent use; of two changes of one
// schedule the later wins.
func (i *Inspector) SetSchedule(ctx context.Context, p PeriodicJob, paused bool) error {
	ss, err := i.scheduleStore("storing a schedule")
	if err != nil {
		return err
	}
	if p.Schedule == nil || p.Args == nil {
		return fmt.Errorf("%w: schedule %q needs a Schedule and Args", ErrInvalidConfig, p.Name)
	}
	if o := p.Opts; o != nil && (o.Delay != 0 || !o.RunAt.IsZero() || o.ID != "" || o.Unique != nil || o.Replace != 0) {
		return fmt.Errorf("%w: schedule %q: Opts.Delay, RunAt, ID, Unique and Replace are the tick's to decide; leave them zero", ErrInvalidConfig, p.Name)
	}
	spec := p.Schedule.String()
	if _, err := ParseSchedule(spec); err != nil {
		return fmt.Errorf("%w: schedule %q: its String %q does not parse back (store schedules made by Every or ParseSchedule): %v", ErrInvalidConfig, p.Name, spec, err)
	}
	pj, err := NewClient(i.st, nil).newJob(p.Args, p.Opts, time.Now())
	if err != nil {
		return err
	}
	j := &pj.job
	job := *j
	job.ID = ""
	return ss.PutSchedule(ctx, StoredSchedule{Name: p.Name, Queue: j.Queue, Spec: spec, Job: job, Paused: paused, CatchUp: p.CatchUp})
}

// StoredSchedules lists the schedules kept in the store, sorted by queue
// then name.
func (i *Inspector) StoredSchedules(ctx context.Context) ([]StoredSchedule, error) {
	ss, err := i.scheduleStore("listing stored schedules")
	if err != nil {
		return nil, err
	}
	list, _, err := ss.ListStoredSchedules(ctx)
	return list, err
}

// PauseSchedule stops (paused true) or resumes the ticks of a stored
// schedule. A schedule that does not exist gives ErrScheduleNotFound.
func (i *Inspector) PauseSchedule(ctx context.Context, queue, name string, paused bool) error {
	return i.changeSchedule(ctx, queue, name, func(s *StoredSchedule) error {
		s.Paused = paused
		return nil
	})
}

// SetScheduleSpec changes when a stored schedule ticks (a spec
// ParseSchedule reads: "@every 5m", a cron expression). A spec that does
// not parse gives ErrInvalidConfig; a schedule that does not exist,
// ErrScheduleNotFound.
func (i *Inspector) SetScheduleSpec(ctx context.Context, queue, name, spec string) error {
	if _, err := ParseSchedule(spec); err != nil {
		return fmt.Errorf("%w: schedule %q: %v", ErrInvalidConfig, name, err)
	}
	return i.changeSchedule(ctx, queue, name, func(s *StoredSchedule) error {
		s.Spec = spec
		return nil
	})
}

// DeleteSchedule removes a stored schedule: no process enqueues its ticks
// from its next look at the store. A schedule that does not exist gives
// ErrScheduleNotFound.
func (i *Inspector) DeleteSchedule(ctx context.Context, queue, name string) error {
	ss, err := i.scheduleStore("deleting a schedule")
	if err != nil {
		return err
	}
	ok, err := ss.DeleteSchedule(ctx, queue, name)
	if err == nil && !ok {
		err = fmt.Errorf("%w: %q in queue %q", ErrScheduleNotFound, name, queue)
	}
	return err
}

// changeSchedule reads stored schedule name of queue, applies change and
// stores it again. Two changes at once may overwrite each other; the last
// wins.
func (i *Inspector) changeSchedule(ctx context.Context, queue, name string, change func(*StoredSchedule) error) error {
	ss, err := i.scheduleStore("changing a schedule")
	if err != nil {
		return err
	}
	list, _, err := ss.ListStoredSchedules(ctx)
	if err != nil {
		return err
	}
	for _, s := range list {
		if s.Queue == queue && s.Name == name {
			if err := change(&s); err != nil {
				return err
			}
			return ss.PutSchedule(ctx, s)
		}
	}
	return fmt.Errorf("%w: %q in queue %q", ErrScheduleNotFound, name, queue)
}

// storedPeriodic turns a stored schedule into the periodic loop's form;
// its ticks' jobs get new IDs from now.
func storedPeriodic(s StoredSchedule, now func() time.Time) (sched.Periodic, error) {
	sch, err := ParseSchedule(s.Spec)
	if err != nil {
		return sched.Periodic{}, err
	}
	return sched.Periodic{
		Name: s.Name, Spec: s.Spec, Queue: s.Queue, Kind: s.Job.Kind, Next: sch.Next, CatchUp: s.CatchUp,
		Job: func(tick time.Time) (*store.NewJob, error) {
			j := s.Job
			j.JobSpec = j.JobSpec.Clone()
			j.ID, j.Queue, j.Schedule, j.Tick, j.RunAt = newID(now()), s.Queue, s.Name, tick, tick
			return &j, nil
		},
	}, nil
}
