package hopper

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hopperq/hopper/internal/sched"
	"github.com/hopperq/hopper/store"
)

// ScheduleRecord is a schedule as Inspector.ListSchedules reports it:
// declared in code and registered by a running Scheduler, kept in the
// store (Inspector.SetSchedule), or both under one name and queue.
type ScheduleRecord struct {
	// Name and Queue identify the schedule.
	Name, Queue string
	// Spec is when it ticks, as Schedule.Spec.
	Spec string
	// Kind is the kind of its jobs.
	Kind string
	// Stored reports that the store keeps it (Inspector.SetSchedule);
	// Paused, CatchUp, Args and UpdatedAt are then set. False for a
	// schedule only declared in code.
	Stored bool
	// Paused reports that a stored schedule's ticks are stopped
	// (PauseSchedule).
	Paused bool
	// CatchUp is the stored schedule's CatchUp.
	CatchUp bool
	// Args are a stored schedule's encoded args (msgpack); nil otherwise.
	Args []byte
	// Next is the schedule's next tick after now, when ListSchedules
	// read it (NextTick(Spec, now)): never in the past, whether or not a
	// process runs the schedule (see SeenAt). Zero for a paused stored
	// schedule (a schedule in code of the same name and queue still
	// ticks: schedulers register stored schedules as they do those in
	// code, so the store cannot tell them apart), and for a Spec this
	// version cannot read, unless the scheduler that registered it
	// computed a tick still ahead.
	Next time.Time
	// RegisteredNext is the next tick as the scheduler that last
	// registered the schedule computed it (the tick it waited for); zero
	// when none did. It lies in the past when that scheduler stopped or
	// its tick was not enqueued (LastTick is older).
	RegisteredNext time.Time
	// LastTick is the latest tick enqueued; zero if none.
	LastTick time.Time
	// SeenAt is when a running scheduler last registered the schedule, by
	// its clock; zero when none runs it. Schedulers register every
	// store.ScheduleRefresh (a minute), so an older SeenAt means no live
	// process runs it.
	SeenAt time.Time
	// UpdatedAt is when a stored schedule was last set.
	UpdatedAt time.Time
}

// ListSchedules lists every schedule: those running Schedulers registered
// from their SchedulerConfig.Schedules, with the last tick each enqueued,
// and those the store keeps (SetSchedule), one record for a name and
// queue that is both; sorted by queue, then name.
func (i *Inspector) ListSchedules(ctx context.Context) ([]ScheduleRecord, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	registered, err := i.st.ListSchedules(ctx)
	if err != nil {
		return nil, err
	}
	byKey := map[[2]string]*ScheduleRecord{}
	var out []*ScheduleRecord
	for _, s := range registered {
		r := &ScheduleRecord{Name: s.Name, Queue: s.Queue, Spec: s.Spec, Kind: s.Kind, RegisteredNext: s.Next, LastTick: s.LastTick, SeenAt: s.SeenAt}
		byKey[[2]string{s.Queue, s.Name}] = r
		out = append(out, r)
	}
	if ss, ok := store.As[store.ScheduleStore](i.st); ok {
		stored, _, err := ss.ListStoredSchedules(ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range stored {
			r := byKey[[2]string{s.Queue, s.Name}]
			if r == nil {
				r = &ScheduleRecord{Name: s.Name, Queue: s.Queue}
				out = append(out, r)
			}
			r.Spec, r.Kind, r.Stored, r.Paused, r.CatchUp, r.Args, r.UpdatedAt = s.Spec, s.Job.Kind, true, s.Paused, s.CatchUp, s.Job.Args, s.UpdatedAt
		}
	}
	now := time.Now()
	for _, r := range out {
		r.Next = nextAfter(r, now)
	}
	slices.SortFunc(out, func(a, b *ScheduleRecord) int {
		return cmp.Or(cmp.Compare(a.Queue, b.Queue), cmp.Compare(a.Name, b.Name))
	})
	list := make([]ScheduleRecord, len(out))
	for k, r := range out {
		list[k] = *r
	}
	return list, nil
}

// nextAfter is ScheduleRecord.Next of r at now: its Spec's next tick
// after now, none for a paused stored schedule, and for a Spec that does
// not parse here the registered tick if still ahead.
func nextAfter(r *ScheduleRecord, now time.Time) time.Time {
	if r.Stored && r.Paused {
		return time.Time{}
	}
	if next, err := parseSpec(r.Spec); err == nil {
		return next(now)
	}
	if r.RegisteredNext.After(now) {
		return r.RegisteredNext
	}
	return time.Time{}
}

// scheduleStore returns the store as a store.ScheduleStore, or an error
// wrapping ErrNotSupported naming what was asked.
func (i *Inspector) scheduleStore(what string) (store.ScheduleStore, error) {
	return optional[store.ScheduleStore](i.st, what, "store.ScheduleStore")
}

// SetSchedule keeps s in the store, or replaces the stored schedule of the
// same name and queue, while processes run: every Scheduler (every Worker
// runs one) starts enqueuing its ticks within a second or so, each tick
// once across all of them, as for a schedule in code; a stored schedule
// shares its ticks with one in code of the same name and queue. Its job
// is resolved now as Enqueue resolves it (the args' own options, then a
// default Client's: 25 retries). A new schedule runs; a replaced one keeps
// whether it was paused. An invalid schedule fails with an error wrapping
// ErrInvalidConfig and, as NewScheduler's check of a schedule in code,
// what the invalid part gives: ErrInvalidJob for a bad name, nil args or
// bad Opts, ErrInvalidQueue for a bad Opts.Queue. Safe for concurrent
// use; of two changes of one schedule at once the later wins.
func (i *Inspector) SetSchedule(ctx context.Context, s Schedule) error {
	if err := i.made(); err != nil {
		return err
	}
	ss, err := i.scheduleStore("storing a schedule")
	if err != nil {
		return err
	}
	if _, err := s.check("Schedule"); err != nil {
		return err
	}
	p, err := NewClient(i.st, nil).newJob(s.Args, s.Opts.enqueueOpts(), forSchedule, time.Now())
	if err != nil {
		return errorf("%w: Schedule (%q): %w", ErrInvalidConfig, s.Name, err)
	}
	job := p.job
	job.ID = ""
	rec := store.StoredSchedule{Name: s.Name, Queue: job.Queue, Spec: s.Spec, Job: job, CatchUp: s.CatchUp}
	if old, err := findStored(ctx, ss, rec.Queue, rec.Name); err != nil {
		return err
	} else if old != nil {
		rec.Paused = old.Paused
	}
	return ss.PutSchedule(ctx, rec)
}

// PauseSchedule stops the ticks of a stored schedule until
// ResumeSchedule. A schedule that does not exist gives
// ErrScheduleNotFound; an invalid queue name, ErrInvalidQueue.
func (i *Inspector) PauseSchedule(ctx context.Context, queue, name string) error {
	if err := i.made(); err != nil {
		return err
	}
	return i.changeSchedule(ctx, queue, name, func(s *store.StoredSchedule) { s.Paused = true })
}

// ResumeSchedule starts the ticks of a stored schedule PauseSchedule
// stopped; ticks missed meanwhile are skipped (but the latest, with
// CatchUp). A schedule that does not exist gives ErrScheduleNotFound; an
// invalid queue name, ErrInvalidQueue.
func (i *Inspector) ResumeSchedule(ctx context.Context, queue, name string) error {
	if err := i.made(); err != nil {
		return err
	}
	return i.changeSchedule(ctx, queue, name, func(s *store.StoredSchedule) { s.Paused = false })
}

// SetScheduleSpec changes when a stored schedule ticks (a spec NextTick
// reads: "@every 5m", a cron expression). A spec that does not parse
// gives ErrInvalidConfig; a schedule that does not exist,
// ErrScheduleNotFound; an invalid queue name, ErrInvalidQueue.
func (i *Inspector) SetScheduleSpec(ctx context.Context, queue, name, spec string) error {
	if err := i.made(); err != nil {
		return err
	}
	if _, err := parseSpec(spec); err != nil {
		return fmt.Errorf("%w: schedule %q: %v", ErrInvalidConfig, name, err)
	}
	return i.changeSchedule(ctx, queue, name, func(s *store.StoredSchedule) { s.Spec = spec })
}

// DeleteSchedule removes a stored schedule: no process enqueues its ticks
// from its next look at the store. It also removes the schedulers'
// registration of it (ListSchedules lists it no more; one in code of the
// same name and queue is registered again within a minute) and its
// recorded runs. A schedule that does not exist gives
// ErrScheduleNotFound; an invalid queue name, ErrInvalidQueue.
func (i *Inspector) DeleteSchedule(ctx context.Context, queue, name string) error {
	if err := i.made(); err != nil {
		return err
	}
	ss, err := i.scheduleStore("deleting a schedule")
	if err != nil {
		return err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return err
	}
	ok, err := ss.DeleteSchedule(ctx, queue, name)
	if err == nil && !ok {
		err = i.errNotStored(ctx, queue, name, "deleted (ForgetSchedule removes one in code from the registered ones)")
	}
	if err == nil {
		// The schedulers that ran it registered it: without this, it
		// stayed listed as if declared in code. One in code of the same
		// name registers again within store.ScheduleRefresh.
		if sr, ok := store.As[store.ScheduleRuns](i.st); ok {
			_, err = sr.UnregisterSchedule(ctx, queue, name)
		}
	}
	return err
}

// errNotStored is the error for a stored schedule name of queue that is
// not there, wrapping ErrScheduleNotFound. When a running Scheduler
// registered a schedule of that name and queue (declared in code: see
// ListSchedules), it says that only stored schedules can be what done
// says ("run now").
func (i *Inspector) errNotStored(ctx context.Context, queue, name, done string) error {
	registered, _ := i.st.ListSchedules(ctx) // on an error, plain not found
	for _, s := range registered {
		if s.Queue == queue && s.Name == name {
			return fmt.Errorf("%w: %q in queue %q is declared in code (a running Scheduler registered it): only stored schedules (Inspector.SetSchedule) can be %s",
				ErrScheduleNotFound, name, queue, done)
		}
	}
	return fmt.Errorf("%w: %q in queue %q", ErrScheduleNotFound, name, queue)
}

// changeSchedule reads stored schedule name of queue, applies change and
// stores it again. Two changes at once may overwrite each other; the last
// wins.
func (i *Inspector) changeSchedule(ctx context.Context, queue, name string, change func(*store.StoredSchedule)) error {
	ss, err := i.scheduleStore("changing a schedule")
	if err != nil {
		return err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return err
	}
	s, err := findStored(ctx, ss, queue, name)
	if err != nil {
		return err
	}
	if s == nil {
		return i.errNotStored(ctx, queue, name, "paused, resumed or changed (change one in code in its program)")
	}
	change(s)
	return ss.PutSchedule(ctx, *s)
}

// findStored returns stored schedule name of queue, or nil.
func findStored(ctx context.Context, ss store.ScheduleStore, queue, name string) (*store.StoredSchedule, error) {
	list, _, err := ss.ListStoredSchedules(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		if s.Queue == queue && s.Name == name {
			return &s, nil
		}
	}
	return nil, nil
}

// storedPeriodic turns a stored schedule into the periodic loop's form;
// its ticks' jobs get new IDs from now.
func storedPeriodic(s store.StoredSchedule, now func() time.Time) (sched.Periodic, error) {
	next, err := parseSpec(s.Spec)
	if err != nil {
		return sched.Periodic{}, fmt.Errorf("hopper: stored schedule %q: %w", s.Name, err)
	}
	return sched.Periodic{
		Name: s.Name, Spec: s.Spec, Queue: s.Queue, Kind: s.Job.Kind, Next: next, CatchUp: s.CatchUp,
		// Ticks before its last change were not missed: a resumed
		// schedule does not run the ticks of its pause, nor a respecced
		// or recreated one those of its former self.
		CatchUpFrom: s.UpdatedAt,
		// Registered only while it is stored: a scheduler that has not
		// seen its deletion yet does not list it again.
		Stored: true,
		Job: func(tick time.Time) (*store.NewJob, error) {
			j := s.Job
			j.JobSpec = j.JobSpec.Clone()
			j.ID, j.Queue, j.Schedule, j.Tick, j.RunAt = newID(now()), s.Queue, s.Name, tick, tick
			return &j, nil
		},
	}, nil
}
