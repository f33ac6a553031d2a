package hopper

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hopperq/hopper/internal/sched"
	"github.com/hopperq/hopper/store"
)

// SchedulerConfig configures a Scheduler. A nil config, and every zero field,
// means the documented default.
type SchedulerConfig struct {
	// Queues to maintain. Defaults to every queue the store knows, listed
	// again every 10 s.
	Queues []string
	// Batch is the most jobs one maintenance call moves per duty; a busier
	// queue gets several calls in a row. Defaults to 1000.
	Batch int
	// GarbageMaxAge deletes garbage jobs older than this. Defaults to 7
	// days; negative keeps them regardless of age.
	GarbageMaxAge time.Duration
	// GarbageMaxCount keeps at most this many garbage jobs per queue,
	// deleting the oldest first. Defaults to 10,000; negative means no limit.
	GarbageMaxCount int
	// MaxSleep bounds one sleep of the scheduler. It maintains a queue when
	// the queue's own next due time comes or the store signals that it
	// moved earlier, never on a fixed tick; a sleep as long as MaxSleep that
	// ended without a signal makes it look at a few queues it heard nothing
	// from (at most four, in turn), the last resort against a signal lost to
	// a fault. Defaults to 5 s.
	MaxSleep time.Duration
	// Schedules to enqueue the ticks of. Every scheduler may run the same
	// list; each tick is enqueued once. See Schedule.
	Schedules []Schedule
	// StoredSchedulesPoll is how often the scheduler reads the version of
	// the store's stored schedules (Inspector.SetSchedule), one cheap read,
	// to pick a change up. Defaults to 1 s; negative turns stored
	// schedules off for this scheduler. Stores without them
	// (store.ScheduleStore) cost nothing.
	StoredSchedulesPoll time.Duration
	// Client enqueues the periodic jobs, through its middleware (tracing,
	// say). Defaults to NewClient(store, nil).
	Client *Client
	// Now is the clock periodic ticks are computed and fired by. It is the
	// only use hopper makes of a process's wall clock: due times and leases
	// come from the store's clock. Defaults to time.Now; tests inject skew.
	// A process whose clock is ahead enqueues ticks early, but each tick's
	// job has RunAt set to the tick, so it never runs early by the store's
	// clock; a process whose clock is behind finds its ticks already taken.
	Now func() time.Time
	// Logger receives errors from the store. Defaults to slog.Default().
	Logger *slog.Logger
}

// Validate reports whether c is a valid configuration: nil, or an error
// wrapping ErrInvalidConfig that names the first invalid field.
// NewScheduler panics with the same error.
func (c SchedulerConfig) Validate() error {
	_, err := c.withDefaults()
	return err
}

func (c SchedulerConfig) withDefaults() (SchedulerConfig, error) {
	c.Queues = slices.Clone(c.Queues)
	c.Schedules = slices.Clone(c.Schedules)
	for _, q := range c.Queues {
		if err := store.ValidateQueue(q); err != nil {
			return c, errorf("%w: SchedulerConfig.Queues: %w", ErrInvalidConfig, err)
		}
	}
	if c.Batch < 0 {
		return c, fmt.Errorf("%w: SchedulerConfig.Batch %d is negative", ErrInvalidConfig, c.Batch)
	}
	if c.Batch == 0 {
		c.Batch = 1000
	}
	switch {
	case c.GarbageMaxAge == 0:
		c.GarbageMaxAge = 7 * 24 * time.Hour
	case c.GarbageMaxAge < 0:
		c.GarbageMaxAge = 0
	}
	switch {
	case c.GarbageMaxCount == 0:
		c.GarbageMaxCount = 10000
	case c.GarbageMaxCount < 0:
		c.GarbageMaxCount = 0
	}
	if c.MaxSleep < 0 {
		return c, fmt.Errorf("%w: SchedulerConfig.MaxSleep %v is negative", ErrInvalidConfig, c.MaxSleep)
	}
	if c.StoredSchedulesPoll == 0 {
		c.StoredSchedulesPoll = time.Second
	}
	if c.MaxSleep == 0 {
		c.MaxSleep = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if err := c.validateSchedules(); err != nil {
		return c, err
	}
	return c, nil
}

// Scheduler drives the time-based transitions: it promotes due pending and
// retry jobs to ready, reclaims jobs whose lease expired, and collects done
// and garbage jobs past their retention. It keeps each queue's next due
// time (on the store's clock), sleeps until the earliest, and wakes early
// for a queue the store signals; it never ticks on a fixed interval, and
// maintains only the queues that have something due, so its cost follows
// the work, not the number of queues.
//
// Every Worker runs one for its queues unless told not to. Any number of
// schedulers may run at once on the same queues: each transition is atomic
// in the store, so they never conflict, they only share the work.
type Scheduler struct {
	st  Store
	cfg SchedulerConfig
}

// NewScheduler returns a Scheduler for st. A nil cfg means defaults. It
// panics if st is nil or cfg is invalid (with the error of
// SchedulerConfig.Validate).
func NewScheduler(st Store, cfg *SchedulerConfig) *Scheduler {
	if st == nil {
		panic("hopper: NewScheduler with a nil Store")
	}
	s := &Scheduler{st: st}
	if cfg != nil {
		s.cfg = *cfg
	}
	if err := s.cfg.Validate(); err != nil {
		panic(err)
	}
	return s
}

// Run maintains the queues until ctx is done, then returns nil. Store
// errors are logged and retried with backoff. But a store that cannot
// serve a call again stops the scheduler as when ctx ends, and Run
// returns its error, which says so: closed for good (its go-redis client
// was closed: redisstore.ErrClientClosed), or refusing every call until
// an operator acts (a data layout this release cannot read, whose error
// says to upgrade hopper or to migrate the data). A store's error says
// so with a method StoreClosed() bool or StoreFinal() bool returning
// true (see Worker.Run).
func (s *Scheduler) Run(ctx context.Context) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	st := &closeWatch{Store: s.st, stop: stop}
	if err := s.run(ctx, st); err != nil {
		return err
	}
	return st.ended("scheduler")
}

// run is Run on st, which ends it (through ctx) when the store cannot
// serve a call again.
func (s *Scheduler) run(ctx context.Context, st *closeWatch) error {
	cfg, err := s.cfg.withDefaults()
	if err != nil {
		return err // cannot happen: NewScheduler checked it
	}
	var periodic sync.WaitGroup
	client := cfg.Client
	if client == nil {
		client = NewClient(s.st, nil)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	enqueue := func(ctx context.Context, jobs []*store.NewJob) error {
		batch := make([]*PreparedJob, len(jobs))
		for i, j := range jobs {
			batch[i] = &PreparedJob{job: *j}
		}
		infos, err := client.enqueue(ctx, batch)
		for k, info := range infos {
			err = cmp.Or(err, info.Err) // the tick is tried again
			if j := jobs[k]; info.Err == nil && !info.Duplicate && j.Schedule != "" {
				recordRun(ctx, s.st, cfg.Logger, j.Queue, j.Schedule, ScheduleRun{At: j.Tick, Queue: info.Queue, JobID: info.ID})
			}
		}
		st.seen(err)
		return err
	}
	if len(cfg.Schedules) > 0 {
		pc := sched.PeriodicConfig{Jobs: cfg.periodic(client), Enqueue: enqueue, Now: now, Logger: cfg.Logger}
		periodic.Go(func() { sched.RunPeriodic(ctx, st, pc) })
	}
	if ss, ok := store.As[store.ScheduleStore](s.st); ok && cfg.StoredSchedulesPoll > 0 {
		sc := sched.StoredConfig{
			Build:   func(st store.StoredSchedule) (sched.Periodic, error) { return storedPeriodic(st, now) },
			Enqueue: enqueue, Now: now, Logger: cfg.Logger, Poll: cfg.StoredSchedulesPoll,
		}
		periodic.Go(func() { sched.RunStored(ctx, st, watchedSchedules{ss, st}, sc) })
	}
	if ws, ok := store.As[store.Workflows](s.st); ok {
		periodic.Go(func() { sched.RunWorkflows(ctx, watchedWorkflows{ws, st}, cfg.MaxSleep, cfg.Logger) })
	}
	sched.Run(ctx, st, sched.Config{
		Queues:   cfg.Queues,
		Maintain: store.MaintainOpts{Batch: cfg.Batch, GarbageMaxAge: cfg.GarbageMaxAge, GarbageMaxCount: cfg.GarbageMaxCount},
		MaxSleep: cfg.MaxSleep,
		Logger:   cfg.Logger,
	})
	periodic.Wait()
	return nil
}
