package sched

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/hopperq/hopper/internal/retrylog"
	"github.com/hopperq/hopper/store"
)

// Periodic is one periodic job as the loop runs it.
type Periodic struct {
	// Name, Spec, Queue and Kind describe the schedule (registered for
	// inspection); ticks are recorded per Name and Queue.
	Name, Spec, Queue, Kind string
	// Next returns the first tick strictly after t.
	Next func(t time.Time) time.Time
	// CatchUp enqueues the latest tick missed while nothing ran.
	CatchUp bool
	// CatchUpFrom, when not zero, is when the schedule took its present
	// form (a stored schedule's last change: set, respecced, resumed): no
	// tick before it is enqueued, as none was missed then, neither by
	// catching up nor by a loop that counts from PeriodicConfig.Since.
	CatchUpFrom time.Time
	// Job builds the job of one tick (Schedule, Tick and RunAt set).
	Job func(tick time.Time) (*store.NewJob, error)
	// Stored says the schedule is a stored one (store.ScheduleInfo.Stored):
	// its registration is recorded only while it exists.
	Stored bool
}

// PeriodicConfig is the periodic loop's resolved configuration.
type PeriodicConfig struct {
	Jobs []Periodic
	// Enqueue stores a tick's job (the Client's middleware chain).
	Enqueue func(ctx context.Context, jobs []*store.NewJob) error
	// Now is the clock ticks are computed and fired by.
	Now    func() time.Time
	Logger *slog.Logger
	// Since, when not zero and before now, is when the first ticks are
	// counted from: those between it and now fire at once (the store
	// refuses any some process enqueued already). Zero means now.
	Since time.Time
}

// RunPeriodic registers the schedules, catches up the missed ticks of the
// CatchUp jobs, then enqueues every tick as it falls due until ctx is done.
// Each tick is enqueued with its schedule's name, so the store refuses a
// tick some other process enqueued first: any number of processes may run
// the same schedules.
func RunPeriodic(ctx context.Context, st store.Store, cfg PeriodicConfig) {
	r := &periodicRun{st: st, cfg: cfg, jobs: cfg.Jobs, log: cfg.Logger, now: cfg.Now}
	r.run(ctx)
}

// periodicRun runs the periodic jobs of one scheduler.
type periodicRun struct {
	st   store.Store
	cfg  PeriodicConfig
	jobs []Periodic
	log  *slog.Logger
	now  func() time.Time

	// firing[i] is the i-th schedule's tick being enqueued, nil when
	// none is; its goroutine sends it on ended when done, saying whether
	// the tick was dropped. Both belong to run's goroutine.
	firing []*firingTick
	ended  chan endedTick
	fires  sync.WaitGroup

	// outages[i] is what was logged of the i-th schedule's failed
	// enqueues and lost ticks; its fires share it.
	outages []*tickOutage
}

// firingTick is a tick being enqueued: its goroutine (fire) and run's
// share it under mu.
type firingTick struct {
	mu     sync.Mutex
	inCall bool          // fire is in a call to the store
	over   bool          // the schedule's next tick took its place
	stop   chan struct{} // closed with over set: ends fire's wait between tries

	// skipped is the newest tick start skipped while fire was in a call
	// (zero: none), which resume enqueues if that call's tick is dropped.
	// Only run's goroutine reads and writes it, with no lock.
	skipped time.Time
}

// endedTick is what a fire sends on ended: the i-th schedule's tick f,
// and whether fire dropped it, giving up on the store.
type endedTick struct {
	i       int
	f       *firingTick
	dropped bool
}

func (r *periodicRun) run(ctx context.Context) {
	now := r.now()
	from := now
	if s := r.cfg.Since; !s.IsZero() && s.Before(now) {
		from = s
	}
	next := make([]time.Time, len(r.jobs))
	infos := make([]store.ScheduleInfo, len(r.jobs))
	for i, p := range r.jobs {
		// A stored schedule resumed or made since the last loop stopped
		// had no tick to lose: the tick that fell while it was paused,
		// or before it existed, ran.
		start := from
		if c := p.CatchUpFrom; c.After(start) && c.Before(now) {
			start = c
		}
		next[i] = nextOf(p, start)
		infos[i] = store.ScheduleInfo{Name: p.Name, Spec: p.Spec, Queue: p.Queue, Kind: p.Kind, Next: next[i], Stored: p.Stored}
	}
	r.register(ctx, infos, next)
	// Each schedule's ticks are enqueued on a goroutine of their own, one
	// at a time: a call that hangs (its queue's master frozen) holds only
	// its own schedule's ticks. All of them ended with a loop that fired
	// them one after another.
	r.firing = make([]*firingTick, len(r.jobs))
	r.ended = make(chan endedTick, len(r.jobs))
	r.outages = make([]*tickOutage, len(r.jobs))
	for i := range r.outages {
		r.outages[i] = new(tickOutage)
	}
	defer r.lostNotLogged() // once the fires have ended
	defer r.fires.Wait()    // the fires end with ctx
	r.catchUp(ctx, now)

	timer := time.NewTimer(0)
	defer timer.Stop()
	refresh := time.NewTicker(store.ScheduleRefresh)
	defer refresh.Stop()
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
		case <-refresh.C:
			r.register(ctx, infos, next) // still running them: see ScheduleInfo.SeenAt
			continue
		case e := <-r.ended:
			if r.firing[e.i] == e.f {
				r.firing[e.i] = nil
				if e.dropped {
					r.resume(ctx, e.i, e.f.skipped)
				}
			}
			continue
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
			for n := nextOf(p, tick); !n.After(now); n = nextOf(p, n) {
				tick = n
			}
			r.start(ctx, i, tick)
			next[i] = nextOf(p, tick)
		}
	}
}

// start enqueues tick of the i-th schedule on a goroutine (fire). The
// schedule's tick before, when its enqueue failed and waits to try again,
// is dropped (fire logs it): the newest tick goes ahead. When that
// enqueue is still in a call to the store, this tick is skipped, which it
// logs, and noted (firingTick.skipped): if the call succeeds, this
// process does not enqueue it (another may), as one late tick beats two
// back to back; if it fails, resume enqueues it then. A tick before that
// waited past its next tick's time took that tick's place: the current
// tick was lost and the old one enqueued late (an outside trial's Redis
// restart).
func (r *periodicRun) start(ctx context.Context, i int, tick time.Time) {
	p := r.jobs[i]
	if f := r.firing[i]; f != nil {
		f.mu.Lock()
		busy := f.inCall
		if !busy && !f.over {
			f.over = true
			close(f.stop)
		}
		f.mu.Unlock()
		if busy {
			f.skipped = tick
			r.log.Warn("hopper: periodic tick skipped: the enqueue of its previous tick is still waiting for the store (should that enqueue fail, this tick is enqueued then)",
				slog.String("name", p.Name), slog.String("queue", p.Queue), slog.Time("tick", tick))
			return
		}
	}
	f := &firingTick{stop: make(chan struct{})}
	r.firing[i] = f
	r.fires.Go(func() {
		dropped := r.fire(ctx, p, tick, f, r.outages[i])
		// Unless run has returned (ctx ended): a fire start superseded
		// and its successor may both end then, more than ended holds.
		select {
		case r.ended <- endedTick{i, f, dropped}:
		case <-ctx.Done():
		}
	})
}

// resume starts skipped, the i-th schedule's newest tick, which start
// skipped while the enqueue of the tick before was in a call to the store
// that then failed, its tick dropped: the skipped tick is enqueued now,
// retried as any failed tick is, rather than lost until the tick after
// it (an outside trial's 15 s network outage: a read timeout 60 ms after
// the next tick fell due, no tick for 10 s). It does nothing when no tick
// was skipped (zero) or when the tick after it is due within tickMargin,
// which then goes ahead itself.
func (r *periodicRun) resume(ctx context.Context, i int, skipped time.Time) {
	p := r.jobs[i]
	if skipped.IsZero() || !r.now().Before(nextOf(p, skipped).Add(-tickMargin)) {
		return
	}
	r.log.Info("hopper: skipped periodic tick enqueued after all: the enqueue of its previous tick failed",
		slog.String("name", p.Name), slog.String("queue", p.Queue), slog.Time("tick", skipped))
	r.start(ctx, i, skipped)
}

// noTick is the next tick of a schedule that has none: far enough for the
// timer never to fire for it.
var noTick = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// nextOf is p's next tick after t, or noTick when its spec gives none
// (the zero time: a cron expression whose dates never occur, which
// parseSpec refuses; a Next of a caller's own may still say so): a
// schedule without ticks waits for ever rather than firing in a loop.
func nextOf(p Periodic, t time.Time) time.Time {
	n := p.Next(t)
	if n.IsZero() || n.After(noTick) {
		return noTick
	}
	return n
}

// register records the schedules (infos, with their next ticks) in the
// store for inspection, seen now.
func (r *periodicRun) register(ctx context.Context, infos []store.ScheduleInfo, next []time.Time) {
	seen := r.now()
	for i := range infos {
		infos[i].Next, infos[i].SeenAt = next[i], seen
	}
	if err := r.st.RegisterSchedules(ctx, infos); err != nil && ctx.Err() == nil {
		r.log.Warn("hopper: registering periodic schedules failed", slog.Any("error", err))
	}
}

// catchUp enqueues, for each CatchUp job, the latest tick before now if it
// is newer than the last tick the store recorded.
func (r *periodicRun) catchUp(ctx context.Context, now time.Time) {
	var last map[string]time.Time
	for i, p := range r.jobs {
		if !p.CatchUp {
			continue
		}
		if last == nil {
			infos, err := r.st.ListSchedules(ctx)
			if err != nil {
				r.log.Warn("hopper: reading periodic schedules for catch-up failed", slog.Any("error", err))
				return
			}
			last = map[string]time.Time{}
			for _, in := range infos {
				last[in.Queue+"\x00"+in.Name] = in.LastTick
			}
		}
		from := last[p.Queue+"\x00"+p.Name]
		if from.IsZero() {
			continue // never ran: nothing was missed
		}
		if from.Before(p.CatchUpFrom) {
			from = p.CatchUpFrom // paused, respecced or made again since
		}
		var missed time.Time
		for n, i := nextOf(p, from), 0; !n.After(now) && i < 1_000_000; n, i = nextOf(p, n), i+1 {
			missed = n
		}
		if !missed.IsZero() {
			r.start(ctx, i, missed)
		}
	}
}

// fire enqueues one tick (f), retrying while the store fails until the
// next tick is due: it starts no try within tickMargin of it, nor once
// start has given f's place to the next tick (f.over). It reports
// whether it dropped the tick, giving up on the store (drop logs it);
// not when the tick was enqueued, its job is invalid or ctx ended. Its
// failures and drops are logged as those of one outage of its schedule
// (o), not each: see tickOutage.
func (r *periodicRun) fire(ctx context.Context, p Periodic, tick time.Time, f *firingTick, o *tickOutage) (dropped bool) {
	giveUp := p.Next(tick).Add(-tickMargin)
	var err error
	failLogged, failsOmitted := false, 0 // the failure accounting of err, the last try's
	for try := 0; ; try++ {
		j, jerr := p.Job(tick)
		if jerr != nil {
			r.log.Error("hopper: periodic job is invalid", slog.String("name", p.Name), slog.Any("error", jerr))
			return false
		}
		f.mu.Lock()
		over := f.over
		f.inCall = !over
		f.mu.Unlock()
		if over {
			r.drop(p, tick, err, o, false, 0)
			return true
		}
		err = r.cfg.Enqueue(ctx, []*store.NewJob{j})
		f.mu.Lock()
		f.inCall = false
		f.mu.Unlock()
		if err == nil {
			r.recovered(p, o)
		}
		if err == nil || ctx.Err() != nil {
			return false
		}
		d := min(giveUp.Sub(r.now()), time.Duration(1<<min(try, 9))*10*time.Millisecond)
		taken := false // the next tick took f's place
		failLogged, failsOmitted = r.failed(p, tick, err, d, o)
		if d > 0 {
			t := time.NewTimer(d)
			select {
			case <-ctx.Done():
			case <-f.stop:
				taken = true
			case <-t.C:
			}
			t.Stop()
		}
		if ctx.Err() != nil {
			return false
		}
		if taken || d <= 0 || !r.now().Before(giveUp) {
			// A failure with no try after it (d <= 0) is logged, when its
			// outage logs it, by the drop's line, which carries its error.
			unshown := d <= 0 && failLogged
			r.drop(p, tick, err, o, unshown, failsOmitted)
			return true
		}
	}
}

// tickOutage is what was logged of one schedule's outage: its enqueues'
// failures since the last that succeeded, and the ticks it lost. Under an
// outage of a few seconds (Redis restarting) every try of every tick was
// logged, and every tick dropped: a schedule every 2 s logged 120 such lines
// in 30 s. Now the failures are logged as the other retry loops log
// theirs (retrylog): the first, then at most one every retrylog.Every
// saying how many it left out, and, at the first success after more than
// one, one line saying that enqueueing works again. The ticks lost
// (dropped or given up) are each a job that does not run, so none goes
// unsaid: the first of an outage is logged, then at most one every
// retrylog.Every, each line saying how many lost since the last were not
// logged and the first of them; those left when enqueueing works again
// are counted in its line, and those left when the loop stops in a line
// of their own (lostNotLogged).
//
// An outage is a schedule's rather than a queue's: each line names the
// schedule and tick whose job did not run, and its fires are the retry
// loop. A schedule's fires may overlap (a tick being dropped while the
// next one's is enqueued), so mu guards it; lines are logged under mu,
// in the order of the accounting.
type tickOutage struct {
	mu    sync.Mutex
	tries retrylog.Outage

	lost       int       // ticks lost since the last success
	lostLogged time.Time // when a lost tick was last logged
	// unlogged are the lost ticks not logged since then (unloggedMayRun
	// of them given up, their write maybe stored), from the tick first.
	unlogged, unloggedMayRun int
	first                    time.Time
}

// failed accounts the failure of an enqueue of tick of p with err, to be
// tried again in d (none if d <= 0: the tick is dropped), and logs it if
// its outage o says to. It reports whether o logs it, and how many
// failures that line leaves out: with no try after it, drop logs it.
func (r *periodicRun) failed(p Periodic, tick time.Time, err error, d time.Duration, o *tickOutage) (logged bool, omitted int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	logged, omitted = o.tries.Failed(r.now())
	if logged && d > 0 {
		r.log.Error("hopper: enqueueing periodic job failed", slog.String("name", p.Name), slog.String("queue", p.Queue),
			slog.Time("tick", tick), slog.Any("error", err), slog.Duration("retry_in", d), slog.Int("failures_not_logged", omitted))
	}
	return logged, omitted
}

// recovered accounts an enqueue of p that succeeded: after an outage of
// more than one failure, or one that lost ticks not logged, it logs one
// line saying that enqueueing works again, with the outage's failures,
// how long it lasted, and the ticks it lost.
func (r *periodicRun) recovered(p Periodic, o *tickOutage) {
	o.mu.Lock()
	defer o.mu.Unlock()
	log, n, lasted := o.tries.Recovered(r.now())
	if log || o.unlogged > 0 {
		attrs := []slog.Attr{slog.String("name", p.Name), slog.String("queue", p.Queue),
			slog.Int("failures", n), slog.Duration("after", lasted), slog.Int("ticks_lost", o.lost)}
		r.log.LogAttrs(context.Background(), slog.LevelInfo, "hopper: enqueueing periodic jobs works again",
			append(attrs, o.unloggedAttrs()...)...)
	}
	o.lost, o.lostLogged = 0, time.Time{} // Recovered reset o.tries, and its line (or none left) o.unlogged
}

// unloggedAttrs are the attributes of o's lost ticks not logged, none if
// there are none; it counts them logged. o.mu is held.
func (o *tickOutage) unloggedAttrs() []slog.Attr {
	if o.unlogged == 0 {
		return nil
	}
	attrs := []slog.Attr{slog.Int("ticks_lost_not_logged", o.unlogged), slog.Time("first_tick_not_logged", o.first)}
	if o.unloggedMayRun > 0 {
		attrs = append(attrs, slog.Int("of_which_may_still_run", o.unloggedMayRun))
	}
	o.unlogged, o.unloggedMayRun, o.first = 0, 0, time.Time{}
	return attrs
}

// drop logs that fire gave up tick of p, whose last enqueue failed with
// err (nil: none was tried), as one of the lost ticks of its outage o:
// the first of the outage, then at most one every retrylog.Every, saying
// how many lost since were not logged, and the first of them. It is
// logged too when it carries its failure's line (failLogged: that failure
// had no try after it, and o said to log it), with failsOmitted, the
// failures that line leaves out. When err says the job may be stored all
// the same (store.MayBeStored), the log says so rather than that the tick
// is lost: a write held on a broken link may still land, and its job run
// late (an outside trial: a tick "dropped" ran 19.6 s late).
func (r *periodicRun) drop(p Periodic, tick time.Time, err error, o *tickOutage, failLogged bool, failsOmitted int) {
	fate := "dropped"
	mayRun := store.MayBeStored(err)
	if mayRun {
		fate = "given up (it may still run: the store may have taken the write before its reply was lost)"
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	now := r.now()
	o.lost++
	if !failLogged && o.lost > 1 && now.Sub(o.lostLogged) < retrylog.Every {
		if o.unlogged == 0 {
			o.first = tick
		}
		o.unlogged++
		if mayRun {
			o.unloggedMayRun++
		}
		return
	}
	o.lostLogged = now
	attrs := []slog.Attr{slog.String("name", p.Name), slog.String("queue", p.Queue), slog.Time("tick", tick), slog.Any("error", err)}
	if failLogged {
		attrs = append(attrs, slog.Int("failures_not_logged", failsOmitted))
	}
	r.log.LogAttrs(context.Background(), slog.LevelError, "hopper: enqueueing periodic job failed; its next tick is due, so this one is "+fate,
		append(attrs, o.unloggedAttrs()...)...)
}

// lostNotLogged logs, as the loop stops, the lost ticks of each schedule
// that no line has counted yet: an outage that outlasts the loop says
// how many ticks it lost all the same.
func (r *periodicRun) lostNotLogged() {
	for i, o := range r.outages {
		o.mu.Lock()
		if o.unlogged > 0 {
			p := r.jobs[i]
			attrs := []slog.Attr{slog.String("name", p.Name), slog.String("queue", p.Queue), slog.Int("ticks_lost", o.lost)}
			r.log.LogAttrs(context.Background(), slog.LevelError, "hopper: periodic ticks dropped or given up, not logged before the loop stopped",
				append(attrs, o.unloggedAttrs()...)...)
		}
		o.mu.Unlock()
	}
}

// tickMargin is how long before a schedule's next tick the enqueue of the
// tick before it stops trying: a try then would still be in its call when
// the next tick falls due, which would be skipped.
const tickMargin = 5 * time.Millisecond

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
