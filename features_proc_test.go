package hopper_test

// Issue 8's features on Redis with separate OS processes: the children
// (proc_helpers_test.go) are this test binary re-executed, each with its own
// Redis connections, and they report what their handlers saw.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/testutil"
)

// Five processes running the same two every-second schedules enqueue and
// run each tick of a 10-second window exactly once: 10 jobs per schedule.
func TestProcPeriodicExactlyOnce(t *testing.T) {
	p := newProcSetup(t)
	p.start(5, childSpec{Role: rolePeriodic, Queue: "ticks", Concurrency: 4})
	// The window starts on the first whole second at least half a second
	// after every process is running its schedules, and holds the ticks
	// w0 .. w0+9s.
	w0 := time.Now().Add(1500 * time.Millisecond).Truncate(time.Second)
	w1 := w0.Add(10 * time.Second)
	starts := func(e proctest.Event) bool { return e.Ev == "start" }
	inWindow := func(sched string) int {
		ticks := map[time.Time]bool{}
		for _, e := range p.Filter(starts) {
			if e.Sched == sched && !e.RunAt.Before(w0) && e.RunAt.Before(w1) {
				ticks[e.RunAt] = true
			}
		}
		return len(ticks)
	}
	// Once the first tick after the window ran, every tick in it was
	// enqueued (and any duplicate with it); give their jobs a moment to be
	// reported, then count.
	p.EventuallyTrue(time.Until(w1)+20*time.Second, "both schedules past the window", func() bool {
		past := map[string]bool{}
		for _, e := range p.Filter(starts) {
			if !e.RunAt.Before(w1) {
				past[e.Sched] = true
			}
		}
		return past["a"] && past["b"]
	})
	testutil.Poll(5*time.Second, func() bool { return inWindow("a") >= 10 && inWindow("b") >= 10 })
	runs := map[string]map[time.Time]int{"a": {}, "b": {}}
	pids := map[int]bool{}
	for _, e := range p.Filter(starts) {
		if e.RunAt.Before(w0) || !e.RunAt.Before(w1) {
			continue
		}
		runs[e.Sched][e.RunAt]++
		pids[e.PID] = true
		if e.Attempt != 1 {
			t.Errorf("schedule %s tick %s: attempt %d, want 1", e.Sched, e.RunAt.Format(time.StampMilli), e.Attempt)
		}
	}
	for _, sched := range []string{"a", "b"} {
		ticks := runs[sched]
		for tick, n := range ticks {
			if n != 1 {
				t.Errorf("schedule %s tick %s ran %d times across 5 processes, want once", sched, tick.Format(time.StampMilli), n)
			}
		}
		if len(ticks) != 10 {
			got := slices.SortedFunc(maps.Keys(ticks), time.Time.Compare)
			t.Errorf("schedule %s: %d ticks in the 10 s window from %s ran, want 10: %v", sched, len(ticks), w0.Format(time.StampMilli), got)
		}
	}
	t.Logf("window ticks handled by %d of the 5 processes", len(pids))
	st, err := hopper.NewInspector(p.store).GetQueueStats(t.Context(), "ticks")
	if err != nil {
		t.Fatal(err)
	}
	if c := st.Counts; c.Retry+c.Garbage != 0 {
		t.Errorf("periodic jobs failed: %+v", c)
	}
}

// 100 concurrent enqueues of one unique job from 4 processes create it once
// and tell the 99 others which job holds the key; once the job is acked, and
// once it died, it can be enqueued again.
func TestProcUniqueAcrossProcesses(t *testing.T) {
	p := newProcSetup(t)
	enqueuers := p.start(4, childSpec{Role: roleEnqueuer, Queue: "uniq", Goroutines: 25})
	// The parent runs the job and decides how it ends.
	w := hopper.NewWorker(p.store, testConfig("uniq"))
	outcome := make(chan error, 1)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error { return <-outcome })
	startWorker(t, w)

	round := func(r int) string {
		t.Helper()
		for _, c := range enqueuers {
			c.Send(fmt.Sprintf("go %d", r))
		}
		inRound := func(e proctest.Event) bool { return e.Ev == "enqueued" && e.Round == r }
		p.EventuallyTrue(30*time.Second, fmt.Sprintf("round %d's 100 enqueues", r), func() bool { return p.Count(inRound) == 100 })
		var created []proctest.Event
		ids := map[string]int{}
		for _, e := range p.Filter(inRound) {
			ids[e.Job]++
			if !e.Dup {
				created = append(created, e)
			}
		}
		if len(created) != 1 || len(ids) != 1 {
			t.Fatalf("round %d: %d of 100 enqueues created a job (want 1); IDs reported and how often: %v", r, len(created), ids)
		}
		id := created[0].Job
		st, err := hopper.NewInspector(p.store).GetQueueStats(t.Context(), "uniq")
		if err != nil {
			t.Fatal(err)
		}
		if c := st.Counts; c.Pending+c.Ready+c.Unack+c.Retry != 1 {
			t.Fatalf("round %d: queue holds %+v live jobs, want 1", r, c)
		}
		return id
	}

	first := round(1)
	outcome <- nil // acked
	p.EventuallyTrue(10*time.Second, "first job acked", func() bool { return getJob(t, p.store, "uniq", first) == nil })
	second := round(2)
	if second == first {
		t.Fatal("after the job was acked, the unique key still named it")
	}
	outcome <- hopper.Permanent(errors.New("dead"))
	p.EventuallyTrue(10*time.Second, "second job dead", func() bool {
		rec := getJob(t, p.store, "uniq", second)
		return rec != nil && rec.State == hopper.StateGarbage
	})
	third := round(3)
	if third == second || third == first {
		t.Fatal("after the job died, the unique key still named it")
	}
	outcome <- nil
}

// A job running in one process, cancelled from another, sees its context
// end within a second, ends in garbage marked cancelled, and never runs
// again.
func TestProcCancelFromAnotherProcess(t *testing.T) {
	p := newProcSetup(t)
	p.start(1, childSpec{Role: roleTarget, Queue: "cancel", Concurrency: 4})
	canceller := p.start(1, childSpec{Role: roleCancel, Queue: "cancel"})[0]
	ctx := t.Context()
	info, err := hopper.Enqueue(ctx, hopper.NewClient(p.store, nil), Echo{}, &hopper.EnqueueOpts{Queue: "cancel"})
	if err != nil {
		t.Fatal(err)
	}
	of := func(ev string) func(proctest.Event) bool {
		return func(e proctest.Event) bool { return e.Ev == ev && e.Job == info.ID }
	}
	p.EventuallyTrue(10*time.Second, "job started", func() bool { return p.Count(of("start")) == 1 })
	canceller.Send("cancel " + info.ID)
	// The canceller reports "cancelled" once CancelJob returned and the
	// target "end" once its lease renewal heard of it: two processes, two
	// pipes, no order between the reports. Both are awaited.
	p.EventuallyTrue(10*time.Second, "handler's context ended and the canceller reported", func() bool {
		return p.Count(of("end")) == 1 && p.Count(of("cancelled")) >= 1
	})
	cancelled := p.Filter(of("cancelled"))
	if len(cancelled) != 1 || cancelled[0].State != hopper.StateUnack {
		t.Fatalf("cancel events %+v; want one that found the job running", cancelled)
	}
	end := p.Filter(of("end"))[0]
	took := end.At.Sub(cancelled[0].At)
	t.Logf("handler in pid %d saw its context end (%s) %v after pid %d called Cancel", end.PID, end.Err, took, cancelled[0].PID)
	if took > time.Second {
		t.Errorf("handler's context ended %v after Cancel from another process, want within 1s", took)
	}
	if end.Err != hopper.ErrCancelled.Error() {
		t.Errorf("handler's context cause %q, want %q", end.Err, hopper.ErrCancelled)
	}
	var rec *hopper.JobRecord
	p.EventuallyTrue(10*time.Second, "job in garbage", func() bool {
		rec = getJob(t, p.store, "cancel", info.ID)
		return rec != nil && rec.State == hopper.StateGarbage
	})
	if !rec.Cancelled || rec.Attempt != 1 {
		t.Errorf("cancelled job: Cancelled=%v, attempt %d; want cancelled after one attempt", rec.Cancelled, rec.Attempt)
	}
	if n := p.Count(of("start")); n != 1 {
		t.Errorf("cancelled job started %d times, want once", n)
	}
}

// A global cap of 3 running jobs holds across 4 processes of 5 slots each:
// the handlers count themselves in a Redis counter and never see more than
// 3, and with a backlog they do see 3.
func TestProcGlobalConcurrencyLimit(t *testing.T) {
	p := newProcSetup(t)
	ctx := t.Context()
	if err := hopper.NewInspector(p.store).SetQueueConfig(ctx, "capped", hopper.QueueConfig{MaxRunning: 3}); err != nil {
		t.Fatal(err)
	}
	p.start(4, childSpec{Role: roleCapped, Queue: "capped", Concurrency: 5,
		Work: 50 * time.Millisecond, Probe: "probe:{" + p.prefix + "}:running"})
	const jobs = 45
	if _, err := hopper.EnqueueMany(ctx, hopper.NewClient(p.store, nil), make([]Echo, jobs), &hopper.EnqueueOpts{Queue: "capped"}); err != nil {
		t.Fatal(err)
	}
	p.EventuallyTrue(60*time.Second, "all jobs handled", func() bool { return p.Count(proctest.Is("end")) == jobs })
	peak := int64(0)
	pids := map[int]int{}
	for _, e := range p.Filter(proctest.Is("start")) {
		peak = max(peak, e.Running)
		pids[e.PID]++
	}
	t.Logf("peak %d handlers running across the processes; jobs per process %v", peak, pids)
	if peak > 3 {
		t.Errorf("%d handlers ran at once across 4 processes, cap is 3", peak)
	}
	if peak < 3 {
		t.Errorf("at most %d handlers ran at once with a backlog of %d, want the cap of 3 used", peak, jobs)
	}
	if n := p.Count(proctest.Is("start")); n != jobs {
		t.Errorf("%d handler starts for %d jobs, want one each", n, jobs)
	}
}
