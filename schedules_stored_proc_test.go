package hopper_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
)

// TestProcStoredSchedules: three worker processes run the stored
// schedules. A schedule stored while they run is enqueued once per tick,
// with no tick missed; a new spec is followed; once paused, and once
// deleted, no process enqueues it any more (each process reloads on its
// own: one that missed the change would go on).
func TestProcStoredSchedules(t *testing.T) {
	p := newProcSetup(t)
	ctx := t.Context()
	ins := hopper.NewInspector(p.store)
	p.start(3, childSpec{Role: roleStored, Queue: "stored", Concurrency: 4})
	opts := &hopper.ScheduleOpts{Queue: "stored"}
	set := func(name string, d time.Duration) {
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: name, Spec: hopper.Every(d), Args: Tick{Name: name}, Opts: opts}); err != nil {
			t.Fatal(err)
		}
	}
	ticks := func(name string) []time.Time {
		var out []time.Time
		for _, e := range p.Filter(proctest.Is("start")) {
			if e.Sched == name {
				out = append(out, e.RunAt)
			}
		}
		slices.SortFunc(out, time.Time.Compare)
		return out
	}
	// checkOnce fails unless the ticks of name from from on are each
	// handled once, step apart, with none missing.
	checkOnce := func(name string, from time.Time, step time.Duration) int {
		var got []time.Time
		for _, tk := range ticks(name) {
			if !tk.Before(from) {
				got = append(got, tk)
			}
		}
		for i := 1; i < len(got); i++ {
			if d := got[i].Sub(got[i-1]); d != step {
				t.Fatalf("ticks of %s at %v then %v: %v apart, want each tick once, every %v", name, got[i-1], got[i], d, step)
			}
		}
		return len(got)
	}

	set("dyn", 200*time.Millisecond)
	p.EventuallyTrue(30*time.Second, "ten ticks of dyn", func() bool { return len(ticks("dyn")) >= 10 })
	n := checkOnce("dyn", time.Time{}, 200*time.Millisecond)
	t.Logf("%d ticks of dyn every 200ms, each handled once", n)

	if err := ins.SetScheduleSpec(ctx, "stored", "dyn", "@every 400ms"); err != nil {
		t.Fatal(err)
	}
	changed := time.Now()
	p.EventuallyTrue(30*time.Second, "five ticks of dyn every 400ms", func() bool {
		k := 0
		for _, tk := range ticks("dyn") {
			if tk.After(changed.Add(time.Second)) {
				k++
			}
		}
		return k >= 5
	})
	checkOnce("dyn", changed.Add(time.Second), 400*time.Millisecond)

	// stillAfter waits until a marker ticked 10 times (a second: 20 polls
	// of every process), and fails if dyn ticked meanwhile.
	stillAfter := func(what, marker string) {
		set(marker, 100*time.Millisecond)
		p.EventuallyTrue(30*time.Second, marker+" ticked", func() bool { return len(ticks(marker)) > 0 })
		before := len(ticks("dyn"))
		p.EventuallyTrue(30*time.Second, marker+" ticked 10 times", func() bool { return len(ticks(marker)) >= 11 })
		// A tick enqueued before the change may be handled just after it.
		if got := len(ticks("dyn")); got > before+1 {
			t.Fatalf("dyn ticked %d times after it was %s and every process had a second to see it", got-before, what)
		}
		if err := ins.DeleteSchedule(ctx, "stored", marker); err != nil {
			t.Fatal(err)
		}
	}
	if err := ins.PauseSchedule(ctx, "stored", "dyn"); err != nil {
		t.Fatal(err)
	}
	stillAfter("paused", "marker1")
	if err := ins.ResumeSchedule(ctx, "stored", "dyn"); err != nil {
		t.Fatal(err)
	}
	resumed := len(ticks("dyn"))
	p.EventuallyTrue(30*time.Second, "dyn ticks again once resumed", func() bool { return len(ticks("dyn")) > resumed+1 })
	if err := ins.DeleteSchedule(ctx, "stored", "dyn"); err != nil {
		t.Fatal(err)
	}
	stillAfter("deleted", "marker2")
	checkOnce("marker1", time.Time{}, 100*time.Millisecond)
}
