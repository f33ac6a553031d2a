package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

func requeueCases() []testCase {
	return []testCase{
		{name: "OneFromGarbage", fn: testRequeueOne},
		{name: "SelectedFromGarbage", fn: testRequeueSelected},
		{name: "AllFromGarbage", fn: testRequeueAll},
		{name: "FromRetry", fn: func(t *testing.T, s hopper.Store) { testRequeueFrom(t, s, hopper.StateRetry) }},
		{name: "FromPending", fn: func(t *testing.T, s hopper.Store) { testRequeueFrom(t, s, hopper.StatePending) }},
		{name: "FromDone", fn: func(t *testing.T, s hopper.Store) { testRequeueFrom(t, s, hopper.StateDone) }},
		{name: "SkipsOtherStates", fn: testRequeueSkips},
		{name: "FromUnackFails", fn: func(t *testing.T, s hopper.Store) { testRequeueRefused(t, s, hopper.StateUnack) }},
		{name: "FromReadyFails", fn: func(t *testing.T, s hopper.Store) { testRequeueRefused(t, s, hopper.StateReady) }},
	}
}

// requeue calls Store.Requeue and fails unless it moved want jobs.
func requeue(t *testing.T, s hopper.Store, q string, from hopper.JobState, list []string, want int) {
	t.Helper()
	n, err := s.Requeue(t.Context(), q, from, list)
	if err != nil || n != want {
		t.Fatalf("Requeue(%s, %q): got %d, %v; want %d, nil", from, list, n, err, want)
	}
}

// garbageJobs puts n jobs with no retries into garbage, one attempt each,
// and returns their IDs.
func garbageJobs(t *testing.T, s hopper.Store, q string, n int) []string {
	t.Helper()
	names := seqIDs("g", n)
	for _, id := range names {
		put(t, s, job(q, id), hopper.StateGarbage)
	}
	return names
}

// requireRequeued fails unless the jobs names are ready with attempts
// kept, and are what Claim returns next (in any order), each with Attempt
// attempts+1.
func requireRequeued(t *testing.T, s hopper.Store, q string, attempts int, names ...string) {
	t.Helper()
	for _, id := range names {
		if r := requireState(t, s, q, id, hopper.StateReady); r.Attempt != attempts {
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

func testRequeueOne(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	g := garbageJobs(t, s, q, 2)
	requeue(t, s, q, hopper.StateGarbage, g[:1], 1)
	requireState(t, s, q, g[1], hopper.StateGarbage)
	requireRequeued(t, s, q, 1, g[0])
}

func testRequeueSelected(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	g := garbageJobs(t, s, q, 3)
	requeue(t, s, q, hopper.StateGarbage, []string{g[0], "missing", g[2]}, 2)
	requireState(t, s, q, g[1], hopper.StateGarbage)
	requireCounts(t, s, q, hopper.StateCounts{Ready: 2, Garbage: 1})
	requireRequeued(t, s, q, 1, g[0], g[2])
}

func testRequeueAll(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	g := garbageJobs(t, s, q, 3)
	add(t, s, delayed(q, "pending", long))
	requeue(t, s, q, hopper.StateGarbage, nil, 3)
	requireCounts(t, s, q, hopper.StateCounts{Pending: 1, Ready: 3})
	requireRequeued(t, s, q, 1, g...)
}

func testRequeueFrom(t *testing.T, s hopper.Store, from hopper.JobState) {
	q := newQueue(t)
	j := put(t, s, withRetries(q, "a", 3), from)
	put(t, s, withRetries(q, "other", 3), from)
	requeue(t, s, q, from, []string{"a"}, 1)
	requireState(t, s, q, "other", from)
	requireRequeued(t, s, q, j.Attempt, "a")
}

func testRequeueSkips(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	put(t, s, job(q, "running"), hopper.StateUnack)
	put(t, s, job(q, "ready"), hopper.StateReady)
	put(t, s, job(q, "pending"), hopper.StatePending)
	requeue(t, s, q, hopper.StateGarbage, []string{"running", "ready", "pending"}, 0)
	requeue(t, s, q, hopper.StateRetry, nil, 0)
	requireCounts(t, s, q, hopper.StateCounts{Pending: 1, Ready: 1, Unack: 1})
}

func testRequeueRefused(t *testing.T, s hopper.Store, from hopper.JobState) {
	q := newQueue(t)
	before := put(t, s, job(q, "a"), from)
	for _, list := range [][]string{{"a"}, nil} {
		n, err := s.Requeue(t.Context(), q, from, list)
		requireErrIs(t, fmt.Sprintf("Requeue(%s, %q): moved %d", from, list, n), err, hopper.ErrInvalidState)
	}
	if after := requireState(t, s, q, "a", from); after.Token != before.Token || after.Attempt != before.Attempt {
		t.Fatalf("refused Requeue changed the job: %+v, was %+v", after, before)
	}
}

func deleteCases() []testCase {
	var one, all []testCase
	for _, ps := range putStates {
		if ps.state == hopper.StateUnack {
			continue
		}
		one = append(one, testCase{name: ps.name, fn: func(t *testing.T, s hopper.Store) { testDeleteOne(t, s, ps.state) }})
		all = append(all, testCase{name: ps.name, fn: func(t *testing.T, s hopper.Store) { testDeleteAll(t, s, ps.state) }})
	}
	return []testCase{
		{name: "One", sub: one},
		{name: "All", sub: all},
		{name: "SkipsOtherStates", fn: testDeleteSkips},
		{name: "FromUnackFails", fn: testDeleteUnack},
		{name: "InvalidState", fn: testDeleteInvalidState},
	}
}

// del calls Store.Delete and fails unless it deleted want jobs.
func del(t *testing.T, s hopper.Store, q string, from hopper.JobState, list []string, want int) {
	t.Helper()
	n, err := s.Delete(t.Context(), q, from, list)
	if err != nil || n != want {
		t.Fatalf("Delete(%s, %q): got %d, %v; want %d, nil", from, list, n, err, want)
	}
}

func testDeleteOne(t *testing.T, s hopper.Store, st hopper.JobState) {
	q := newQueue(t)
	put(t, s, withRetries(q, "x", 1), st)
	put(t, s, withRetries(q, "y", 1), st)
	del(t, s, q, st, []string{"x", "missing"}, 1)
	requireGone(t, s, q, "x", "Delete")
	requireState(t, s, q, "y", st)
}

func testDeleteAll(t *testing.T, s hopper.Store, st hopper.JobState) {
	q := newQueue(t)
	for _, id := range seqIDs("x", 3) {
		put(t, s, withRetries(q, id, 1), st)
	}
	other := hopper.StatePending
	if st == hopper.StatePending {
		other = hopper.StateGarbage
	}
	put(t, s, job(q, "other"), other)
	del(t, s, q, st, nil, 3)
	if c := stats(t, s, q).Counts; c.Get(st) != 0 || c.Get(other) != 1 || c.Total() != 1 {
		t.Fatalf("after Delete(%s, all): counts %+v, want only the one %s job left", st, c, other)
	}
}

func testDeleteSkips(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	put(t, s, job(q, "ready"), hopper.StateReady)
	put(t, s, job(q, "pending"), hopper.StatePending)
	del(t, s, q, hopper.StateGarbage, []string{"ready", "pending"}, 0)
	del(t, s, q, hopper.StateRetry, nil, 0)
	requireCounts(t, s, q, hopper.StateCounts{Pending: 1, Ready: 1})
}

func testDeleteUnack(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	c := put(t, s, job(q, "a"), hopper.StateUnack)
	for _, list := range [][]string{{"a"}, nil} {
		n, err := s.Delete(t.Context(), q, hopper.StateUnack, list)
		requireErrIs(t, fmt.Sprintf("Delete(unack, %q): deleted %d", list, n), err, hopper.ErrInvalidState)
	}
	requireOwner(t, s, c, "a refused Delete from unack")
}

func testDeleteInvalidState(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	_, err := s.Delete(t.Context(), q, "bogus", nil)
	requireErrIs(t, `Delete(state "bogus")`, err, hopper.ErrInvalidState)
	requireState(t, s, q, "a", hopper.StateReady)
}

func cancelCases() []testCase {
	var cases []testCase
	for _, ps := range putStates {
		cases = append(cases, testCase{name: ps.name, fn: func(t *testing.T, s hopper.Store) { testCancelIn(t, s, ps.state) }})
	}
	return append(cases, testCase{name: "UnknownJob", fn: testCancelUnknown})
}

func testCancelIn(t *testing.T, s hopper.Store, st hopper.JobState) {
	q := newQueue(t)
	before := put(t, s, withRetries(q, "a", 3), st)
	start := time.Now()
	got, err := s.Cancel(t.Context(), q, "a")
	if err != nil || got != st {
		t.Fatalf("Cancel of a job in %s: got %q, %v; want %q, nil", st, got, err, st)
	}
	after := getJob(t, s, q, "a")
	switch st {
	case hopper.StatePending, hopper.StateReady, hopper.StateRetry:
		if after.State != hopper.StateGarbage || !after.Cancelled {
			t.Fatalf("job cancelled while waiting in %s: state %s, Cancelled %v; want garbage, Cancelled", st, after.State, after.Cancelled)
		}
		requireNow(t, "FinishedAt of a cancelled job", after.FinishedAt, start, time.Now())
		maintain(t, s, q, hopper.MaintainOptions{})
		claimNone(t, s, q, "the job was cancelled")
	case hopper.StateUnack:
		if after.State != hopper.StateUnack || !after.Cancelled || after.Token != before.Token {
			t.Fatalf("running job after Cancel: state %s, Cancelled %v, token %d; want unack, Cancelled, token %d (its worker finishes it)",
				after.State, after.Cancelled, after.Token, before.Token)
		}
	case hopper.StateGarbage, hopper.StateDone:
		if after.State != st || after.Cancelled || len(after.Errors) != len(before.Errors) || !after.FinishedAt.Equal(before.FinishedAt) {
			t.Fatalf("Cancel of a job in %s changed it: %+v, was %+v", st, after, before)
		}
	}
}

func testCancelUnknown(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	_, err := s.Cancel(t.Context(), q, "never-enqueued")
	requireErrIs(t, "Cancel of a job that does not exist", err, hopper.ErrJobNotFound)
}
