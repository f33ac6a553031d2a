package hopper

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hopperq/hopper/store"
)

// ScheduleRun is store.ScheduleRun: one job a schedule enqueued.
type ScheduleRun = store.ScheduleRun

// RunScheduleNow enqueues the job of stored schedule name of queue once,
// now, as a tick would but outside the schedule: its next tick and last
// tick do not move, and the job carries no tick (so a tick due now is
// still enqueued). It returns the job's info; a job with a unique key whose
// holder still waits is a duplicate (JobInfo.Duplicate) and nothing is
// added. The run is recorded among the schedule's last runs (Manual) when
// the store keeps them (store.ScheduleRuns). Only stored schedules
// (SetSchedule) can be run this way: a schedule declared in code keeps its
// args in its program. A schedule that is not stored gives
// ErrScheduleNotFound (whose text says so for one in code); a store without stored schedules, ErrNotSupported.
// Safe for concurrent use.
func (i *Inspector) RunScheduleNow(ctx context.Context, queue, name string) (*JobInfo, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	ss, err := i.scheduleStore("running a schedule now")
	if err != nil {
		return nil, err
	}
	s, err := findStored(ctx, ss, queue, name)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, i.errNotStored(ctx, queue, name, "run now")
	}
	now := time.Now()
	j := s.Job
	j.JobSpec = j.JobSpec.Clone()
	j.ID, j.Queue = newID(now), s.Queue
	infos, err := NewClient(i.st, nil).enqueue(ctx, []*PreparedJob{{job: j}})
	if err != nil {
		return nil, err
	}
	info := infos[0]
	if info.Err != nil {
		return nil, info.Err
	}
	if !info.Duplicate {
		recordRun(ctx, i.st, nil, s.Queue, s.Name, ScheduleRun{At: now, Queue: info.Queue, JobID: info.ID, Manual: true})
	}
	return info, nil
}

// ListScheduleRuns returns the last runs of schedule name of queue (at
// most store.MaxScheduleRuns), the latest first: the ticks running
// schedulers enqueued and the runs started with RunScheduleNow. A store
// that keeps none gives ErrNotSupported.
func (i *Inspector) ListScheduleRuns(ctx context.Context, queue, name string) ([]ScheduleRun, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	sr, err := optional[store.ScheduleRuns](i.st, "listing a schedule's runs", "store.ScheduleRuns")
	if err != nil {
		return nil, err
	}
	return sr.ListScheduleRuns(ctx, queue, name)
}

// ForgetSchedule removes a schedule from the registered ones (those
// running schedulers declared in code), with its last runs: for an
// orphaned schedule whose processes are gone. A scheduler still running
// it registers it again within store.ScheduleRefresh. A stored schedule
// is left alone (DeleteSchedule removes it). A schedule not registered
// gives ErrScheduleNotFound; a store without store.ScheduleRuns,
// ErrNotSupported.
func (i *Inspector) ForgetSchedule(ctx context.Context, queue, name string) error {
	if err := i.made(); err != nil {
		return err
	}
	sr, err := optional[store.ScheduleRuns](i.st, "forgetting a schedule", "store.ScheduleRuns")
	if err != nil {
		return err
	}
	ok, err := sr.UnregisterSchedule(ctx, queue, name)
	if err == nil && !ok {
		err = fmt.Errorf("%w: no registered schedule %q in queue %q", ErrScheduleNotFound, name, queue)
	}
	return err
}

// recordRun records a schedule's run when st keeps runs; a failure is only
// logged (log nil: the default logger), as the job is enqueued anyway.
func recordRun(ctx context.Context, st Store, log *slog.Logger, queue, name string, run ScheduleRun) {
	sr, ok := store.As[store.ScheduleRuns](st)
	if !ok {
		return
	}
	if err := sr.RecordScheduleRun(ctx, queue, name, run); err != nil {
		if log == nil {
			log = slog.Default()
		}
		log.Warn("hopper: recording a schedule's run failed", slog.String("schedule", name), slog.String("queue", queue), slog.Any("error", err))
	}
}
