package sched

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// TestPeriodicWithoutTicksStops: a schedule whose Next has no tick (the
// zero time, as a cron expression of dates that never occur gives) beside
// a ticking one: the loop keeps firing the other and returns when its
// context ends. It spun on the zero time and never returned.
func TestPeriodicWithoutTicksStops(t *testing.T) {
	st := memstore.New(nil)
	ctx, cancel := context.WithCancel(t.Context())
	fired := make(chan time.Time, 16)
	job := func(tick time.Time) (*store.NewJob, error) {
		return &store.NewJob{ID: "t" + tick.Format("150405.000"), Queue: "default", Kind: "k", Args: []byte{0x80}}, nil
	}
	cfg := PeriodicConfig{
		Jobs: []Periodic{
			{Name: "never", Spec: "0 0 30 2 *", Queue: "default", Kind: "k", CatchUp: true, Job: job,
				Next: func(time.Time) time.Time { return time.Time{} }},
			{Name: "often", Spec: "@every 10ms", Queue: "default", Kind: "k", Job: job,
				Next: func(t time.Time) time.Time { return t.Truncate(10 * time.Millisecond).Add(10 * time.Millisecond) }},
		},
		Enqueue: func(ctx context.Context, jobs []*store.NewJob) error {
			for _, j := range jobs {
				select {
				case fired <- j.RunAt:
				default:
				}
			}
			return nil
		},
		Now:    time.Now,
		Logger: slog.New(slog.DiscardHandler),
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunPeriodic(ctx, st, cfg)
	}()
	for range 3 {
		select {
		case <-fired:
		case <-time.After(30 * time.Second):
			t.Fatal("the ticking schedule did not fire beside one without ticks")
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("RunPeriodic did not return after its context ended, with a schedule without ticks")
	}
}

// lastTicks is a memstore whose ListSchedules reports the last tick of
// every schedule as last.
type lastTicks struct {
	*memstore.Store
	last time.Time
}

func (s *lastTicks) ListSchedules(ctx context.Context) ([]store.ScheduleInfo, error) {
	return []store.ScheduleInfo{{Name: "tenmin", Queue: "default", LastTick: s.last}}, nil
}

// TestCatchUpTakesNoTickBeforeTheChange: a CatchUp schedule that last
// ticked an hour ago catches up its latest missed tick, unless it took its
// present form since (CatchUpFrom: a stored schedule resumed, respecced or
// set again a second ago), when the ticks before were not missed: a
// schedule resumed after a pause ran the tick that fell during it.
func TestCatchUpTakesNoTickBeforeTheChange(t *testing.T) {
	for _, tc := range []struct {
		name  string
		since time.Duration // CatchUpFrom before now; 0: none
		want  bool
	}{
		{"no change since the last tick", 0, true},
		{"changed a second ago", time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Now()
			st := &lastTicks{Store: memstore.New(nil), last: now.Add(-time.Hour)}
			tenmin := Periodic{Name: "tenmin", Spec: "@every 10m", Queue: "default", Kind: "tenmin", CatchUp: true, Job: tickJob("tenmin"), Next: every(10 * time.Minute)}
			if tc.since > 0 {
				tenmin.CatchUpFrom = now.Add(-tc.since)
			}
			often := Periodic{Name: "often", Spec: "@every 10ms", Queue: "default", Kind: "often", Job: tickJob("often"), Next: every(10 * time.Millisecond)}
			caught := runFired(t, st, PeriodicConfig{Jobs: []Periodic{tenmin, often}})
			if got := firedBefore(caught, "tenmin", now); got != tc.want {
				t.Fatalf("the ten-minute schedule's missed tick caught up: %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSinceTakesNoTickBeforeTheChange: a loop that counts its first ticks
// from Since (the stored schedules' loop, restarted after a change) fires
// a tick that fell between Since and now, unless the schedule took its
// present form after Since (CatchUpFrom: resumed, or made): a stored
// schedule resumed while no other stored schedule ran enqueued the tick
// that fell during its pause, and a new one a tick from before it existed.
func TestSinceTakesNoTickBeforeTheChange(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changed time.Duration // CatchUpFrom before now; 0: none
		want    bool
	}{
		{"running through the restart", 0, true},
		{"resumed a second ago", time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := time.Now()
			tenmin := Periodic{Name: "tenmin", Spec: "@every 10m", Queue: "default", Kind: "tenmin", Job: tickJob("tenmin"), Stored: true, Next: every(10 * time.Minute)}
			if tc.changed > 0 {
				tenmin.CatchUpFrom = now.Add(-tc.changed)
			}
			often := Periodic{Name: "often", Spec: "@every 10ms", Queue: "default", Kind: "often", Job: tickJob("often"), Next: every(10 * time.Millisecond)}
			fired := runFired(t, memstore.New(nil), PeriodicConfig{Jobs: []Periodic{tenmin, often}, Since: now.Add(-time.Hour)})
			if got := firedBefore(fired, "tenmin", now); got != tc.want {
				t.Fatalf("the ten-minute schedule's tick between Since and now fired: %v, want %v", got, tc.want)
			}
		})
	}
}

// firedBefore reads the jobs of fired until the schedule "often" has
// enqueued five ticks (each schedule's ticks are enqueued on a goroutine
// of their own, so the order of two schedules' says nothing), and reports
// whether a tick of kind before now was among them.
func firedBefore(fired <-chan *store.NewJob, kind string, now time.Time) bool {
	got := false
	for often := 0; often < 5; {
		j := <-fired
		switch {
		case j.Kind == "often":
			often++
		case j.Kind == kind && !j.RunAt.After(now):
			got = true
		}
	}
	return got
}

// TestHungEnqueueHoldsOnlyItsSchedule: while the enqueue of one
// schedule's tick hangs (its queue's Redis master frozen), the other
// schedules keep ticking, and the hung one's later ticks are skipped with
// a warning. All of them waited on the hung call: one loop enqueued them
// one after another.
func TestHungEnqueueHoldsOnlyItsSchedule(t *testing.T) {
	fired := make(chan *store.NewJob, 64)
	var logs testutil.SyncBuffer
	runLoop(t, memstore.New(nil), PeriodicConfig{
		Jobs: []Periodic{
			{Name: "stuck", Spec: "@every 10ms", Queue: "stuck", Kind: "stuck", Job: tickJob("stuck"), Next: every(10 * time.Millisecond)},
			{Name: "often", Spec: "@every 10ms", Queue: "often", Kind: "often", Job: tickJob("often"), Next: every(10 * time.Millisecond)},
		},
		Now: time.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Enqueue: func(ctx context.Context, jobs []*store.NewJob) error {
			for _, j := range jobs {
				if j.Queue == "stuck" {
					<-ctx.Done() // a call that never comes back
					return ctx.Err()
				}
				select {
				case fired <- j:
				case <-ctx.Done():
				}
			}
			return nil
		}})
	for range 5 {
		j := testutil.Receive(t, fired, 30*time.Second, "a tick of the schedule beside the hung one")
		if j.Kind != "often" {
			t.Fatalf("fired %s", j.Kind)
		}
	}
	testutil.EventuallyTrue(t, 30*time.Second, "a warning that the hung schedule's tick was skipped", func() bool {
		return strings.Contains(logs.String(), "periodic tick skipped") && strings.Contains(logs.String(), "name=stuck")
	})
}

// tickJob returns a Periodic's Job for ticks of kind name, each job due
// at its tick (RunAt), in the queue named after the kind.
func tickJob(name string) func(time.Time) (*store.NewJob, error) {
	return func(tick time.Time) (*store.NewJob, error) {
		return &store.NewJob{ID: name + tick.Format("150405.000"), Queue: name, Kind: name, Args: []byte{0x80}, RunAt: tick}, nil
	}
}

// every returns the Next of a schedule that ticks every d.
func every(d time.Duration) func(time.Time) time.Time {
	return func(t time.Time) time.Time { return t.Truncate(d).Add(d) }
}

// runFired runs RunPeriodic on st with cfg until the test ends, its
// clock time.Now and its log discarded unless cfg says otherwise, and
// returns the jobs it enqueues, as it enqueues them.
func runFired(t *testing.T, st store.Store, cfg PeriodicConfig) <-chan *store.NewJob {
	fired := make(chan *store.NewJob, 64)
	cfg.Enqueue = func(ctx context.Context, jobs []*store.NewJob) error {
		for _, j := range jobs {
			select {
			case fired <- j:
			case <-ctx.Done():
			}
		}
		return nil
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	runLoop(t, st, cfg)
	return fired
}

// runLoop runs RunPeriodic on st with cfg until the test ends.
func runLoop(t *testing.T, st store.Store, cfg PeriodicConfig) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunPeriodic(ctx, st, cfg)
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// TestFailedTickGivesWayToTheNext: a tick whose enqueue fails until its
// schedule's next tick (Redis down, then back) is dropped, and the next
// tick is enqueued, on time. The failed tick's last wait between tries
// ended at the next tick's time: it was then enqueued late, and the next
// tick was skipped as if the old one were still in a call to the store
// (an outside trial restarting Redis: a tick 3.3 s late, the one after it
// lost, with Redis up).
func TestFailedTickGivesWayToTheNext(t *testing.T) {
	const period = 500 * time.Millisecond
	type accepted struct {
		tick, at time.Time
	}
	got := make(chan accepted, 16)
	var logs testutil.SyncBuffer
	var downUntil time.Time // set by the first call, read by Enqueue's calls only
	var first time.Time
	runLoop(t, memstore.New(nil), PeriodicConfig{
		Jobs: []Periodic{{Name: "every", Spec: "@every 500ms", Queue: "q", Kind: "k", Job: tickJob("q"), Next: every(period)}},
		Now:  time.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Enqueue: func(ctx context.Context, jobs []*store.NewJob) error {
			now := time.Now()
			if first.IsZero() {
				// The store is down from the first tick until the next.
				first = jobs[0].RunAt
				downUntil = first.Add(period)
			}
			if now.Before(downUntil) {
				return errors.New("connection refused")
			}
			select {
			case got <- accepted{jobs[0].RunAt, now}:
			case <-ctx.Done():
			}
			return nil
		}})
	a := testutil.Receive(t, got, 30*time.Second, "a tick enqueued once the store is back")
	if !a.tick.After(first) {
		t.Errorf("the tick of %v, which failed until its next tick, was enqueued at %v; want it dropped", a.tick, a.at)
	}
	if !a.at.Before(a.tick.Add(period)) {
		t.Errorf("the tick of %v was enqueued at %v, after its next tick; want each tick enqueued before the next", a.tick, a.at)
	}
	// The failed tick's goroutine logs its drop as it ends, which may come
	// after the next tick's enqueue.
	testutil.EventuallyTrue(t, 30*time.Second, "a log that the failed tick was dropped", func() bool {
		return strings.Contains(logs.String(), "so this one is dropped")
	})
}

// TestSkippedTickRunsWhenItsPredecessorFails: a tick that falls due while
// the enqueue of the tick before is still in a call to the store is
// skipped; when that call then fails (its tick dropped), the skipped tick
// is enqueued, and when it succeeds, the skipped tick stays skipped and
// the tick after it is the next enqueued (one late tick, not two back to
// back). The skipped tick was lost whatever the call did: an outside
// trial black-holing Redis for 15 s saw a read timeout 60 ms after the
// next tick fell due, and no tick for a whole period with Redis back.
func TestSkippedTickRunsWhenItsPredecessorFails(t *testing.T) {
	const period = 100 * time.Millisecond
	readTimeout := replyLost{&net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}}
	for _, tc := range []struct {
		name string
		err  error // the first call's, once released
	}{
		{"the call fails", readTimeout},
		{"the call succeeds", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// After the tick the first call skips, the schedule of a
			// failing call pauses for an hour: only the skipped tick
			// itself can be enqueued before the test ends.
			ticks := &pausing{every: period}
			var logs testutil.SyncBuffer
			var once sync.Once
			firstTick := make(chan time.Time, 1)
			release := make(chan struct{})
			got := make(chan time.Time, 16)
			runLoop(t, memstore.New(nil), PeriodicConfig{
				Jobs: []Periodic{{Name: "every", Spec: "@every 100ms", Queue: "q", Kind: "k", Job: tickJob("q"), Next: ticks.next}},
				Now:  time.Now, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
				Enqueue: func(ctx context.Context, jobs []*store.NewJob) error {
					tick := jobs[0].RunAt
					first := false
					once.Do(func() { first = true })
					if first {
						if tc.err != nil {
							ticks.pauseAfter(tick.Add(period))
						}
						firstTick <- tick
						select { // a call waiting on a dead link
						case <-release:
						case <-ctx.Done():
							return ctx.Err()
						}
						if tc.err != nil {
							return tc.err
						}
					}
					select {
					case got <- tick:
					case <-ctx.Done():
					}
					return nil
				}})
			first := testutil.Receive(t, firstTick, 30*time.Second, "the first tick's call")
			skipped := first.Add(period)
			testutil.EventuallyTrue(t, 30*time.Second, "a warning that the tick after the first was skipped", func() bool {
				return strings.Contains(logs.String(), "periodic tick skipped")
			})
			close(release)
			if tc.err == nil {
				if a := testutil.Receive(t, got, 30*time.Second, "the first tick, its call released"); !a.Equal(first) {
					t.Fatalf("enqueued the tick of %v first, want the one whose call succeeded, %v", a, first)
				}
				if a := testutil.Receive(t, got, 30*time.Second, "a tick after the skipped one"); !a.After(skipped) {
					t.Fatalf("enqueued the tick of %v after the late %v; want the skipped tick of %v to stay skipped", a, first, skipped)
				}
				return
			}
			if a := testutil.Receive(t, got, 30*time.Second, "the skipped tick, its predecessor's call failed"); !a.Equal(skipped) {
				t.Fatalf("enqueued the tick of %v; want the skipped tick of %v, whose predecessor's call failed", a, skipped)
			}
			// The failed call's error is a read timeout: its write may
			// land yet.
			if l := logs.String(); !strings.Contains(l, "so this one is given up (it may still run") || strings.Contains(l, "so this one is dropped") {
				t.Fatalf("the tick whose read timed out is not logged as given up, still able to run:\n%s", l)
			}
		})
	}
}

// pausing is the Next of a schedule that ticks every every, until
// pauseAfter: then its ticks after the one given are an hour apart. It
// is safe for concurrent use.
type pausing struct {
	every time.Duration
	mu    sync.Mutex
	from  time.Time // zero until pauseAfter
}

// pauseAfter makes the schedule's tick after tick an hour later.
func (p *pausing) pauseAfter(tick time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.from = tick
}

func (p *pausing) next(t time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.from.IsZero() || t.Before(p.from) {
		return every(p.every)(t)
	}
	return p.from.Add((t.Sub(p.from)/time.Hour + 1) * time.Hour)
}

// replyLost is the error of an enqueue whose reply was lost, err: its job
// may be stored all the same (store.MayBeStored), as a store says of it.
type replyLost struct{ error }

func (replyLost) MayBeStored() bool { return true }

func (e replyLost) Unwrap() error { return e.error }

// TestRunReturnsWhenTwoFiresOfOneScheduleEndAfterIt: RunPeriodic returns
// once its context ends though two fires of one schedule end after its
// loop did (a tick dropped as the next one came due, still logging, and
// the next tick's call, cut by the context): each sent its end on a
// channel that holds one a schedule, and the second waited for ever, and
// RunPeriodic with it.
func TestRunReturnsWhenTwoFiresOfOneScheduleEndAfterIt(t *testing.T) {
	const period = 100 * time.Millisecond
	logging := make(chan struct{}) // closed as the dropped tick's line is logged
	release := make(chan struct{}) // lets that line go
	hung := make(chan struct{})    // closed as the next tick's call begins
	var once, hangOnce sync.Once
	var first time.Time // the first tick's, set by Enqueue's first call, read by its calls only
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunPeriodic(ctx, memstore.New(nil), PeriodicConfig{
			Jobs: []Periodic{{Name: "every", Spec: "@every 100ms", Queue: "q", Kind: "k", Job: tickJob("q"), Next: every(period)}},
			Now:  time.Now,
			Logger: slog.New(blockingHandler{match: "so this one is dropped", at: func() {
				once.Do(func() { close(logging) })
				<-release
			}}),
			Enqueue: func(ctx context.Context, jobs []*store.NewJob) error {
				tick := jobs[0].RunAt
				if first.IsZero() {
					first = tick
				}
				if tick.Equal(first) {
					return errors.New("store down") // the first tick fails until its next is due
				}
				hangOnce.Do(func() { close(hung) })
				<-ctx.Done()
				return ctx.Err()
			}})
	}()
	testutil.Receive(t, logging, 30*time.Second, "the first tick dropped")
	testutil.Receive(t, hung, 30*time.Second, "the next tick's call")
	cancel()
	close(release)
	select {
	case <-done:
	case <-time.After(testutil.Wait):
		t.Fatal("RunPeriodic did not return after its context ended")
	}
}

// blockingHandler is a slog handler that calls at for each record whose
// message contains match, and drops every record.
type blockingHandler struct {
	match string
	at    func()
}

func (h blockingHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h blockingHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.match) {
		h.at()
	}
	return nil
}

func (h blockingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }

func (h blockingHandler) WithGroup(string) slog.Handler { return h }
