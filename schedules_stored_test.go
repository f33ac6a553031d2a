package hopper_test

import (
	"context"
	"errors"
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
			infos, err := ins.Schedules(ctx)
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
		every := func(name string, d time.Duration) hopper.PeriodicJob {
			return hopper.PeriodicJob{Name: name, Schedule: hopper.Every(d), Args: Tick{Name: name}}
		}
		// marker puts a new schedule and waits for its first tick: every
		// change stored before it is in force then.
		markers := 0
		marker := func() string {
			markers++
			name := "marker" + string(rune('a'+markers))
			if err := ins.SetSchedule(ctx, every(name, 20*time.Millisecond), false); err != nil {
				t.Fatal(err)
			}
			testutil.EventuallyTrue(t, 10*time.Second, name+" ticked", func() bool { return log.count(name) > 0 })
			return name
		}

		if err := ins.SetSchedule(ctx, every("job", 30*time.Millisecond), false); err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, 10*time.Second, "the stored schedule ticked twice", func() bool { return log.count("job") >= 2 })
		list, err := ins.StoredSchedules(ctx)
		if err != nil || len(list) != 1 || list[0].Name != "job" || list[0].Spec != "@every 30ms" || list[0].Job.Kind != (Tick{}).Kind() {
			t.Fatalf("StoredSchedules = %+v, %v; want job, every 30ms", list, err)
		}

		// Paused: no tick once the worker has seen it.
		if err := ins.PauseSchedule(ctx, "default", "job", true); err != nil {
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
		if err := ins.PauseSchedule(ctx, "default", "job", false); err != nil {
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
		if err := ins.PauseSchedule(ctx, "default", "nope", true); !errors.Is(err, hopper.ErrScheduleNotFound) {
			t.Fatalf("PauseSchedule of no schedule: %v, want ErrScheduleNotFound", err)
		}
		if err := ins.SetScheduleSpec(ctx, "default", m, "every tuesday"); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Fatalf("SetScheduleSpec with a bad spec: %v, want ErrInvalidConfig", err)
		}
		bad := every("bad", time.Second)
		bad.Opts = &hopper.EnqueueOpts{Delay: time.Second}
		if err := ins.SetSchedule(ctx, bad, false); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Fatalf("SetSchedule with a Delay: %v, want ErrInvalidConfig", err)
		}
	})
}
