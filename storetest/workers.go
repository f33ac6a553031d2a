package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func workerCases() []engineCase {
	return []engineCase{
		{name: "HeartbeatAndRemove", fn: testWorkersHeartbeat},
		{name: "InvalidHeartbeat", fn: testWorkersInvalid},
	}
}

func heartbeat(t *testing.T, s store.Store, w store.WorkerInfo, ttl time.Duration) {
	t.Helper()
	if err := s.Heartbeat(t.Context(), w, ttl); err != nil {
		t.Fatalf("Heartbeat(%q, %v): unexpected error: %v", w.ID, ttl, err)
	}
}

func worker(t *testing.T, q string) store.WorkerInfo {
	now := time.Now().Truncate(time.Millisecond)
	return store.WorkerInfo{
		ID:          newQueue(t),
		Host:        "host-1.example",
		PID:         4242,
		Queues:      map[string]int{q: 3, q + "-low": 1},
		Concurrency: 8,
		StartedAt:   now.Add(-time.Minute),
		Processed:   1234,
		Failed:      56,
		Running: []store.RunningJob{
			{Queue: q, ID: "job-1", Kind: "email", StartedAt: now.Add(-time.Second)},
			{Queue: q, ID: "job-2", Kind: "report", StartedAt: now},
		},
	}
}

// testWorkersHeartbeat: the calls a worker makes succeed, again and again
// (what they record is for store.Admin to list: see Admin/Workers).
func testWorkersHeartbeat(t *testing.T, s store.Store) {
	w := worker(t, newQueue(t))
	heartbeat(t, s, w, long)
	w.Running = w.Running[1:]
	heartbeat(t, s, w, long)
	heartbeat(t, s, worker(t, newQueue(t)), 100*time.Millisecond)
	for range 2 {
		if err := s.RemoveWorker(t.Context(), w.ID); err != nil {
			t.Fatalf("RemoveWorker(%q): got %v, want nil (graceful shutdown may repeat it)", w.ID, err)
		}
	}
	if err := s.RemoveWorker(t.Context(), newQueue(t)); err != nil {
		t.Fatalf("RemoveWorker of a worker never seen: got %v, want nil", err)
	}
}

func testWorkersInvalid(t *testing.T, s store.Store) {
	q := newQueue(t)
	noID := worker(t, q)
	noID.ID = ""
	badQueue := worker(t, q)
	badQueue.Queues = map[string]int{"a b": 1}
	for _, c := range []struct {
		what string
		w    store.WorkerInfo
		ttl  time.Duration
		err  error
	}{
		{"an empty ID", noID, long, store.ErrInvalidConfig},
		{"a ttl of 0", worker(t, q), 0, store.ErrInvalidConfig},
		{"a ttl under a millisecond", worker(t, q), 500 * time.Microsecond, store.ErrInvalidConfig},
		{`queue "a b"`, badQueue, long, store.ErrInvalidQueue},
	} {
		if err := s.Heartbeat(t.Context(), c.w, c.ttl); !errors.Is(err, c.err) {
			t.Fatalf("Heartbeat with %s: got %v, want an error wrapping %v", c.what, err, c.err)
		}
	}
}

func scheduleCases() []engineCase {
	return []engineCase{
		{name: "RegisterAndList", fn: testSchedulesList},
		{name: "RegisterReplaces", fn: testSchedulesReplace},
		{name: "LastTick", fn: testSchedulesLastTick},
		{name: "Invalid", fn: testSchedulesInvalid},
	}
}

func schedules(t *testing.T, s store.Store) []store.ScheduleInfo {
	t.Helper()
	list, err := s.ListSchedules(t.Context())
	if err != nil {
		t.Fatalf("Schedules: unexpected error: %v", err)
	}
	var names []string
	for _, si := range list {
		names = append(names, si.Name)
	}
	if !slices.IsSorted(names) {
		t.Fatalf("Schedules names %q, want sorted by name", names)
	}
	return list
}

// findSchedules returns the listed schedules named name.
func findSchedules(t *testing.T, s store.Store, name string) []store.ScheduleInfo {
	t.Helper()
	var out []store.ScheduleInfo
	for _, si := range schedules(t, s) {
		if si.Name == name {
			out = append(out, si)
		}
	}
	return out
}

func register(t *testing.T, s store.Store, list ...store.ScheduleInfo) {
	t.Helper()
	if err := s.RegisterSchedules(t.Context(), list); err != nil {
		t.Fatalf("RegisterSchedules(%d): unexpected error: %v", len(list), err)
	}
}

func requireSchedule(t *testing.T, s store.Store, want store.ScheduleInfo) {
	t.Helper()
	got := findSchedules(t, s, want.Name)
	if len(got) != 1 {
		t.Fatalf("Schedules lists %q %d times, want once", want.Name, len(got))
	}
	g := got[0]
	if g.Spec != want.Spec || g.Queue != want.Queue || g.Kind != want.Kind || !within(g.Next, want.Next, msSlack) || !within(g.LastTick, want.LastTick, msSlack) ||
		!within(g.SeenAt, want.SeenAt, msSlack) {
		t.Fatalf("Schedules lists %+v, want %+v", g, want)
	}
}

func testSchedulesList(t *testing.T, s store.Store) {
	q := newQueue(t)
	next := time.Now().Add(time.Minute).Truncate(time.Minute)
	a := store.ScheduleInfo{Name: q + ".b-every-minute", Spec: "@every 1m", Queue: q, Kind: "report", Next: next, SeenAt: time.Now().Truncate(time.Millisecond)}
	b := store.ScheduleInfo{Name: q + ".a-nightly", Spec: "0 3 * * *", Queue: q, Kind: "cleanup", Next: next.Add(time.Hour)}
	register(t, s, a, b)
	requireSchedule(t, s, a)
	requireSchedule(t, s, b)
}

func testSchedulesReplace(t *testing.T, s store.Store) {
	q := newQueue(t)
	next := time.Now().Add(time.Minute).Truncate(time.Minute)
	a := store.ScheduleInfo{Name: q + ".a", Spec: "@every 1m", Queue: q, Kind: "report", Next: next}
	b := store.ScheduleInfo{Name: q + ".b", Spec: "@every 1h", Queue: q, Kind: "report", Next: next}
	register(t, s, a, b)
	a.Spec, a.Kind, a.Next = "@every 5m", "report_v2", next.Add(5*time.Minute)
	register(t, s, a)
	requireSchedule(t, s, a)
	requireSchedule(t, s, b)
}

func testSchedulesLastTick(t *testing.T, s store.Store) {
	q := newQueue(t)
	si := store.ScheduleInfo{Name: q + ".tick", Spec: "@every 1m", Queue: q, Kind: kind, Next: tick0}
	register(t, s, si)
	requireSchedule(t, s, si)
	add(t, s, tick(q, "t1", si.Name, tick0))
	si.LastTick = tick0
	requireSchedule(t, s, si)
	requireSkipped(t, s, tick(q, "t0", si.Name, tick0.Add(-time.Minute)), "older than the last tick")
	requireSchedule(t, s, si)
	add(t, s, tick(q, "t2", si.Name, tick0.Add(time.Minute)))
	si.LastTick = tick0.Add(time.Minute)
	requireSchedule(t, s, si)
}

func testSchedulesInvalid(t *testing.T, s store.Store) {
	q := newQueue(t)
	good := store.ScheduleInfo{Name: q + ".good", Spec: "@every 1m", Queue: q, Kind: kind, Next: tick0}
	for _, c := range []struct {
		what string
		si   store.ScheduleInfo
		err  error
	}{
		{"an empty name", store.ScheduleInfo{Spec: "@every 1m", Queue: q, Kind: kind}, store.ErrInvalidConfig},
		{`queue "a b"`, store.ScheduleInfo{Name: q + ".bad", Spec: "@every 1m", Queue: "a b", Kind: kind}, store.ErrInvalidQueue},
	} {
		if err := s.RegisterSchedules(t.Context(), []store.ScheduleInfo{good, c.si}); !errors.Is(err, c.err) {
			t.Fatalf("RegisterSchedules with a schedule with %s: got %v, want an error wrapping %v", c.what, err, c.err)
		}
	}
	if got := findSchedules(t, s, good.Name); len(got) != 0 {
		t.Fatalf("Schedules lists %+v after registrations that failed validation, want nothing registered", got)
	}
}
