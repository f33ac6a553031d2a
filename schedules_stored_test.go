package hopper_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
)

// tickLog counts the handled ticks per schedule name.
type tickLog struct {
	mu sync.Mutex
	n  map[string]int
}

func (l *tickLog) add(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n[name]++
}

func (l *tickLog) count(name string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n[name]
}

// Stored schedules on both stores: a running worker starts a schedule
// put while it runs, stops it when paused, follows a new spec and drops a
// deleted one. A marker schedule put after each change shows the worker
// reloaded: once it ticks, the change before it is in force.
func TestStoredSchedules(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		ins := hopper.NewInspector(st)
		cfg := testConfig("default")
		cfg.Scheduler = &hopper.SchedulerConfig{StoredSchedulesPoll: 10 * time.Millisecond}
		w := hopper.NewWorker(st, cfg)
		log := &tickLog{n: map[string]int{}}
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Tick]) error {
			log.add(j.Args.Name)
			return nil
		})
		stop := startWorker(t, w)
		defer stop()
		// lastTick is the latest tick of schedule name the store recorded
		// (in the same step as its enqueue).
		lastTick := func(name string) time.Time {
			infos, err := ins.ListSchedules(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range infos {
				if in.Name == name {
					return in.LastTick
				}
			}
			return time.Time{}
		}
		every := func(name string, d time.Duration) hopper.Schedule {
			return hopper.Schedule{Name: name, Spec: hopper.Every(d), Args: Tick{Name: name}}
		}
		// marker puts a new schedule and waits for its first tick: every
		// change stored before it is in force then.
		markers := 0
		marker := func() string {
			markers++
			name := "marker" + string(rune('a'+markers))
			if err := ins.SetSchedule(ctx, every(name, 20*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			testutil.EventuallyTrue(t, 10*time.Second, name+" ticked", func() bool { return log.count(name) > 0 })
			return name
		}

		if err := ins.SetSchedule(ctx, every("job", 30*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, 10*time.Second, "the stored schedule ticked twice", func() bool { return log.count("job") >= 2 })
		list, err := ins.ListSchedules(ctx)
		if err != nil || len(list) != 1 || list[0].Name != "job" || list[0].Spec != "@every 30ms" || list[0].Kind != (Tick{}).Kind() || !list[0].Stored || list[0].SeenAt.IsZero() {
			t.Fatalf("ListSchedules = %+v, %v; want job, every 30ms, stored and registered by the running scheduler", list, err)
		}

		// Paused: no tick once the worker has seen it.
		if err := ins.PauseSchedule(ctx, "default", "job"); err != nil {
			t.Fatal(err)
		}
		m := marker()
		paused, pausedAt := log.count("job"), lastTick("job")
		n := log.count(m)
		testutil.EventuallyTrue(t, 10*time.Second, "the marker ticked 4 more times", func() bool { return log.count(m) >= n+4 })
		if got := lastTick("job"); !got.Equal(pausedAt) {
			t.Fatalf("a paused schedule of 30ms ticked again (last tick %v, was %v) while a 20ms one ticked 4 times", got, pausedAt)
		}

		// Resumed with a new spec, then deleted.
		if err := ins.SetScheduleSpec(ctx, "default", "job", "@every 40ms"); err != nil {
			t.Fatal(err)
		}
		if err := ins.ResumeSchedule(ctx, "default", "job"); err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, 10*time.Second, "the resumed schedule ticked", func() bool { return log.count("job") > paused })
		if err := ins.DeleteSchedule(ctx, "default", "job"); err != nil {
			t.Fatal(err)
		}
		m = marker()
		goneAt := lastTick("job")
		n = log.count(m)
		testutil.EventuallyTrue(t, 10*time.Second, "the marker ticked 4 more times", func() bool { return log.count(m) >= n+4 })
		if got := lastTick("job"); !got.Equal(goneAt) {
			t.Fatalf("a deleted schedule ticked again (last tick %v, was %v) after the worker saw it gone", got, goneAt)
		}

		if err := ins.DeleteSchedule(ctx, "default", "job"); !errors.Is(err, hopper.ErrScheduleNotFound) {
			t.Fatalf("DeleteSchedule of a schedule gone: %v, want ErrScheduleNotFound", err)
		}
		if err := ins.PauseSchedule(ctx, "default", "nope"); !errors.Is(err, hopper.ErrScheduleNotFound) {
			t.Fatalf("PauseSchedule of no schedule: %v, want ErrScheduleNotFound", err)
		}
		if err := ins.SetScheduleSpec(ctx, "default", m, "every tuesday"); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Fatalf("SetScheduleSpec with a bad spec: %v, want ErrInvalidConfig", err)
		} else if msg := err.Error(); strings.Count(msg, "hopper:") != 1 || !strings.Contains(msg, `"every tuesday"`) || !strings.Contains(msg, m) {
			t.Fatalf("SetScheduleSpec with a bad spec: %q, want \"hopper:\" once, the schedule and the spec named", msg)
		}
		bad := every("bad", time.Second)
		bad.Opts = &hopper.ScheduleOpts{MaxRetries: -5}
		if err := ins.SetSchedule(ctx, bad); !errors.Is(err, hopper.ErrInvalidJob) {
			t.Fatalf("SetSchedule with MaxRetries -5: %v, want ErrInvalidJob", err)
		}
		bad = every("bad", time.Second)
		bad.Spec = "every tuesday"
		if err := ins.SetSchedule(ctx, bad); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Fatalf("SetSchedule with a bad spec: %v, want ErrInvalidConfig", err)
		}
	})
}

// TestStoredScheduleUniqueAndReplace: a stored schedule may make its
// ticks' jobs unique (a tick whose job still waits adds none), and
// setting a schedule again keeps whether it was paused.
func TestStoredScheduleUniqueAndReplace(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		ins := hopper.NewInspector(st)
		every := hopper.Every(20 * time.Millisecond)
		unique := hopper.Schedule{Name: "u", Spec: every, Args: Tick{Name: "u"}, Opts: &hopper.ScheduleOpts{Queue: "uq", Unique: &hopper.UniqueOpts{}}}
		if err := ins.SetSchedule(ctx, unique); err != nil {
			t.Fatal(err)
		}
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: "marker", Spec: every, Args: Tick{Name: "m"}, Opts: &hopper.ScheduleOpts{Queue: "mq"}}); err != nil {
			t.Fatal(err)
		}
		sch := hopper.NewScheduler(st, &hopper.SchedulerConfig{Queues: []string{"uq", "mq"}, StoredSchedulesPoll: 10 * time.Millisecond})
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- sch.Run(runCtx) }()
		count := func(q string) int {
			s, err := ins.GetQueueStats(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return int(s.Counts.Pending + s.Counts.Ready)
		}
		testutil.EventuallyTrue(t, 10*time.Second, "the marker ticked 4 times", func() bool { return count("mq") >= 4 })
		stop()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if n := count("uq"); n != 1 {
			t.Fatalf("%d jobs of the unique schedule waiting after 4 ticks of its twin, want 1: a tick whose job still waits adds none", n)
		}

		if err := ins.PauseSchedule(ctx, "uq", "u"); err != nil {
			t.Fatal(err)
		}
		unique.Spec = hopper.Every(time.Hour)
		if err := ins.SetSchedule(ctx, unique); err != nil {
			t.Fatal(err)
		}
		list, err := ins.ListSchedules(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list {
			if r.Name == "u" && (!r.Paused || r.Spec != unique.Spec) {
				t.Fatalf("after SetSchedule of a paused schedule: %+v, want it still paused with the new spec", r)
			}
		}
	})
}
