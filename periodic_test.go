package hopper_test

import (
	"context"
	"errors"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func TestEveryIsAlignedToTheEpoch(t *testing.T) {
	spec := hopper.Every(time.Minute)
	if spec != "@every 1m0s" {
		t.Errorf("Every(1m) = %q", spec)
	}
	at := time.Date(2026, 11, 22, 12, 0, 30, 0, time.UTC)
	if got, err := hopper.NextTick(spec, at); err != nil || !got.Equal(time.Date(2026, 11, 22, 12, 1, 0, 0, time.UTC)) {
		t.Errorf("NextTick(%q, 12:00:30) = %v, %v; want 12:01:00", spec, got, err)
	}
	if got, _ := hopper.NextTick(spec, time.Date(2026, 11, 22, 12, 1, 0, 0, time.UTC)); !got.Equal(time.Date(2026, 11, 22, 12, 2, 0, 0, time.UTC)) {
		t.Errorf("NextTick of a tick = %v, want the following tick 12:02:00", got)
	}
}

func TestNextTick(t *testing.T) {
	at := time.Date(2026, 11, 22, 12, 0, 30, 0, time.UTC) // a Sunday
	paris, _ := time.LoadLocation("Europe/Paris")
	cases := []struct {
		spec string
		want time.Time
	}{
		{"*/5 * * * *", time.Date(2026, 11, 22, 12, 5, 0, 0, time.UTC)},
		{"*/10 * * * * *", time.Date(2026, 11, 22, 12, 0, 40, 0, time.UTC)},
		{"@hourly", time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC)},
		{"0 9 * * MON-FRI", time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)},
		{"CRON_TZ=Europe/Paris 0 9 * * *", time.Date(2026, 11, 23, 9, 0, 0, 0, paris)},
		{"@every 90s", time.Date(2026, 11, 22, 12, 1, 30, 0, time.UTC)},
		{hopper.Every(90 * time.Second), time.Date(2026, 11, 22, 12, 1, 30, 0, time.UTC)},
	}
	for _, tc := range cases {
		got, err := hopper.NextTick(tc.spec, at)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("NextTick(%q) = %v, %v; want %v", tc.spec, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "* * *", "61 * * * *", "@every 0s", "@every soon", "@fortnightly", "CRON_TZ=Mars/Olympus 0 9 * * *"} {
		if _, err := hopper.NextTick(bad, at); err == nil {
			t.Errorf("NextTick(%q) accepted a bad spec", bad)
		}
	}
}

type Tick struct{ Name string }

func (Tick) Kind() string { return "tick" }

// Five workers run the same every-100ms schedule: every tick is enqueued
// exactly once, with no tick skipped.
func TestPeriodicTickEnqueuedOnceAcrossWorkers(t *testing.T) {
	t.Parallel()
	s := newStore()
	started := time.Now()
	var mu sync.Mutex
	ran := map[time.Time]int{}
	cfg := func() *hopper.WorkerConfig {
		c := testConfig("periodic")
		c.Scheduler = &hopper.SchedulerConfig{Schedules: []hopper.Schedule{{
			Name: "heartbeat",
			Spec: hopper.Every(100 * time.Millisecond),
			Args: Tick{Name: "beat"},
			Opts: &hopper.ScheduleOpts{Queue: "periodic"},
		}}}
		return c
	}
	var stops []func()
	for range 5 {
		w := hopper.NewWorker(s, cfg())
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Tick]) error {
			mu.Lock()
			ran[j.RunAt]++
			mu.Unlock()
			return nil
		})
		stops = append(stops, startWorker(t, w))
	}
	testutil.EventuallyTrue(t, 20*time.Second, "20 ticks run", func() bool { mu.Lock(); defer mu.Unlock(); return len(ran) >= 20 })
	for _, stop := range stops {
		stop()
	}
	mu.Lock()
	defer mu.Unlock()
	var ticks []time.Time
	for tick, n := range ran {
		if n != 1 {
			t.Errorf("tick %v ran %d times, want once", tick, n)
		}
		if tick.Sub(tick.Truncate(100*time.Millisecond)) != 0 {
			t.Errorf("tick %v is not on the 100ms grid", tick)
		}
		ticks = append(ticks, tick)
	}
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].Before(ticks[j]) })
	for i := 1; i < len(ticks); i++ {
		if d := ticks[i].Sub(ticks[i-1]); d != 100*time.Millisecond {
			t.Errorf("ticks %v and %v are %v apart: a tick was skipped", ticks[i-1], ticks[i], d)
		}
	}
	infos, err := s.ListSchedules(context.Background())
	if err != nil || len(infos) != 1 || infos[0].Name != "heartbeat" || infos[0].Queue != "periodic" || infos[0].Spec != "@every 100ms" {
		t.Fatalf("Schedules() = %+v, %v; want the heartbeat schedule registered", infos, err)
	}
	if last := ticks[len(ticks)-1]; infos[0].LastTick.Before(last) {
		t.Errorf("LastTick %v is before the last tick run %v", infos[0].LastTick, last)
	}
	// Seen by a running scheduler since the test started (the dashboard
	// marks a schedule orphaned when no live process refreshes this).
	if seen := infos[0].SeenAt; seen.Before(started) || seen.After(time.Now()) {
		t.Errorf("SeenAt %v, want a time since the schedulers started at %v", seen, started)
	}
}

func TestPeriodicCatchUp(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	client := hopper.NewClient(s, nil)
	hourly := hopper.Every(time.Hour)
	// A tick recorded three hours ago: the ticks since were missed.
	last := time.Now().Truncate(time.Hour).Add(-3 * time.Hour)
	// The same for "marker", in a queue of its own, which always catches
	// up: a scheduler catches its schedules up in order, so once marker's
	// tick is enqueued, report's would have been.
	for _, j := range []*store.NewJob{
		{ID: "old", Queue: "default", Kind: "tick", Args: []byte{0x80}, Schedule: "report", Tick: last, RunAt: last},
		{ID: "old", Queue: "marker", Kind: "tick", Args: []byte{0x80}, Schedule: "marker", Tick: last, RunAt: last},
	} {
		if _, err := s.Enqueue(ctx, []*store.NewJob{j}); err != nil {
			t.Fatal(err)
		}
		if _, err := hopper.NewInspector(s).DeleteJobs(ctx, j.Queue, hopper.StateReady, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, catchUp := range []bool{false, true} {
		runCtx, cancel := context.WithCancel(ctx)
		schedules := []hopper.Schedule{{Name: "report", Spec: hourly, Args: Tick{}, CatchUp: catchUp}}
		if !catchUp {
			schedules = append(schedules, hopper.Schedule{Name: "marker", Spec: hourly, Args: Tick{},
				Opts: &hopper.ScheduleOpts{Queue: "marker"}, CatchUp: true})
		}
		sch := hopper.NewScheduler(s, &hopper.SchedulerConfig{
			Queues: []string{"default"}, Client: client, Schedules: schedules,
		})
		done := make(chan error, 1)
		go func() { done <- sch.Run(runCtx) }()
		if catchUp {
			var page hopper.JobPage
			testutil.EventuallyTrue(t, 5*time.Second, "the missed tick enqueued", func() bool {
				page, _ = hopper.NewInspector(s).ListJobs(ctx, hopper.ListJobsOpts{Queue: "default", State: hopper.StateReady})
				return len(page.Jobs) == 1
			})
			if want := time.Now().Truncate(time.Hour); !page.Jobs[0].RunAt.Equal(want) {
				t.Errorf("caught-up job runs at %v, want the latest missed tick %v", page.Jobs[0].RunAt, want)
			}
		} else {
			testutil.EventuallyTrue(t, 5*time.Second, "the marker schedule's missed tick enqueued", func() bool {
				st, _ := hopper.NewInspector(s).GetQueueStats(ctx, "marker")
				return st.Counts.Ready == 1
			})
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if !catchUp {
			if st, _ := hopper.NewInspector(s).GetQueueStats(ctx, "default"); st.Counts.Total() != 0 {
				t.Errorf("without CatchUp a missed tick was enqueued: %+v", st.Counts)
			}
		}
	}
}

func TestPeriodicConfigErrors(t *testing.T) {
	s := newStore()
	good := hopper.Schedule{Name: "x", Spec: hopper.Every(time.Second), Args: Tick{}}
	cases := map[string][]hopper.Schedule{
		"no name":     {{Spec: hopper.Every(time.Second), Args: Tick{}}},
		"space":       {{Name: "a b", Spec: hopper.Every(time.Second), Args: Tick{}}},
		"no spec":     {{Name: "x", Args: Tick{}}},
		"bad spec":    {{Name: "x", Spec: "every tuesday", Args: Tick{}}},
		"no args":     {{Name: "x", Spec: hopper.Every(time.Second)}},
		"same name":   {good, good},
		"bad in opts": {{Name: "y", Spec: hopper.Every(time.Second), Args: Tick{}, Opts: &hopper.ScheduleOpts{MaxRetries: -5}}},
	}
	for name, jobs := range cases {
		sc := &hopper.SchedulerConfig{Schedules: jobs}
		if err := panicOf(func() { hopper.NewScheduler(s, sc) }); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Errorf("%s: NewScheduler panicked with %v, want ErrInvalidConfig", name, err)
		}
		wc := &hopper.WorkerConfig{Scheduler: sc}
		if err := wc.Validate(); !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), "Schedules") {
			t.Errorf("%s: WorkerConfig.Validate = %v, want ErrInvalidConfig naming the schedule", name, err)
		}
		if err := panicOf(func() { hopper.NewWorker(s, wc) }); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Errorf("%s: NewWorker panicked with %v, want ErrInvalidConfig", name, err)
		}
	}
}
