package hopper

import (
	"fmt"
	"time"

	"github.com/hopperq/hopper/internal/sched"
	"github.com/hopperq/hopper/store"
)

// Schedule enqueues a job on a timetable: Args with Opts at every tick of
// Spec. Declare it in code (SchedulerConfig.Schedules: every process that
// runs the same list shares the ticks) or keep it in the store
// (Inspector.SetSchedule: every Scheduler runs it and picks a change up
// within a second or so). Each tick is enqueued once across all
// processes, with no leader: the store records the last tick of each name
// and queue and refuses an old or repeated one in the same atomic step as
// the enqueue. A tick's job has RunAt set to the tick, so a process whose
// clock runs ahead never makes it run early by the store's clock. Other
// systems call this a periodic or cron job.
type Schedule struct {
	// Name identifies the schedule within its queue (Opts.Queue, else the
	// args' own, else the Client's): ticks are recorded per name and
	// queue, shared by a schedule in code and a stored one of the same
	// name. Required: 1 to 128 bytes of printable ASCII, no spaces.
	Name string
	// Spec says when ticks fall: Every(15*time.Second), a cron expression
	// or a descriptor (see NextTick). Required.
	Spec string
	// Args are enqueued at every tick. Required.
	Args Args
	// Opts are the options of every tick's job. Nil means defaults.
	Opts *ScheduleOpts
	// CatchUp enqueues, when a scheduler starts running the schedule, the
	// latest tick missed while none did (one job, however many ticks were
	// missed). By default missed ticks are skipped. A schedule that never
	// ran has nothing to catch up, and a stored one nothing from before its
	// last change: the ticks of a pause are not missed when it is resumed,
	// nor those before a respec or before it was set again.
	CatchUp bool
}

// check returns the schedule's next-tick function, or an error wrapping
// ErrInvalidConfig that names it as field, and ErrInvalidJob too for a
// bad name or nil args.
func (s *Schedule) check(field string) (func(time.Time) time.Time, error) {
	if err := checkScheduleName(field, s.Name); err != nil {
		return nil, err
	}
	if err := checkArgs(s.Args); err != nil { // nil args too
		return nil, errorf("%w: %s (%q): %w", ErrInvalidConfig, field, s.Name, err)
	}
	next, err := parseSpec(s.Spec)
	if err != nil {
		return nil, fmt.Errorf("%w: %s (%q): %v", ErrInvalidConfig, field, s.Name, err)
	}
	return next, nil
}

// queue is the queue the schedule's ticks go to with client.
func (s *Schedule) queue(client *Client) string {
	if q := mergeOpts(s.Args, s.Opts.enqueueOpts(), forSchedule).Queue; q != "" {
		return q
	}
	return client.cfg.Queue
}

// tickJob builds the job of the tick at tick through client (its
// defaults; its middleware runs when the job is enqueued).
func (s *Schedule) tickJob(client *Client, tick time.Time) (*store.NewJob, error) {
	p, err := client.newJob(s.Args, s.Opts.enqueueOpts(), forSchedule, tick)
	if err != nil {
		return nil, err
	}
	j := &p.job
	j.Schedule, j.Tick, j.RunAt = s.Name, tick, tick
	return j, nil
}

// validateSchedules checks every schedule, its tick's job included (as
// the Client, or a default one, would build it).
func (c *SchedulerConfig) validateSchedules() error {
	client := c.Client
	if client == nil {
		cfg, _ := ClientConfig{}.withDefaults()
		client = &Client{cfg: cfg}
	}
	seen := map[string]bool{}
	for i := range c.Schedules {
		s := &c.Schedules[i]
		field := fmt.Sprintf("SchedulerConfig.Schedules[%d]", i)
		if _, err := s.check(field); err != nil {
			return err
		}
		if _, err := s.tickJob(client, time.Now()); err != nil {
			return errorf("%w: %s (%q): %w", ErrInvalidConfig, field, s.Name, err)
		}
		queue := mergeOpts(s.Args, s.Opts.enqueueOpts(), forSchedule).Queue
		if seen[queue+"\x00"+s.Name] {
			return fmt.Errorf("%w: %s: two schedules named %q in one queue", ErrInvalidConfig, field, s.Name)
		}
		seen[queue+"\x00"+s.Name] = true
	}
	return nil
}

// periodic turns the scheduler's schedules into the loop's form, each
// building its tick's job through client (its defaults, middleware).
func (c *SchedulerConfig) periodic(client *Client) []sched.Periodic {
	out := make([]sched.Periodic, len(c.Schedules))
	for i := range c.Schedules {
		s := &c.Schedules[i]
		next, _ := s.check("") // checked by NewScheduler
		out[i] = sched.Periodic{
			Name: s.Name, Spec: s.Spec, Queue: s.queue(client), Kind: s.Args.Kind(),
			Next: next, CatchUp: s.CatchUp,
			Job: func(tick time.Time) (*store.NewJob, error) { return s.tickJob(client, tick) },
		}
	}
	return out
}

// checkScheduleName returns nil for a valid schedule name (a valid job
// ID: store.ValidateID), or an error wrapping ErrInvalidConfig and
// ErrInvalidJob that names it as field's Name.
func checkScheduleName(field, name string) error {
	if store.ValidateID(name) == nil {
		return nil
	}
	why := fmt.Sprintf("must be 1 to %d bytes, got %d", store.MaxIDLen, len(name))
	for i := 0; name != "" && len(name) <= store.MaxIDLen && i < len(name); i++ {
		if c := name[i]; c <= ' ' || c > '~' {
			why = fmt.Sprintf("%q has %q at byte %d (allowed: printable ASCII, no spaces)", name, name[i:i+1], i)
			break
		}
	}
	return wordedError(fmt.Sprintf("%s: %s.Name %s", ErrInvalidConfig, field, why), ErrInvalidConfig, ErrInvalidJob)
}
