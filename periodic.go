package hopper

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/hopperq/hopper/store"
)

// PeriodicJob enqueues a job on a schedule. Every process may run the same
// periodic jobs (give each Worker or Scheduler the same list): each tick is
// enqueued exactly once across all of them, because the store records the
// last tick of each schedule and refuses an old or repeated one in the same
// atomic step as the enqueue. No leader is needed.
//
// A tick's job has RunAt set to the tick, so a process whose clock runs ahead
// never makes it run early by the store's clock.
type PeriodicJob struct {
	// Name identifies the schedule: ticks are recorded per name and queue.
	// Required: 1 to 128 bytes of printable ASCII, no spaces.
	Name string
	// Schedule says when ticks fall. Required. See Every and ParseSchedule.
	Schedule Schedule
	// Args are enqueued at every tick. Required.
	Args Args
	// Opts are the enqueue options of every tick's job (queue, retries,
	// timeout, retention, meta, unique). Delay, RunAt and ID must be left
	// zero: the tick decides them.
	Opts *EnqueueOpts
	// CatchUp enqueues, when the scheduler starts, the latest tick that was
	// missed while no process ran the schedule (one job, however many ticks
	// were missed). By default missed ticks are skipped. A schedule that never
	// ran before has nothing to catch up.
	CatchUp bool
}

// periodicRun runs the periodic jobs of one Scheduler.
type periodicRun struct {
	st     Store
	client *Client
	jobs   []PeriodicJob
	log    *slog.Logger
	now    func() time.Time
}

func (c *SchedulerConfig) validatePeriodic() error {
	seen := map[string]bool{}
	for i, p := range c.Periodic {
		field := fmt.Sprintf("SchedulerConfig.Periodic[%d]", i)
		if err := store.ValidateID(p.Name); err != nil {
			return fmt.Errorf("%w: %s.Name: %w", ErrInvalidConfig, field, err)
		}
		if p.Schedule == nil || p.Args == nil {
			return fmt.Errorf("%w: %s (%q) needs a Schedule and Args", ErrInvalidConfig, field, p.Name)
		}
		if o := p.Opts; o != nil && (o.Delay != 0 || !o.RunAt.IsZero() || o.ID != "") {
			return fmt.Errorf("%w: %s (%q): Opts.Delay, RunAt and ID are decided by the tick; leave them zero", ErrInvalidConfig, field, p.Name)
		}
		queue := mergeOpts(p.Args, p.Opts).Queue
		if seen[queue+"\x00"+p.Name] {
			return fmt.Errorf("%w: %s: two periodic jobs named %q in one queue", ErrInvalidConfig, field, p.Name)
		}
		seen[queue+"\x00"+p.Name] = true
	}
	return nil
}

func (r *periodicRun) run(ctx context.Context) {
	now := r.now()
	next := make([]time.Time, len(r.jobs))
	infos := make([]ScheduleInfo, len(r.jobs))
	for i, p := range r.jobs {
		next[i] = p.Schedule.Next(now)
		infos[i] = ScheduleInfo{Name: p.Name, Spec: p.Schedule.String(), Queue: r.queueOf(p), Kind: p.Args.Kind(), Next: next[i]}
	}
	if err := r.st.RegisterSchedules(ctx, infos); err != nil && ctx.Err() == nil {
		r.log.Warn("hopper: registering periodic schedules failed", slog.Any("error", err))
	}
	r.catchUp(ctx, now)

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		earliest := next[0]
		for _, t := range next[1:] {
			if t.Before(earliest) {
				earliest = t
			}
		}
		timer.Reset(earliest.Sub(r.now()))
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		now := r.now()
		for i, p := range r.jobs {
			if next[i].After(now) {
				continue
			}
			tick := next[i]
			// After a stall (a suspended process), fire only the latest
			// tick that fell due and skip the rest.
			for n := p.Schedule.Next(tick); !n.After(now); n = p.Schedule.Next(n) {
				tick = n
			}
			r.fire(ctx, p, tick)
			next[i] = p.Schedule.Next(tick)
		}
	}
}

// catchUp enqueues, for each CatchUp job, the latest tick before now if it
// is newer than the last tick the store recorded.
func (r *periodicRun) catchUp(ctx context.Context, now time.Time) {
	var last map[string]time.Time
	for _, p := range r.jobs {
		if !p.CatchUp {
			continue
		}
		if last == nil {
			infos, err := r.st.Schedules(ctx)
			if err != nil {
				r.log.Warn("hopper: reading periodic schedules for catch-up failed", slog.Any("error", err))
				return
			}
			last = map[string]time.Time{}
			for _, in := range infos {
				last[in.Queue+"\x00"+in.Name] = in.LastTick
			}
		}
		from := last[r.queueOf(p)+"\x00"+p.Name]
		if from.IsZero() {
			continue // never ran: nothing was missed
		}
		var missed time.Time
		for n, i := p.Schedule.Next(from), 0; !n.After(now) && i < 1_000_000; n, i = p.Schedule.Next(n), i+1 {
			missed = n
		}
		if !missed.IsZero() {
			r.fire(ctx, p, missed)
		}
	}
}

// fire enqueues one tick, retrying while the store fails until the next tick
// is due.
func (r *periodicRun) fire(ctx context.Context, p PeriodicJob, tick time.Time) {
	giveUp := p.Schedule.Next(tick)
	for try := 0; ; try++ {
		j, err := r.client.newJob(p.Args, p.Opts, tick)
		if err != nil {
			r.log.Error("hopper: periodic job is invalid", slog.String("name", p.Name), slog.Any("error", err))
			return
		}
		j.Schedule, j.Tick, j.RunAt = p.Name, tick, tick
		_, err = r.client.EnqueueJobs(ctx, []*store.NewJob{j})
		if err == nil || ctx.Err() != nil {
			return
		}
		d := min(giveUp.Sub(r.now()), time.Duration(1<<min(try, 9))*10*time.Millisecond)
		r.log.Error("hopper: enqueueing periodic job failed", slog.String("name", p.Name),
			slog.Time("tick", tick), slog.Any("error", err), slog.Duration("retry_in", d))
		if d <= 0 {
			return
		}
		sleepCtx(ctx, d)
	}
}

func (r *periodicRun) queueOf(p PeriodicJob) string {
	if q := mergeOpts(p.Args, p.Opts).Queue; q != "" {
		return q
	}
	return r.client.cfg.Queue
}
