package storetest

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func workerCases() []testCase {
	return []testCase{
		{name: "HeartbeatListed", fn: testWorkersListed},
		{name: "HeartbeatReplaces", fn: testWorkersReplace},
		{name: "SortedByID", fn: testWorkersSorted},
		{name: "ExpireAfterTTL", fn: testWorkersExpire},
		{name: "RemoveWorker", fn: testWorkersRemove},
	}
}

func workers(t *testing.T, s store.Store) []store.WorkerInfo {
	t.Helper()
	ws, err := adm(t, s).Workers(t.Context())
	if err != nil {
		t.Fatalf("Workers: unexpected error: %v", err)
	}
	return ws
}

// findWorker returns the worker with ID id and how many records have it.
func findWorker(t *testing.T, s store.Store, id string) (store.WorkerInfo, int) {
	t.Helper()
	var found store.WorkerInfo
	n := 0
	for _, w := range workers(t, s) {
		if w.ID == id {
			found = w
			n++
		}
	}
	return found, n
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
		Running: []store.RunningJob{
			{Queue: q, ID: "job-1", Kind: "email", StartedAt: now.Add(-time.Second)},
			{Queue: q, ID: "job-2", Kind: "report", StartedAt: now},
		},
	}
}

// requireWorker fails unless got matches want, HeartbeatAt aside.
func requireWorker(t *testing.T, got, want store.WorkerInfo) {
	t.Helper()
	same := got.ID == want.ID && got.Host == want.Host && got.PID == want.PID && got.Concurrency == want.Concurrency &&
		maps.Equal(got.Queues, want.Queues) && within(got.StartedAt, want.StartedAt, msSlack) && len(got.Running) == len(want.Running)
	for i := 0; same && i < len(got.Running); i++ {
		g, w := got.Running[i], want.Running[i]
		same = g.Queue == w.Queue && g.ID == w.ID && g.Kind == w.Kind && within(g.StartedAt, w.StartedAt, msSlack)
	}
	if !same {
		t.Fatalf("Workers lists %+v, want %+v", got, want)
	}
}

func testWorkersListed(t *testing.T, s store.Store) {
	w := worker(t, newQueue(t))
	before := time.Now()
	heartbeat(t, s, w, long)
	after := time.Now()
	got, n := findWorker(t, s, w.ID)
	if n != 1 {
		t.Fatalf("Workers lists worker %q %d times after one Heartbeat, want once", w.ID, n)
	}
	requireWorker(t, got, w)
	requireNow(t, "HeartbeatAt", got.HeartbeatAt, before, after)
}

func testWorkersReplace(t *testing.T, s store.Store) {
	w := worker(t, newQueue(t))
	heartbeat(t, s, w, long)
	first, _ := findWorker(t, s, w.ID)
	w.Running = w.Running[1:]
	w.Concurrency = 16
	heartbeat(t, s, w, long)
	got, n := findWorker(t, s, w.ID)
	if n != 1 {
		t.Fatalf("Workers lists worker %q %d times after two Heartbeats, want once", w.ID, n)
	}
	requireWorker(t, got, w)
	if got.HeartbeatAt.Before(first.HeartbeatAt) {
		t.Fatalf("HeartbeatAt went back from %v to %v on a second Heartbeat", first.HeartbeatAt, got.HeartbeatAt)
	}
}

func testWorkersSorted(t *testing.T, s store.Store) {
	q := newQueue(t)
	a, b := worker(t, q), worker(t, q)
	a.ID, b.ID = q+".b", q+".a"
	heartbeat(t, s, a, long)
	heartbeat(t, s, b, long)
	var names []string
	for _, w := range workers(t, s) {
		names = append(names, w.ID)
	}
	if !slices.IsSorted(names) || !slices.Contains(names, a.ID) || !slices.Contains(names, b.ID) {
		t.Fatalf("Workers IDs %q, want both %q and %q, sorted by ID", names, a.ID, b.ID)
	}
}

func testWorkersExpire(t *testing.T, s store.Store) {
	q := newQueue(t)
	short, kept := worker(t, q), worker(t, q)
	const ttl = 100 * time.Millisecond
	heartbeat(t, s, kept, long)
	start := time.Now()
	heartbeat(t, s, short, ttl)
	testutil.Eventually(t, waitFor, func() error {
		if _, n := findWorker(t, s, short.ID); n != 0 {
			return fmt.Errorf("worker %q still listed %v after a Heartbeat with ttl %v", short.ID, time.Since(start), ttl)
		}
		return nil
	})
	if held := time.Since(start); held < ttl-2*msSlack {
		t.Fatalf("worker with ttl %v expired after at most %v", ttl, held)
	}
	if _, n := findWorker(t, s, kept.ID); n != 1 {
		t.Fatalf("worker with ttl 1h listed %d times, want once", n)
	}
}

func testWorkersRemove(t *testing.T, s store.Store) {
	q := newQueue(t)
	gone, kept := worker(t, q), worker(t, q)
	heartbeat(t, s, gone, long)
	heartbeat(t, s, kept, long)
	if err := s.RemoveWorker(t.Context(), gone.ID); err != nil {
		t.Fatalf("RemoveWorker(%q): unexpected error: %v", gone.ID, err)
	}
	if _, n := findWorker(t, s, gone.ID); n != 0 {
		t.Fatalf("worker %q still listed after RemoveWorker", gone.ID)
	}
	if _, n := findWorker(t, s, kept.ID); n != 1 {
		t.Fatalf("RemoveWorker of another worker removed %q too", kept.ID)
	}
	if err := s.RemoveWorker(t.Context(), gone.ID); err != nil {
		t.Fatalf("RemoveWorker of a worker already removed: got %v, want nil (graceful shutdown may repeat it)", err)
	}
}

func scheduleCases() []testCase {
	return []testCase{
		{name: "RegisterAndList", fn: testSchedulesList},
		{name: "RegisterReplaces", fn: testSchedulesReplace},
		{name: "LastTick", fn: testSchedulesLastTick},
	}
}

func schedules(t *testing.T, s store.Store) []store.ScheduleInfo {
	t.Helper()
	list, err := s.Schedules(t.Context())
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
	if g.Spec != want.Spec || g.Queue != want.Queue || g.Kind != want.Kind || !within(g.Next, want.Next, msSlack) || !within(g.LastTick, want.LastTick, msSlack) {
		t.Fatalf("Schedules lists %+v, want %+v", g, want)
	}
}

func testSchedulesList(t *testing.T, s store.Store) {
	q := newQueue(t)
	next := time.Now().Add(time.Minute).Truncate(time.Minute)
	a := store.ScheduleInfo{Name: q + ".b-every-minute", Spec: "@every 1m", Queue: q, Kind: "report", Next: next}
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
