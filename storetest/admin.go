package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func requeueCases() []testCase {
	return []testCase{
		{name: "OneFromGarbage", fn: testRequeueOne},
		{name: "SelectedFromGarbage", fn: testRequeueSelected},
		{name: "AllFromGarbage", fn: testRequeueAll},
		{name: "FromRetry", fn: func(t *testing.T, s store.Store) { testRequeueFrom(t, s, store.StateRetry) }},
		{name: "FromPending", fn: func(t *testing.T, s store.Store) { testRequeueFrom(t, s, store.StatePending) }},
		{name: "FromDone", fn: func(t *testing.T, s store.Store) { testRequeueFrom(t, s, store.StateDone) }},
		{name: "SkipsOtherStates", fn: testRequeueSkips},
	}
}

// requeue calls Store.Requeue and fails unless it moved want jobs.
func requeue(t *testing.T, s store.Store, q string, from store.JobState, list []string, want int) {
	t.Helper()
	n, err := adm(t, s).Requeue(t.Context(), q, from, list)
	if err != nil || n != want {
		t.Fatalf("Requeue(%s, %q): got %d, %v; want %d, nil", from, list, n, err, want)
	}
}

// garbageJobs puts n jobs with no retries into garbage, one attempt each,
// and returns their IDs.
func garbageJobs(t *testing.T, s store.Store, q string, n int) []string {
	t.Helper()
	names := seqIDs("g", n)
	for _, id := range names {
		put(t, s, job(q, id), store.StateGarbage)
	}
	return names
}

// requireRequeued fails unless the jobs names are ready with attempts
// kept, and are what Claim returns next (in any order), each with Attempt
// attempts+1.
func requireRequeued(t *testing.T, s store.Store, q string, attempts int, names ...string) {
	t.Helper()
	for _, id := range names {
		if r := requireState(t, s, q, id, store.StateReady); r.Attempt != attempts {
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

func testRequeueOne(t *testing.T, s store.Store) {
	q := newQueue(t)
	g := garbageJobs(t, s, q, 2)
	requeue(t, s, q, store.StateGarbage, g[:1], 1)
	requireState(t, s, q, g[1], store.StateGarbage)
	requireRequeued(t, s, q, 1, g[0])
}

func testRequeueSelected(t *testing.T, s store.Store) {
	q := newQueue(t)
	g := garbageJobs(t, s, q, 3)
	requeue(t, s, q, store.StateGarbage, []string{g[0], "missing", g[2]}, 2)
	requireState(t, s, q, g[1], store.StateGarbage)
	requireCounts(t, s, q, store.StateCounts{Ready: 2, Garbage: 1})
	requireRequeued(t, s, q, 1, g[0], g[2])
}

func testRequeueAll(t *testing.T, s store.Store) {
	q := newQueue(t)
	g := garbageJobs(t, s, q, 3)
	add(t, s, delayed(q, "pending", long))
	requeue(t, s, q, store.StateGarbage, nil, 3)
	requireCounts(t, s, q, store.StateCounts{Pending: 1, Ready: 3})
	requireRequeued(t, s, q, 1, g...)
}

func testRequeueFrom(t *testing.T, s store.Store, from store.JobState) {
	q := newQueue(t)
	j := put(t, s, withRetries(q, "a", 3), from)
	put(t, s, withRetries(q, "other", 3), from)
	requeue(t, s, q, from, []string{"a"}, 1)
	requireState(t, s, q, "other", from)
	requireRequeued(t, s, q, j.Attempt, "a")
}

func testRequeueSkips(t *testing.T, s store.Store) {
	q := newQueue(t)
	put(t, s, job(q, "running"), store.StateUnack)
	put(t, s, job(q, "ready"), store.StateReady)
	put(t, s, job(q, "pending"), store.StatePending)
	requeue(t, s, q, store.StateGarbage, []string{"running", "ready", "pending"}, 0)
	requeue(t, s, q, store.StateRetry, nil, 0)
	requireCounts(t, s, q, store.StateCounts{Pending: 1, Ready: 1, Unack: 1})
}

func deleteCases() []testCase {
	var one, all []testCase
	for _, ps := range putStates {
		if ps.state == store.StateUnack {
			continue
		}
		one = append(one, testCase{name: ps.name, fn: func(t *testing.T, s store.Store) { testDeleteOne(t, s, ps.state) }})
		all = append(all, testCase{name: ps.name, fn: func(t *testing.T, s store.Store) { testDeleteAll(t, s, ps.state) }})
	}
	return []testCase{
		{name: "One", sub: one},
		{name: "All", sub: all},
		{name: "SkipsOtherStates", fn: testDeleteSkips},
	}
}

// del calls Store.Delete and fails unless it deleted want jobs.
func del(t *testing.T, s store.Store, q string, from store.JobState, list []string, want int) {
	t.Helper()
	n, err := adm(t, s).Delete(t.Context(), q, from, list)
	if err != nil || n != want {
		t.Fatalf("Delete(%s, %q): got %d, %v; want %d, nil", from, list, n, err, want)
	}
}

func testDeleteOne(t *testing.T, s store.Store, st store.JobState) {
	q := newQueue(t)
	put(t, s, withRetries(q, "x", 1), st)
	put(t, s, withRetries(q, "y", 1), st)
	del(t, s, q, st, []string{"x", "missing"}, 1)
	requireGone(t, s, q, "x", "Delete")
	requireState(t, s, q, "y", st)
}

func testDeleteAll(t *testing.T, s store.Store, st store.JobState) {
	q := newQueue(t)
	for _, id := range seqIDs("x", 3) {
		put(t, s, withRetries(q, id, 1), st)
	}
	other := store.StatePending
	if st == store.StatePending {
		other = store.StateGarbage
	}
	put(t, s, job(q, "other"), other)
	del(t, s, q, st, nil, 3)
	if c := stats(t, s, q).Counts; c.Get(st) != 0 || c.Get(other) != 1 || c.Total() != 1 {
		t.Fatalf("after Delete(%s, all): counts %+v, want only the one %s job left", st, c, other)
	}
}

func testDeleteSkips(t *testing.T, s store.Store) {
	q := newQueue(t)
	put(t, s, job(q, "ready"), store.StateReady)
	put(t, s, job(q, "pending"), store.StatePending)
	del(t, s, q, store.StateGarbage, []string{"ready", "pending"}, 0)
	del(t, s, q, store.StateRetry, nil, 0)
	requireCounts(t, s, q, store.StateCounts{Pending: 1, Ready: 1})
}

func cancelCases() []testCase {
	var cases []testCase
	for _, ps := range putStates {
		cases = append(cases, testCase{name: ps.name, fn: func(t *testing.T, s store.Store) { testCancelIn(t, s, ps.state) }})
	}
	return append(cases, testCase{name: "UnknownJob", fn: testCancelUnknown})
}

func testCancelIn(t *testing.T, s store.Store, st store.JobState) {
	q := newQueue(t)
	before := put(t, s, withRetries(q, "a", 3), st)
	start := time.Now()
	got, err := adm(t, s).Cancel(t.Context(), q, "a")
	if err != nil || got != st {
		t.Fatalf("Cancel of a job in %s: got %q, %v; want %q, nil", st, got, err, st)
	}
	after := getJob(t, s, q, "a")
	switch st {
	case store.StatePending, store.StateReady, store.StateRetry:
		if after.State != store.StateGarbage || !after.Cancelled {
			t.Fatalf("job cancelled while waiting in %s: state %s, Cancelled %v; want garbage, Cancelled", st, after.State, after.Cancelled)
		}
		requireNow(t, "FinishedAt of a cancelled job", after.FinishedAt, start, time.Now())
		maintain(t, s, q, store.MaintainOptions{})
		claimNone(t, s, q, "the job was cancelled")
	case store.StateUnack:
		if after.State != store.StateUnack || !after.Cancelled || after.Token != before.Token {
			t.Fatalf("running job after Cancel: state %s, Cancelled %v, token %d; want unack, Cancelled, token %d (its worker finishes it)",
				after.State, after.Cancelled, after.Token, before.Token)
		}
	case store.StateGarbage, store.StateDone:
		if after.State != st || after.Cancelled || len(after.Errors) != len(before.Errors) || !after.FinishedAt.Equal(before.FinishedAt) {
			t.Fatalf("Cancel of a job in %s changed it: %+v, was %+v", st, after, before)
		}
	}
}

func testCancelUnknown(t *testing.T, s store.Store) {
	q := newQueue(t)
	_, err := adm(t, s).Cancel(t.Context(), q, "never-enqueued")
	requireErrIs(t, "Cancel of a job that does not exist", err, store.ErrJobNotFound)
}
