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

func adminWorkerCases() []adminCase {
	return []adminCase{
		{name: "HeartbeatListed", fn: testWorkersListed},
		{name: "HeartbeatReplaces", fn: testWorkersReplace},
		{name: "SortedByID", fn: testWorkersSorted},
		{name: "ExpireAfterTTL", fn: testWorkersExpire},
		{name: "RemoveWorker", fn: testWorkersRemove},
	}
}

func workers(t *testing.T, a store.Admin) []store.WorkerInfo {
	t.Helper()
	ws, err := a.ListWorkers(t.Context())
	if err != nil {
		t.Fatalf("Workers: unexpected error: %v", err)
	}
	return ws
}

// findWorker returns the worker with ID id and how many records have it.
func findWorker(t *testing.T, a store.Admin, id string) (store.WorkerInfo, int) {
	t.Helper()
	var found store.WorkerInfo
	n := 0
	for _, w := range workers(t, a) {
		if w.ID == id {
			found = w
			n++
		}
	}
	return found, n
}

// requireWorker fails unless got matches want, HeartbeatAt aside.
func requireWorker(t *testing.T, got, want store.WorkerInfo) {
	t.Helper()
	same := got.ID == want.ID && got.Host == want.Host && got.PID == want.PID && got.Concurrency == want.Concurrency &&
		got.Processed == want.Processed && got.Failed == want.Failed &&
		maps.Equal(got.Queues, want.Queues) && within(got.StartedAt, want.StartedAt, msSlack) && len(got.Running) == len(want.Running)
	for i := 0; same && i < len(got.Running); i++ {
		g, w := got.Running[i], want.Running[i]
		same = g.Queue == w.Queue && g.ID == w.ID && g.Kind == w.Kind && within(g.StartedAt, w.StartedAt, msSlack)
	}
	if !same {
		t.Fatalf("Workers lists %+v, want %+v", got, want)
	}
}

func testWorkersListed(t *testing.T, s store.Store, a store.Admin) {
	w := worker(t, newQueue(t))
	before := time.Now()
	heartbeat(t, s, w, long)
	after := time.Now()
	got, n := findWorker(t, a, w.ID)
	if n != 1 {
		t.Fatalf("Workers lists worker %q %d times after one Heartbeat, want once", w.ID, n)
	}
	requireWorker(t, got, w)
	requireNow(t, "HeartbeatAt", got.HeartbeatAt, before, after)
}

func testWorkersReplace(t *testing.T, s store.Store, a store.Admin) {
	w := worker(t, newQueue(t))
	heartbeat(t, s, w, long)
	first, _ := findWorker(t, a, w.ID)
	w.Running = w.Running[1:]
	w.Concurrency = 16
	heartbeat(t, s, w, long)
	got, n := findWorker(t, a, w.ID)
	if n != 1 {
		t.Fatalf("Workers lists worker %q %d times after two Heartbeats, want once", w.ID, n)
	}
	requireWorker(t, got, w)
	if got.HeartbeatAt.Before(first.HeartbeatAt) {
		t.Fatalf("HeartbeatAt went back from %v to %v on a second Heartbeat", first.HeartbeatAt, got.HeartbeatAt)
	}
}

func testWorkersSorted(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	w1, w2 := worker(t, q), worker(t, q)
	w1.ID, w2.ID = q+".b", q+".a"
	heartbeat(t, s, w1, long)
	heartbeat(t, s, w2, long)
	var names []string
	for _, w := range workers(t, a) {
		names = append(names, w.ID)
	}
	if !slices.IsSorted(names) || !slices.Contains(names, w1.ID) || !slices.Contains(names, w2.ID) {
		t.Fatalf("Workers IDs %q, want both %q and %q, sorted by ID", names, w1.ID, w2.ID)
	}
}

func testWorkersExpire(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	short, kept := worker(t, q), worker(t, q)
	const ttl = 100 * time.Millisecond
	heartbeat(t, s, kept, long)
	start := time.Now()
	heartbeat(t, s, short, ttl)
	testutil.Eventually(t, waitFor, func() error {
		if _, n := findWorker(t, a, short.ID); n != 0 {
			return fmt.Errorf("worker %q still listed %v after a Heartbeat with ttl %v", short.ID, time.Since(start), ttl)
		}
		return nil
	})
	if held := time.Since(start); held < ttl-2*msSlack {
		t.Fatalf("worker with ttl %v expired after at most %v", ttl, held)
	}
	if _, n := findWorker(t, a, kept.ID); n != 1 {
		t.Fatalf("worker with ttl 1h listed %d times, want once", n)
	}
}

func testWorkersRemove(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	gone, kept := worker(t, q), worker(t, q)
	heartbeat(t, s, gone, long)
	heartbeat(t, s, kept, long)
	if err := s.RemoveWorker(t.Context(), gone.ID); err != nil {
		t.Fatalf("RemoveWorker(%q): unexpected error: %v", gone.ID, err)
	}
	if _, n := findWorker(t, a, gone.ID); n != 0 {
		t.Fatalf("worker %q still listed after RemoveWorker", gone.ID)
	}
	if _, n := findWorker(t, a, kept.ID); n != 1 {
		t.Fatalf("RemoveWorker of another worker removed %q too", kept.ID)
	}
	if err := s.RemoveWorker(t.Context(), gone.ID); err != nil {
		t.Fatalf("RemoveWorker of a worker already removed: got %v, want nil (graceful shutdown may repeat it)", err)
	}
}
