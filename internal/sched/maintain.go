// Package sched runs hopper's Scheduler: the maintenance loop that keeps,
// per queue, the time its next job falls due (promote, reclaim, collect,
// as store.Store.Maintain does them) and sleeps until the earliest, and
// the periodic loop that enqueues the ticks of periodic jobs. Package
// hopper owns their configuration; this package sees it resolved.
package sched

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/hopperq/hopper/internal/alarm"
	"github.com/hopperq/hopper/internal/retrylog"
	"github.com/hopperq/hopper/store"
)

// Config is the maintenance loop's resolved configuration.
type Config struct {
	// Queues to maintain; empty means every queue the store knows, listed
	// again every 10 s.
	Queues []string
	// Maintain bounds each Store.Maintain call.
	Maintain store.MaintainOpts
	// MaxSleep bounds one wait. A wait that ends without a signal and with
	// no queue due makes the loop look at a few queues it has heard
	// nothing from, in turn.
	MaxSleep time.Duration
	Logger   *slog.Logger
}

// sweepPerSleep is how many queues a wait as long as MaxSleep that ended
// without a signal marks due anyway, in turn: the last resort against a
// signal lost to a fault, at a bounded cost.
const sweepPerSleep = 4

// minRevisit is the shortest wait between two passes over a queue that is
// not batch-limited: short next to a due time's millisecond, long enough
// that a store rounding its due times cannot make the loop spin.
const minRevisit = 100 * time.Microsecond

// never is a due time that does not come.
var never = time.Unix(1<<62, 0)

// relistEvery is how often the loop lists the store's queues when its
// config names none.
const relistEvery = 10 * time.Second

// Run maintains cfg's queues until ctx is done.
//
// Each queue is maintained when its own next due time comes (from what
// the last Maintain said: NextIn, or at once when a batch limit left more),
// when the store signals that its due time moved earlier (WaitSchedule
// returned it), and once at start. An idle queue (nothing scheduled) is
// not maintained again until it is signalled. So the cost follows the
// work: one blocking wait for all queues, and one Maintain per queue per
// event, never all queues for one signal. A queue whose Maintain fails
// backs off alone.
func Run(ctx context.Context, st store.Store, cfg Config) {
	r := &schedRun{st: st, cfg: cfg, next: map[string]time.Time{}, fails: map[string]int{}, outages: map[string]*retrylog.Outage{}, alarm: alarm.New()}
	defer r.alarm.Close()
	r.run(ctx)
}

type schedRun struct {
	st     store.Store
	cfg    Config
	queues []string             // sorted
	next   map[string]time.Time // when each queue is due for a pass, local monotonic time
	fails  map[string]int       // consecutive errors per queue, for backoff
	// outages holds what was logged of a failing queue's errors.
	outages map[string]*retrylog.Outage
	listed  time.Time // when the queue list was last refreshed
	// unexpanded is set while some configured queue may be partitioned
	// but the store could not say (expandPartitions failed).
	unexpanded bool
	sweep      int // the next queue of the rotating check
	waits      int // consecutive failed waits, for backoff
	// waitOutage is what was logged of the failed waits (one line per
	// outage, then one every retrylog.Every).
	waitOutage retrylog.Outage
	// alarm ends each wait for signals at the next due time to within
	// tens of µs: a Go timer ended it up to a millisecond late
	// (internal/alarm).
	alarm *alarm.Alarm
}

func (r *schedRun) run(ctx context.Context) {
	r.refreshQueues(ctx, true)
	for ctx.Err() == nil {
		r.refreshQueues(ctx, false)
		now := time.Now()
		for _, q := range r.queues {
			if !r.next[q].After(now) {
				r.maintain(ctx, q)
			}
		}
		if ctx.Err() != nil {
			return
		}
		now = time.Now()
		wait := r.cfg.MaxSleep
		var watch []string
		for _, q := range r.queues {
			if d := r.next[q].Sub(now); d < wait {
				wait = max(d, 0)
			}
			if r.fails[q] == 0 { // a failing queue waits for its backoff, not signals
				watch = append(watch, q)
			}
		}
		if wait <= 0 {
			continue
		}
		if len(watch) == 0 {
			sleepCtx(ctx, wait)
			continue
		}
		signalled, err := r.waitSchedule(ctx, watch, wait)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			r.waits++
			d := min(r.cfg.MaxSleep, time.Duration(1<<min(r.waits, 10))*10*time.Millisecond)
			if log, omitted := r.waitOutage.Failed(time.Now()); log {
				r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: wait failed",
					slog.Any("error", err), slog.Duration("retry_in", d), slog.Int("failures_not_logged", omitted))
			}
			sleepCtx(ctx, d)
			continue
		}
		if ctx.Err() != nil {
			return // a wait cut short by the stop is no success
		}
		r.waits = 0
		if log, n, lasted := r.waitOutage.Recovered(time.Now()); log {
			r.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "hopper: scheduler: waiting works again",
				slog.Int("failures", n), slog.Duration("after", lasted))
		}
		now = time.Now()
		for _, q := range signalled {
			if _, ok := slices.BinarySearch(r.queues, q); ok && r.fails[q] == 0 {
				r.next[q] = now
			}
		}
		if len(signalled) == 0 && wait == r.cfg.MaxSleep {
			r.sweepSome(now)
		}
	}
}

// waitSchedule is the store's WaitSchedule ended by the alarm when wait has
// passed (a wait ended so returns what a timeout would: nothing, with the
// signals kept for the next). The store's own timeout, a little later, is
// the backstop.
func (r *schedRun) waitSchedule(ctx context.Context, watch []string, wait time.Duration) ([]string, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := r.alarm.Set(wait, cancel)
	defer stop()
	signalled, err := r.st.WaitSchedule(wctx, watch, wait+time.Millisecond)
	if err != nil && wctx.Err() != nil && ctx.Err() == nil {
		err = nil // the alarm ended a wait that was failing to start
	}
	return signalled, err
}

// expandPartitions replaces each partitioned queue of queues by its
// partitions (store.Partitioner), each maintained on its own signals and
// due time. A queue whose partitions the store could not tell stays as it
// is (maintaining it covers its partitions, at a call per partition), and
// failed reports that.
func expandPartitions(ctx context.Context, st store.Store, queues []string) (out []string, failed bool) {
	p, ok := store.As[store.Partitioner](st)
	if !ok {
		return slices.Clone(queues), false
	}
	for _, q := range queues {
		parts, err := p.Partitions(ctx, q)
		switch {
		case err != nil:
			failed = true
			out = append(out, q)
		case parts == nil:
			out = append(out, q)
		default:
			out = append(out, parts...)
		}
	}
	return out, failed
}

// sweepSome marks the next few queues due, in turn.
func (r *schedRun) sweepSome(now time.Time) {
	n := len(r.queues)
	for range min(sweepPerSleep, n) {
		q := r.queues[r.sweep%n]
		r.sweep++
		if r.next[q].After(now) && r.fails[q] == 0 {
			r.next[q] = now
		}
	}
}

// maintain runs one Maintain call on q and schedules its next pass.
func (r *schedRun) maintain(ctx context.Context, q string) {
	res, err := r.st.Maintain(ctx, q, r.cfg.Maintain)
	now := time.Now()
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		r.fails[q]++
		d := min(r.cfg.MaxSleep, time.Duration(1<<min(r.fails[q], 10))*10*time.Millisecond)
		o := r.outages[q]
		if o == nil {
			o = new(retrylog.Outage)
			r.outages[q] = o
		}
		if log, omitted := o.Failed(now); log {
			r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: maintain failed",
				slog.String("queue", q), slog.Any("error", err), slog.Duration("retry_in", d), slog.Int("failures_not_logged", omitted))
		}
		r.next[q] = now.Add(d)
		return
	}
	r.fails[q] = 0
	if o := r.outages[q]; o != nil {
		if log, n, lasted := o.Recovered(now); log {
			r.cfg.Logger.LogAttrs(ctx, slog.LevelInfo, "hopper: scheduler: maintain works again",
				slog.String("queue", q), slog.Int("failures", n), slog.Duration("after", lasted))
		}
		delete(r.outages, q)
	}
	switch {
	case res.More:
		r.next[q] = now
	case res.Idle:
		r.next[q] = never // until the store signals it
	default:
		// NextIn counts from the store's clock; a store that says 0
		// with nothing done (a due time it rounds) is not asked again
		// sooner than minRevisit.
		r.next[q] = now.Add(max(res.NextIn, minRevisit))
	}
	// A queue with jobs ready is sampled once a minute for its history
	// (store.MaintainResult.Backlog): come back in the next minute at the
	// latest.
	if res.Backlog {
		if at := now.Truncate(time.Minute).Add(time.Minute + time.Second); r.next[q].After(at) {
			r.next[q] = at
		}
	}
}

// refreshQueues lists the store's queues when the config names none, at
// most every relistEvery unless forced. A queue new to the list is due at
// once.
func (r *schedRun) refreshQueues(ctx context.Context, force bool) {
	if len(r.cfg.Queues) > 0 {
		if r.queues == nil || r.unexpanded && time.Since(r.listed) >= relistEvery {
			r.listed = time.Now()
			r.queues, r.unexpanded = expandPartitions(ctx, r.st, r.cfg.Queues)
			slices.Sort(r.queues)
		}
		return
	}
	if !force && time.Since(r.listed) < relistEvery {
		return
	}
	r.listed = time.Now()
	qs, err := r.st.ListQueues(ctx)
	if err != nil {
		if ctx.Err() == nil {
			r.cfg.Logger.LogAttrs(ctx, slog.LevelError, "hopper: scheduler: listing queues failed", slog.Any("error", err))
		}
		return
	}
	r.queues = slices.Sorted(slices.Values(qs))
}
