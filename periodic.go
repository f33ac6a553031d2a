package hopper

import (
	"fmt"
	"time"

	"github.com/hopperq/hopper/internal/sched"
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

// periodic turns the scheduler's periodic jobs into the loop's schedules,
// each building its tick's job through client (its defaults, middleware).
func (c *SchedulerConfig) periodic(client *Client) []sched.Periodic {
	out := make([]sched.Periodic, len(c.Periodic))
	for i, p := range c.Periodic {
		queue := mergeOpts(p.Args, p.Opts).Queue
		if queue == "" {
			queue = client.cfg.Queue
		}
		out[i] = sched.Periodic{
			Name: p.Name, Spec: p.Schedule.String(), Queue: queue, Kind: p.Args.Kind(),
			Next: p.Schedule.Next, CatchUp: p.CatchUp,
			Job: func(tick time.Time) (*store.NewJob, error) {
				pj, err := client.newJob(p.Args, p.Opts, tick)
				if err != nil {
					return nil, err
				}
				j := &pj.job
				j.Schedule, j.Tick, j.RunAt = p.Name, tick, tick
				return j, nil
			},
		}
	}
	return out
}
