package sched

import (
	"context"
	"log/slog"
	"time"

	"github.com/hopperq/hopper/internal/retrylog"
	"github.com/hopperq/hopper/store"
)

// StoredConfig is the stored schedules' loop configuration.
type StoredConfig struct {
	// Build turns a stored schedule into the loop's form, or fails for
	// one it cannot run (a spec that does not parse).
	Build func(s store.StoredSchedule) (Periodic, error)
	// Enqueue, Now and Logger are PeriodicConfig's.
	Enqueue func(ctx context.Context, jobs []*store.NewJob) error
	Now     func() time.Time
	Logger  *slog.Logger
	// Poll is how often the store's version of the schedules is read.
	Poll time.Duration
}

// RunStored runs the store's stored schedules until ctx is done. Every
// Poll it reads their version (one cheap read); when it changed, it reads
// them all and restarts the periodic loop with those not paused, counting
// their ticks from when the previous loop stopped, so a change loses no
// tick (and the store refuses a tick enqueued twice).
func RunStored(ctx context.Context, st store.Store, ss store.ScheduleStore, cfg StoredConfig) {
	ver := int64(-1)
	var cur struct { // the periodic loop running, if any
		stop context.CancelFunc
		done chan struct{}
	}
	var since time.Time
	halt := func() {
		if cur.stop != nil {
			cur.stop()
			<-cur.done
			cur.stop = nil
			since = cfg.Now()
		}
	}
	defer halt()
	// outage is what was logged of the reads' failures: the first, then
	// one every retrylog.Every, and one line once they work again, not
	// one a poll (a Redis at maxmemory refused the read every second).
	// A poll works again once it read the version and, when it changed,
	// the schedules.
	var outage retrylog.Outage
	failed := func(msg string, err error) {
		if ctx.Err() != nil {
			return
		}
		if log, omitted := outage.Failed(time.Now()); log {
			cfg.Logger.Warn(msg, slog.Any("error", err), slog.Int("failures_not_logged", omitted))
		}
	}
	recovered := func() {
		if log, n, lasted := outage.Recovered(time.Now()); log {
			cfg.Logger.Info("hopper: reading the stored schedules works again", slog.Int("failures", n), slog.Duration("after", lasted))
		}
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		timer.Reset(cfg.Poll)
		v, err := ss.SchedulesVersion(ctx)
		if err != nil {
			failed("hopper: reading the stored schedules' version failed", err)
			continue
		}
		if v == ver {
			// The schedules of this version were read: the reads work.
			recovered()
			continue
		}
		list, v, err := ss.ListStoredSchedules(ctx)
		if err != nil {
			failed("hopper: reading the stored schedules failed", err)
			continue
		}
		recovered()
		var jobs []Periodic
		for _, s := range list {
			if s.Paused {
				continue
			}
			p, err := cfg.Build(s)
			if err != nil {
				cfg.Logger.Error("hopper: a stored schedule cannot run", slog.String("queue", s.Queue),
					slog.String("name", s.Name), slog.Any("error", err))
				continue
			}
			jobs = append(jobs, p)
		}
		halt()
		ver = v
		if len(jobs) == 0 {
			continue
		}
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		cur.stop, cur.done = stop, done
		pc := PeriodicConfig{Jobs: jobs, Enqueue: cfg.Enqueue, Now: cfg.Now, Logger: cfg.Logger, Since: since}
		go func() {
			defer close(done)
			RunPeriodic(runCtx, st, pc)
		}()
	}
}
