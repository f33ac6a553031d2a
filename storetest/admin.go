package storetest

import (
	"slices"
	"testing"

	"github.com/hopperq/hopper/store"
)

func requeueCases() []adminCase {
	return []adminCase{
		{name: "OneFromGarbage", fn: testRequeueOne},
		{name: "SelectedFromGarbage", fn: testRequeueSelected},
		{name: "AllFromGarbage", fn: testRequeueAll},
		{name: "FromRetry", fn: func(t *testing.T, s store.Store, a store.Admin) { testRequeueFrom(t, s, a, store.StateRetry) }},
		{name: "FromPending", fn: func(t *testing.T, s store.Store, a store.Admin) { testRequeueFrom(t, s, a, store.StatePending) }},
		{name: "FromDone", fn: func(t *testing.T, s store.Store, a store.Admin) { testRequeueFrom(t, s, a, store.StateDone) }},
		{name: "SkipsOtherStates", fn: testRequeueSkips},
	}
}

// requeue calls Store.RequeueJobs and fails unless it moved want jobs.
func requeue(t *testing.T, a store.Admin, q string, from store.JobState, list []string, want int) {
	t.Helper()
	if !from.Requeueable() {
		t.Fatalf("storetest: Requeue from %s, a request the Inspector refuses", from)
	}
	n, err := a.RequeueJobs(t.Context(), q, from, list)
	if err != nil || n != want {
		t.Fatalf("Requeue(%s, %q): got %d, %v; want %d, nil", from, list, n, err, want)
	}
}

// garbageJobs puts n jobs with no retries into garbage, one attempt each,
// and returns their IDs.
func garbageJobs(t *testing.T, s store.Store, a store.Admin, q string, n int) []string {
	t.Helper()
	names := seqIDs("g", n)
	for _, id := range names {
		put(t, s, a, job(q, id), store.StateGarbage)
	}
	return names
}

// requireRequeued fails unless the jobs names are ready with attempts
// kept, and are what Claim returns next (in any order), each with Attempt
// attempts+1.
func requireRequeued(t *testing.T, s store.Store, a store.Admin, q string, attempts int, names ...string) {
	t.Helper()
	for _, id := range names {
		if r := requireState(t, a, q, id, store.StateReady); r.Attempt != attempts {
			t.Fatalf("requeued job %q: Attempt %d, want %d (attempts kept)", id, r.Attempt, attempts)
		}
	}
	got := claim(t, s, q, len(names)+1, long).Jobs
	if !slices.Equal(slices.Sorted(slices.Values(ids(got))), slices.Sorted(slices.Values(names))) {
		t.Fatalf("Claim after Requeue returned %v, want the requeued jobs %v", ids(got), names)
	}
	for _, c := range got {
		if c.Attempt != attempts+1 {
			t.Fatalf("requeued job %q claimed with Attempt %d, want %d", c.ID, c.Attempt, attempts+1)
		}
	}
}

func testRequeueOne(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	g := garbageJobs(t, s, a, q, 2)
	requeue(t, a, q, store.StateGarbage, g[:1], 1)
	requireState(t, a, q, g[1], store.StateGarbage)
	requireRequeued(t, s, a, q, 1, g[0])
}

func testRequeueSelected(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	g := garbageJobs(t, s, a, q, 3)
	requeue(t, a, q, store.StateGarbage, []string{g[0], "missing", g[2]}, 2)
	requireState(t, a, q, g[1], store.StateGarbage)
	requireCounts(t, a, q, store.StateCounts{Ready: 2, Garbage: 1})
	requireRequeued(t, s, a, q, 1, g[0], g[2])
}

func testRequeueAll(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	g := garbageJobs(t, s, a, q, 3)
	add(t, s, delayed(q, "pending", long))
	requeue(t, a, q, store.StateGarbage, nil, 3)
	requireCounts(t, a, q, store.StateCounts{Pending: 1, Ready: 3})
	requireRequeued(t, s, a, q, 1, g...)
}

func testRequeueFrom(t *testing.T, s store.Store, a store.Admin, from store.JobState) {
	q := newQueue(t)
	j := put(t, s, a, withRetries(q, "a", 3), from)
	put(t, s, a, withRetries(q, "other", 3), from)
	requeue(t, a, q, from, []string{"a"}, 1)
	requireState(t, a, q, "other", from)
	requireRequeued(t, s, a, q, j.Attempt, "a")
}

func testRequeueSkips(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	put(t, s, a, job(q, "running"), store.StateUnack)
	put(t, s, a, job(q, "ready"), store.StateReady)
	put(t, s, a, job(q, "pending"), store.StatePending)
	requeue(t, a, q, store.StateGarbage, []string{"running", "ready", "pending"}, 0)
	requeue(t, a, q, store.StateRetry, nil, 0)
	requireCounts(t, a, q, store.StateCounts{Pending: 1, Ready: 1, Unack: 1})
}

func deleteCases() []adminCase {
	var one, all []adminCase
	for _, ps := range putStates {
		if ps.state == store.StateUnack {
			continue
		}
		one = append(one, adminCase{name: ps.name, fn: func(t *testing.T, s store.Store, a store.Admin) { testDeleteOne(t, s, a, ps.state) }})
		all = append(all, adminCase{name: ps.name, fn: func(t *testing.T, s store.Store, a store.Admin) { testDeleteAll(t, s, a, ps.state) }})
	}
	return []adminCase{
		{name: "One", sub: one},
		{name: "All", sub: all},
		{name: "SkipsOtherStates", fn: testDeleteSkips},
	}
}

// del calls Store.DeleteJobs and fails unless it deleted want jobs.
func del(t *testing.T, a store.Admin, q string, from store.JobState, list []string, want int) {
	t.Helper()
	if !from.Deletable() {
		t.Fatalf("storetest: Delete from %s, a request the Inspector refuses", from)
	}
	n, err := a.DeleteJobs(t.Context(), q, from, list)
	if err != nil || n != want {
		t.Fatalf("Delete(%s, %q): got %d, %v; want %d, nil", from, list, n, err, want)
	}
}

func testDeleteOne(t *testing.T, s store.Store, a store.Admin, st store.JobState) {
	q := newQueue(t)
	put(t, s, a, withRetries(q, "x", 1), st)
	put(t, s, a, withRetries(q, "y", 1), st)
	del(t, a, q, st, []string{"x", "missing"}, 1)
	requireNotFound(t, a, q, "x", "Delete")
	requireState(t, a, q, "y", st)
}

func testDeleteAll(t *testing.T, s store.Store, a store.Admin, st store.JobState) {
	q := newQueue(t)
	for _, id := range seqIDs("x", 3) {
		put(t, s, a, withRetries(q, id, 1), st)
	}
	other := store.StatePending
	if st == store.StatePending {
		other = store.StateGarbage
	}
	put(t, s, a, job(q, "other"), other)
	del(t, a, q, st, nil, 3)
	if c := stats(t, a, q).Counts; c.Get(st) != 0 || c.Get(other) != 1 || c.Total() != 1 {
		t.Fatalf("after Delete(%s, all): counts %+v, want only the one %s job left", st, c, other)
	}
}

func testDeleteSkips(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	put(t, s, a, job(q, "ready"), store.StateReady)
	put(t, s, a, job(q, "pending"), store.StatePending)
	del(t, a, q, store.StateGarbage, []string{"ready", "pending"}, 0)
	del(t, a, q, store.StateRetry, nil, 0)
	requireCounts(t, a, q, store.StateCounts{Pending: 1, Ready: 1})
}
