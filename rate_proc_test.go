package hopper_test

// Rate limits where users feel them: the starts of attempts in real
// worker processes on one machine's clock, claim-to-start lag included
// (store.RateTerms says why they hold).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/redis/go-redis/v9"
)

// rolePaced is the worker role of the rate tests (pacedWorker).
const rolePaced = "paced"

func init() { proctest.Register(rolePaced, workerRole(pacedWorker)) }

// pacedTimeout is the JobTimeout of pacedWorker: a handler's context
// deadline less it is the moment the worker started the attempt.
const pacedTimeout = time.Hour

// pacedPathMost bounds the path from an attempt's start to its handler's
// clock read that pacedWorker accepts: far above the few ms a loaded
// machine shows, and below the seconds a backlog's jobs wait for their
// slots after their claim, so that a deadline counted from the claim
// instead of the start fails the test.
const pacedPathMost = time.Second

// pacedWorker's handlers report two events, in this order: "handler", At
// the moment the handler's own code read the clock, and "start", At the
// moment the worker started the attempt (with its claim time and group).
//
// The start is what a rate limit bounds: the worker checks the guard
// there, not before the job's slot and not after the guard
// (store.RateTerms), and counts the attempt's timeout from it, so it is
// the handler's deadline less pacedTimeout. The handler's clock read
// comes later by the path from there to its code (middleware, decoding
// the args, being scheduled), which no limit bounds: the smooth mode
// leaves it a tenth of Period/Limit (1 ms at 100 a second), and a
// race-instrumented child on a busy machine overruns that by several ms
// (up to 8.7 ms measured on 2 cores with a busy loop beside), so that
// one late clock read and a punctual one put 11 handlers in a window of
// 100 ms that held 10 starts. The tests check the starts and log that
// path.
func pacedWorker(c *proctest.Child, _ childSpec, _ *redis.Client, st hopper.Store, cfg *hopper.WorkerConfig) *hopper.Worker {
	cfg.JobTimeout = pacedTimeout
	w := hopper.NewWorker(st, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		at := time.Now()
		deadline, ok := ctx.Deadline()
		if !ok {
			return c.Error(j.ID, errors.New("the handler's context has no deadline under a JobTimeout"))
		}
		start := deadline.Add(-pacedTimeout)
		if start.After(at) || at.Sub(start) > pacedPathMost {
			return c.Error(j.ID, fmt.Errorf("the attempt started at %v (its deadline less the JobTimeout), its handler ran at %v: "+
				"the deadline is not counted from the start", start.Format(time.StampMicro), at.Format(time.StampMicro)))
		}
		c.Emit(proctest.Event{Ev: "handler", Job: j.ID, At: at})
		e := started(j.JobRecord)
		e.At, e.Group = start, j.Group
		c.Emit(e)
		return nil
	})
	return w
}

// rateProc is one process test of a rate limit of 100 starts a second:
// two worker processes of 16 slots, jobs jobs in group (none: ungrouped),
// and other ungrouped jobs beside them that no limit holds back.
type rateProc struct {
	cfg hopper.QueueConfig
	// least is the lowest average rate accepted.
	least float64
	group string
	jobs  int
	other int
	// window and most: no window of this length may hold more starts.
	checks []rateCheck
}

type rateCheck struct {
	window time.Duration
	most   int
}

// The runs are as short as they can be while showing the behaviour: the
// overshoot they catch (two bursts of a period's claims landing in one
// window of starts) came every period, so a few periods suffice.
const rateProcJobs = 800

// TestProcRateLimitCountsStarts: RateLimit 100 per second holds for
// starts: no window of one second slid over every start holds
// more than 100 of them, and a backlog starts at 90 a second or more.
func TestProcRateLimitCountsStarts(t *testing.T) {
	runRateProc(t, rateProc{cfg: hopper.QueueConfig{RateLimit: 100, RatePeriod: time.Second}, least: 90, jobs: rateProcJobs,
		checks: []rateCheck{{time.Second, 100}}})
}

// smoothBurst is the RateBurst of the smooth tests: none, the strictest.
const smoothBurst = 0

// smoothLeast is the lowest average the smooth tests accept: 90 a second,
// but 60 under the race detector. A smooth pace starts each job within
// 4 ms of its slot (RateTerms.Guard at 100 a second) or hands it back,
// losing the slot; a race-instrumented child on this shared machine
// misses that often (about one slot in ten, measured), the sliding
// window's 40 ms guard almost never. The bounds on windows hold either
// way.
var smoothLeast = map[bool]float64{false: 90, true: 60}[testutil.Race]

// TestProcRateSmooth: RateSmooth paces the starts: no 100 ms window holds
// more than 10 + RateBurst, no second more than 100, and a backlog starts
// at 90 a second or more.
func TestProcRateSmooth(t *testing.T) {
	runRateProc(t, rateProc{cfg: hopper.QueueConfig{RateLimit: 100, RatePeriod: time.Second, RateSmooth: true, RateBurst: smoothBurst},
		least: smoothLeast, jobs: rateProcJobs, checks: []rateCheck{{time.Second, 100}, {100 * time.Millisecond, 10 + smoothBurst}}})
}

// TestProcGroupRateCountsStarts: GroupRateLimit 100 per second holds for
// the starts of one group among ungrouped jobs that run unlimited.
func TestProcGroupRateCountsStarts(t *testing.T) {
	runRateProc(t, rateProc{cfg: hopper.QueueConfig{GroupRateLimit: 100, GroupRatePeriod: time.Second}, least: 90, group: "tenant",
		jobs: rateProcJobs / 2, other: rateProcJobs, checks: []rateCheck{{time.Second, 100}}})
}

// TestProcGroupRateSmooth: GroupRateSmooth paces one group's starts among
// ungrouped jobs.
func TestProcGroupRateSmooth(t *testing.T) {
	runRateProc(t, rateProc{cfg: hopper.QueueConfig{GroupRateLimit: 100, GroupRatePeriod: time.Second, GroupRateSmooth: true,
		GroupRateBurst: smoothBurst}, least: smoothLeast, group: "tenant", jobs: rateProcJobs / 2, other: rateProcJobs,
		checks: []rateCheck{{time.Second, 100}, {100 * time.Millisecond, 10 + smoothBurst}}})
}

func runRateProc(t *testing.T, r rateProc) {
	if testing.Short() {
		t.Skip("runs worker processes under a rate limit for up to 9 seconds; not in -short mode")
	}
	p := newTimedProcSetup(t)
	ctx := t.Context()
	const queue = "limited"
	if err := hopper.NewInspector(p.store).SetQueueConfig(ctx, queue, r.cfg); err != nil {
		t.Fatal(err)
	}
	p.start(2, childSpec{Role: rolePaced, Queue: queue, Concurrency: 16})
	client := hopper.NewClient(p.store, nil)
	if _, err := hopper.EnqueueMany(ctx, client, make([]Echo, r.jobs), &hopper.EnqueueOpts{Queue: queue, Group: r.group}); err != nil {
		t.Fatal(err)
	}
	if r.other > 0 {
		if _, err := hopper.EnqueueMany(ctx, client, make([]Echo, r.other), &hopper.EnqueueOpts{Queue: queue}); err != nil {
			t.Fatal(err)
		}
	}
	limited := func(e proctest.Event) bool { return e.Ev == "start" && e.Group == r.group }
	p.EventuallyTrue(time.Duration(r.jobs)*30*time.Millisecond, fmt.Sprintf("%d limited jobs to start", r.jobs), func() bool {
		return p.Count(limited) >= r.jobs
	})
	starts := p.Filter(limited)
	slices.SortFunc(starts, func(a, b proctest.Event) int { return a.At.Compare(b.At) })
	// Each "handler" event came before its job's "start".
	ran := map[string]time.Time{}
	for _, e := range p.Filter(proctest.Is("handler")) {
		ran[e.Job] = e.At
	}
	var at, handlers []time.Time
	var paths []time.Duration
	for _, e := range starts {
		at = append(at, e.At)
		handlers = append(handlers, ran[e.Job])
		paths = append(paths, ran[e.Job].Sub(e.At))
	}
	slices.SortFunc(handlers, time.Time.Compare)
	slices.Sort(paths)
	t.Logf("from a start to its handler's clock read: median %v, 99th percentile %v, most %v",
		paths[len(paths)/2], paths[len(paths)*99/100], paths[len(paths)-1])
	for _, c := range r.checks {
		most, where := mostInWindow(at, c.window)
		byHandler, _ := mostInWindow(handlers, c.window)
		t.Logf("most starts in a window of %v: %d (from %v), limit %d; by the handlers' clock reads %d",
			c.window, most, where.Format(time.StampMilli), c.most, byHandler)
		if most > c.most {
			t.Errorf("a window of %v from %v held %d starts across 2 processes, want at most %d; the starts around it:",
				c.window, where.Format(time.StampMilli), most, c.most)
			for _, e := range starts {
				if d := e.At.Sub(where); d >= -c.window/2 && d < c.window*3/2 {
					t.Logf("  %v start %+.1f ms, in %s, handler %+.1f ms later, claimed %v (store clock), attempt %d",
						e.At.Format(time.StampMicro), ms(d), e.Child, ms(ran[e.Job].Sub(e.At)), e.AttemptedAt.Format(time.StampMicro), e.Attempt)
				}
			}
		}
	}
	rate := meanInWindows(at, time.Second)
	t.Logf("%d starts over %v: %.1f a second on average in a window of 1s slid over the run",
		len(at), at[len(at)-1].Sub(at[0]).Round(time.Millisecond), rate)
	if rate < r.least {
		t.Errorf("a backlog started %.1f jobs a second under a limit of 100, want at least %.0f", rate, r.least)
	}
	if n := p.Count(proctest.Is("start")); n != r.jobs+r.other {
		t.Errorf("%d handler starts for %d jobs, want one each", n, r.jobs+r.other)
	}
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// mostInWindow returns the most of the sorted times at that one window
// [at[i], at[i]+w) holds, and where it starts.
func mostInWindow(at []time.Time, w time.Duration) (int, time.Time) {
	most, where := 0, time.Time{}
	for i, j := 0, 0; j < len(at); j++ {
		for at[j].Sub(at[i]) >= w {
			i++
		}
		if j-i+1 > most {
			most, where = j-i+1, at[i]
		}
	}
	return most, where
}

// meanInWindows returns the mean count of the sorted times at in a window
// [s, s+w), s sliding by the millisecond from the first time to w before
// the last, per second: the rate a backlog ran at, fair to bursts (a
// burst at each end of the run would count twice in starts over span)
// and to an even pace alike.
func meanInWindows(at []time.Time, w time.Duration) float64 {
	if len(at) == 0 || at[len(at)-1].Sub(at[0]) <= w {
		return 0
	}
	sum, steps := 0, 0
	i, j := 0, 0
	for s := at[0]; !s.Add(w).After(at[len(at)-1]); s = s.Add(time.Millisecond) {
		for i < len(at) && at[i].Before(s) {
			i++
		}
		for j < len(at) && at[j].Before(s.Add(w)) {
			j++
		}
		sum += j - i
		steps++
	}
	return float64(sum) / float64(steps) / w.Seconds()
}
