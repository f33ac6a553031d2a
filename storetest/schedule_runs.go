package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// runsFunc is a ScheduleRuns case: the store and its store.ScheduleRuns.
type runsFunc = func(t *testing.T, s store.Store, sr store.ScheduleRuns)

func scheduleRunsCases() []testCase[runsFunc] {
	return []testCase[runsFunc]{
		{name: "RecordListCapped", fn: testRunsCapped},
		{name: "Invalid", fn: testRunsInvalid},
		{name: "Unregister", fn: testRunsUnregister},
	}
}

func listRuns(t *testing.T, sr store.ScheduleRuns, q, name string) []store.ScheduleRun {
	t.Helper()
	runs, err := sr.ListScheduleRuns(t.Context(), q, name)
	if err != nil {
		t.Fatalf("ListScheduleRuns: %v", err)
	}
	return runs
}

// testRunsCapped: runs come back latest first, at most MaxScheduleRuns,
// per schedule, with what was recorded.
func testRunsCapped(t *testing.T, _ store.Store, sr store.ScheduleRuns) {
	q := newQueue(t)
	if runs := listRuns(t, sr, q, "nightly"); len(runs) != 0 {
		t.Fatalf("a schedule with no runs lists %v", runs)
	}
	base := time.UnixMilli(time.Now().UnixMilli())
	total := store.MaxScheduleRuns + 3
	for i := range total {
		run := store.ScheduleRun{At: base.Add(time.Duration(i) * time.Minute), Queue: q, JobID: fmt.Sprintf("job-%02d", i), Manual: i == total-1}
		if err := sr.RecordScheduleRun(t.Context(), q, "nightly", run); err != nil {
			t.Fatal(err)
		}
	}
	if err := sr.RecordScheduleRun(t.Context(), q, "hourly", store.ScheduleRun{At: base, Queue: q, JobID: "other"}); err != nil {
		t.Fatal(err)
	}
	runs := listRuns(t, sr, q, "nightly")
	if len(runs) != store.MaxScheduleRuns {
		t.Fatalf("listed %d runs, want the latest %d", len(runs), store.MaxScheduleRuns)
	}
	for k, r := range runs {
		i := total - 1 - k
		want := store.ScheduleRun{At: base.Add(time.Duration(i) * time.Minute), Queue: q, JobID: fmt.Sprintf("job-%02d", i), Manual: i == total-1}
		if !r.At.Equal(want.At) || r.Queue != want.Queue || r.JobID != want.JobID || r.Manual != want.Manual {
			t.Fatalf("run %d = %+v, want %+v", k, r, want)
		}
	}
	if other := listRuns(t, sr, q, "hourly"); len(other) != 1 || other[0].JobID != "other" {
		t.Fatalf("the other schedule's runs: %+v", other)
	}
}

// testRunsInvalid: a bad queue, name, job ID or time is refused.
func testRunsInvalid(t *testing.T, _ store.Store, sr store.ScheduleRuns) {
	q := newQueue(t)
	ok := store.ScheduleRun{At: time.Now(), Queue: q, JobID: "j"}
	for _, tc := range []struct {
		q, name string
		run     store.ScheduleRun
	}{
		{"", "n", ok}, {q, "", ok},
		{q, "n", store.ScheduleRun{At: time.Now(), Queue: q}},
		{q, "n", store.ScheduleRun{Queue: q, JobID: "j"}},
		{q, "n", store.ScheduleRun{At: time.Now(), JobID: "j"}},
	} {
		err := sr.RecordScheduleRun(t.Context(), tc.q, tc.name, tc.run)
		if !errors.Is(err, store.ErrInvalidConfig) && !errors.Is(err, store.ErrInvalidQueue) {
			t.Errorf("RecordScheduleRun(%q, %q, %+v) = %v, want an invalid-input error", tc.q, tc.name, tc.run, err)
		}
	}
}

// testRunsUnregister: a registered schedule is forgotten with its runs;
// another stays; forgetting one not registered reports false.
func testRunsUnregister(t *testing.T, s store.Store, sr store.ScheduleRuns) {
	q := newQueue(t)
	now := time.Now()
	reg := []store.ScheduleInfo{{Name: "gone", Spec: "@every 1m", Queue: q, Kind: "k", Next: now, SeenAt: now.Add(-time.Hour)},
		{Name: "live", Spec: "@every 1m", Queue: q, Kind: "k", Next: now, SeenAt: now}}
	if err := s.RegisterSchedules(t.Context(), reg); err != nil {
		t.Fatal(err)
	}
	if err := sr.RecordScheduleRun(t.Context(), q, "gone", store.ScheduleRun{At: now, Queue: q, JobID: "j1"}); err != nil {
		t.Fatal(err)
	}
	was, err := sr.UnregisterSchedule(t.Context(), q, "gone")
	if err != nil || !was {
		t.Fatalf("UnregisterSchedule = %v, %v; want true", was, err)
	}
	list, err := s.ListSchedules(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, si := range list {
		if si.Queue == q {
			names = append(names, si.Name)
		}
	}
	if len(names) != 1 || names[0] != "live" {
		t.Fatalf("registered after forgetting gone: %v, want [live]", names)
	}
	if runs := listRuns(t, sr, q, "gone"); len(runs) != 0 {
		t.Fatalf("the forgotten schedule still lists runs %+v", runs)
	}
	if was, err := sr.UnregisterSchedule(t.Context(), q, "gone"); err != nil || was {
		t.Fatalf("forgetting it again = %v, %v; want false", was, err)
	}
}
