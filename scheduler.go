package hopper

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

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
	// MaxSleep is the longest the scheduler sleeps between two passes over
	// a queue when nothing falls due sooner. It bounds how late a job can
	// be if a wake-up signal is lost (say, the process that was told about an
	// earlier job died). Defaults to 5 s.
	MaxSleep time.Duration
	// Periodic jobs to enqueue on their schedules. Every scheduler may run
	// the same list; each tick is enqueued once. See PeriodicJob.
	Periodic []PeriodicJob
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

func (c SchedulerConfig) withDefaults() (SchedulerConfig, error) {
	c.Queues = slices.Clone(c.Queues)
	for _, q := range c.Queues {
		if err := ValidateQueue(q); err != nil {
			return c, fmt.Errorf("%w: SchedulerConfig.Queues: %w", ErrInvalidConfig, err)
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
	if c.MaxSleep == 0 {
		c.MaxSleep = 5 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if err := c.validatePeriodic(); err != nil {
		return c, err
	}
	return c, nil
}

// Scheduler drives the time-based transitions: it promotes due pending and
// retry jobs to ready, reclaims jobs whose lease expired, and collects done
// and garbage jobs past their retention. It sleeps until the next job falls
// due (on the store's clock), and wakes early when the store signals an
// earlier due time; it never ticks on a fixed interval.
//
// Every Worker runs one for its queues unless told not to. Any number of
// schedulers may run at once on the same queues: each transition is atomic
// in the store, so they never conflict, they only share the work.
type Scheduler struct {
	st  Store
	cfg SchedulerConfig
}

// NewScheduler returns a Scheduler for store. A nil cfg means defaults.
// Configuration errors are reported by Run.
func NewScheduler(st Store, cfg *SchedulerConfig) *Scheduler {
	if st == nil {
		panic("hopper: NewScheduler with a nil Store")
	}
	s := &Scheduler{st: st}
	if cfg != nil {
		s.cfg = *cfg
	}
	return s
}

// Run maintains the queues until ctx is done, then returns nil. It returns
// early only for a configuration error. Store errors are logged and retried
// with backoff.
func (s *Scheduler) Run(ctx context.Context) error {
	cfg, err := s.cfg.withDefaults()
	if err != nil {
		return err
	}
	r := &schedRun{st: s.st, cfg: cfg, next: map[string]time.Time{}, fails: map[string]int{}}
	if len(cfg.Periodic) > 0 {
		client := cfg.Client
		if client == nil {
			client = NewClient(s.st, nil)
		}
		now := cfg.Now
		if now == nil {
			now = time.Now
		}
		p := &periodicRun{st: s.st, client: client, jobs: cfg.Periodic, log: cfg.Logger, now: now}
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.run(ctx)
		}()
		defer func() { <-done }()
	}
	return r.run(ctx)
}

type schedRun struct {
	st     Store
	cfg    SchedulerConfig
	queues atomic.Pointer[[]string]
	// watched are the queues watch waits on: those whose last Maintain
	// succeeded. A failing queue is left to its backoff timer, so that a
	// due job it cannot move does not end every wait at once.
	watched atomic.Pointer[[]string]
	next    map[string]time.Time // when each queue is due for a pass, local monotonic time
	fails   map[string]int       // consecutive errors per queue, for backoff
	listed  time.Time            // when the queue list was last refreshed
}

func (r *schedRun) run(ctx context.Context) error {
	r.refreshQueues(ctx, true)
	signal := make(chan struct{}, 1)
	passed := make(chan struct{}, 1) // a pass over the queues ended
	waitDone := make(chan struct{})
	go func() {
		defer close(waitDone)
		r.watch(ctx, signal, passed)
	}()
	defer func() { <-waitDone }()

	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		r.refreshQueues(ctx, false)
		now := time.Now()
		for _, q := range *r.queues.Load() {
			if !r.next[q].After(now) {
				r.maintain(ctx, q)
			}
		}
		if ctx.Err() != nil {
			return nil
		}
		r.updateWatched()
		select {
		case passed <- struct{}{}:
		default:
		}
		wake := time.Now().Add(r.cfg.MaxSleep)
		for _, q := range *r.queues.Load() {
			if t := r.next[q]; t.Before(wake) {
				wake = t
			}
		}
		timer.Reset(max(time.Until(wake), 0))
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-signal:
			timer.Stop() // since Go 1.23 no stale tick can be received after Stop
			for q := range r.next {
				if r.fails[q] == 0 { // a failing queue keeps its backoff
					r.next[q] = time.Time{}
				}
			}
		}
	}
}

// maintain runs one Maintain call on q and schedules its next pass.
func (r *schedRun) maintain(ctx context.Context, q string) {
	res, err := r.st.Maintain(ctx, q, store.MaintainOptions{
		Batch:           r.cfg.Batch,
		GarbageMaxAge:   r.cfg.GarbageMaxAge,
		GarbageMaxCount: r.cfg.GarbageMaxCount,
	})
	now := time.Now()
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		r.fails[q]++
		d := min(r.cfg.MaxSleep, time.Duration(1<<min(r.fails[q], 10))*10*time.Millisecond)
		r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: maintain failed",
			slog.String("queue", q), slog.Any("error", err), slog.Duration("retry_in", d))
		r.next[q] = now.Add(d)
		return
	}
	r.fails[q] = 0
	switch {
	case res.More:
		r.next[q] = now
	case res.Idle:
		r.next[q] = now.Add(r.cfg.MaxSleep)
	default:
		// A due time rounded to the store's millisecond can look due a
		// fraction early; never spin faster than once a millisecond.
		r.next[q] = now.Add(min(max(res.NextIn, time.Millisecond), r.cfg.MaxSleep))
	}
}

// updateWatched publishes the queues watch should wait on.
func (r *schedRun) updateWatched() {
	qs := *r.queues.Load()
	failing := 0
	for _, q := range qs {
		if r.fails[q] > 0 {
			failing++
		}
	}
	if failing == 0 {
		r.watched.Store(&qs)
		return
	}
	healthy := make([]string, 0, len(qs)-failing)
	for _, q := range qs {
		if r.fails[q] == 0 {
			healthy = append(healthy, q)
		}
	}
	r.watched.Store(&healthy)
}

// watch turns the store's schedule signals into wake-ups of the run loop.
// After each wake-up it waits for the run loop to finish a pass, so that a
// store whose wait returns at once (a due job a failing Maintain cannot
// move) paces this loop instead of spinning it.
func (r *schedRun) watch(ctx context.Context, signal chan<- struct{}, passed <-chan struct{}) {
	fails := 0
	for ctx.Err() == nil {
		qs := *r.queues.Load()
		if w := r.watched.Load(); w != nil {
			qs = *w
		}
		if len(qs) == 0 { // nothing to watch (yet): look again after the next pass
			select {
			case <-ctx.Done():
				return
			case <-passed:
			case <-time.After(r.cfg.MaxSleep):
			}
			continue
		}
		err := r.st.WaitSchedule(ctx, qs, r.cfg.MaxSleep)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			fails++
			d := min(r.cfg.MaxSleep, time.Duration(1<<min(fails, 10))*10*time.Millisecond)
			r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: wait failed",
				slog.Any("error", err), slog.Duration("retry_in", d))
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
			continue
		}
		fails = 0
		select {
		case signal <- struct{}{}:
		default:
		}
		select {
		case <-ctx.Done():
			return
		case <-passed:
		}
	}
}

// refreshQueues lists the store's queues when the config names none, at
// most every 10 s unless forced.
func (r *schedRun) refreshQueues(ctx context.Context, force bool) {
	if len(r.cfg.Queues) > 0 {
		if r.queues.Load() == nil {
			qs := r.cfg.Queues
			r.queues.Store(&qs)
		}
		return
	}
	if !force && time.Since(r.listed) < 10*time.Second {
		return
	}
	r.listed = time.Now()
	qs, err := r.st.Queues(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: listing queues failed", slog.Any("error", err))
		}
		if r.queues.Load() == nil {
			r.queues.Store(&[]string{})
		}
		return
	}
	r.queues.Store(&qs)
}
