package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func priorityCases() []adminCase {
	return []adminCase{
		{name: "ClaimOrder", fn: testPriorityClaimOrder},
		{name: "BatchSpansLevels", fn: testPriorityBatchSpansLevels},
		{name: "KeptThroughPromotion", fn: testPriorityKeptThroughPromotion},
		{name: "KeptThroughRetryAndRequeue", fn: testPriorityKeptThroughRetryAndRequeue},
		{name: "ReleaseToFrontOfLevel", fn: testPriorityReleaseToFront},
		{name: "ListAndStats", fn: testPriorityListAndStats},
		{name: "CancelAndDelete", fn: testPriorityCancelAndDelete},
		{name: "ReplaceChangesLevel", fn: testPriorityReplace},
		{name: "OutOfRange", fn: testPriorityOutOfRange},
	}
}

// prioritized returns job(q, id) with priority p.
func prioritized(q, id string, p int) *store.NewJob {
	j := job(q, id)
	j.Priority = p
	return j
}

// mixedPriorities enqueues, in this order, jobs whose IDs name their
// priority and arrival, over every level, and returns their IDs in the
// order a claim must take them: highest priority first, first in first
// out within one.
func mixedPriorities(t *testing.T, s store.Store, q string) []string {
	t.Helper()
	prios := []int{0, 3, -1, 3, 0, -3, 1, 2, -2, 0, 1, -3, 2, -1, 0, 3}
	var jobs []*store.NewJob
	for i, p := range prios {
		jobs = append(jobs, prioritized(q, fmt.Sprintf("p%+d-%02d", p, i), p))
	}
	add(t, s, jobs...)
	want := make([]*store.NewJob, len(jobs))
	copy(want, jobs)
	slices.SortStableFunc(want, func(a, b *store.NewJob) int { return b.Priority - a.Priority })
	out := make([]string, len(want))
	for i, j := range want {
		out[i] = j.ID
	}
	return out
}

func testPriorityClaimOrder(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	want := mixedPriorities(t, s, q)
	var got []string
	for range want {
		res := claim(t, s, q, 1, long)
		if len(res.Jobs) != 1 {
			t.Fatalf("Claim(%q) after %v: %d jobs, want 1", q, got, len(res.Jobs))
		}
		got = append(got, res.Jobs[0].ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("claims one at a time took\n%v\nwant highest priority first, FIFO within one:\n%v", got, want)
	}
	if j := getJob(t, a, q, want[0]); j.Priority != 3 {
		t.Fatalf("GetJob(%q).Priority = %d, want 3", want[0], j.Priority)
	}
	claimNone(t, s, q, "every job was claimed")
}

func testPriorityBatchSpansLevels(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	want := mixedPriorities(t, s, q)
	first := claim(t, s, q, 5, long)
	rest := claim(t, s, q, 100, long)
	got := append(ids(first.Jobs), ids(rest.Jobs)...)
	if !slices.Equal(got, want) {
		t.Fatalf("claims of 5 then 100 took\n%v\nwant\n%v", got, want)
	}
	for _, j := range append(first.Jobs, rest.Jobs...) {
		var p int
		if _, err := fmt.Sscanf(j.ID, "p%d-", &p); err != nil || j.Priority != p {
			t.Fatalf("claimed job %q has Priority %d, want the one its ID names", j.ID, j.Priority)
		}
	}
}

func testPriorityKeptThroughPromotion(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	// A default job ready now, a high one falling due soon: once promoted,
	// the high one is claimed first although it became ready later.
	add(t, s, job(q, "plain"))
	high := prioritized(q, "high", 2)
	high.Delay = 50 * time.Millisecond
	add(t, s, high)
	requireState(t, a, q, "high", store.StatePending)
	maintainUntil(t, s, q, store.MaintainOpts{}, promoted(1))
	claimOne(t, s, q, "high", long)
	claimOne(t, s, q, "plain", long)
}

func testPriorityKeptThroughRetryAndRequeue(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	u := withRetries(q, "urgent2", 3)
	u.Priority = 3
	add(t, s, u)
	c := claimOne(t, s, q, "urgent2", long)
	finishOK(t, s, failed(c, store.OutcomeRetry, "boom", 0))
	add(t, s, job(q, "plain1"))
	got := claimWhenDue(t, s, q, long)
	if got.ID != "urgent2" || got.Priority != 3 {
		t.Fatalf("claim after a retry of priority 3 became due: %q (priority %d), want urgent2 (3) before plain1", got.ID, got.Priority)
	}
	finishOK(t, s, failed(got, store.OutcomeGarbage, "dead", 0))
	add(t, s, job(q, "plain2"))
	if n, err := a.RequeueJobs(t.Context(), q, store.StateGarbage, []string{"urgent2"}); err != nil || n != 1 {
		t.Fatalf("Requeue(urgent2): %d, %v; want 1, nil", n, err)
	}
	claimOne(t, s, q, "urgent2", long)
	claimOne(t, s, q, "plain1", long)
	claimOne(t, s, q, "plain2", long)
}

func testPriorityReleaseToFront(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, prioritized(q, "low1", -2), prioritized(q, "high1", 1), prioritized(q, "high2", 1))
	c := claimOne(t, s, q, "high1", long)
	finishOK(t, s, outcome(c, store.OutcomeRelease))
	// Released to the front of its own level: before high2, and still
	// before every lower level.
	claimOne(t, s, q, "high1", long)
	claimOne(t, s, q, "high2", long)
	claimOne(t, s, q, "low1", long)
}

func testPriorityListAndStats(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	want := mixedPriorities(t, s, q)
	page := list(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 100})
	if !slices.Equal(ids(page.Jobs), want) || page.Total != len(want) {
		t.Fatalf("ListJobs of ready: %v (total %d), want claim order %v (total %d)", ids(page.Jobs), page.Total, want, len(want))
	}
	rev := slices.Clone(want)
	slices.Reverse(rev)
	newest := list(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 100, Newest: true})
	if !slices.Equal(ids(newest.Jobs), rev) {
		t.Fatalf("ListJobs of ready, newest first: %v, want claim order reversed %v", ids(newest.Jobs), rev)
	}
	// Pages that cross levels, both ways.
	for off := 0; off < len(want); off += 3 {
		p := list(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Offset: off, Limit: 3})
		if w := want[off:min(off+3, len(want))]; !slices.Equal(ids(p.Jobs), w) {
			t.Fatalf("ListJobs of ready at offset %d: %v, want %v", off, ids(p.Jobs), w)
		}
		p = list(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Offset: off, Limit: 3, Newest: true})
		if w := rev[off:min(off+3, len(rev))]; !slices.Equal(ids(p.Jobs), w) {
			t.Fatalf("ListJobs of ready, newest first, at offset %d: %v, want %v", off, ids(p.Jobs), w)
		}
	}
	if st := stats(t, a, q); st.Counts.Ready != int64(len(want)) {
		t.Fatalf("QueueStats Ready = %d, want %d over every level", st.Counts.Ready, len(want))
	}
}

func testPriorityCancelAndDelete(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	want := mixedPriorities(t, s, q)
	cancel(t, a, q, want[0], store.StateReady)
	cancel(t, a, q, want[len(want)-1], store.StateReady)
	if n, err := a.DeleteJobs(t.Context(), q, store.StateReady, []string{want[1], want[5]}); err != nil || n != 2 {
		t.Fatalf("Delete of two ready jobs of priorities 3 and 1: %d, %v; want 2, nil", n, err)
	}
	left := slices.Concat(want[2:5], want[6:len(want)-1])
	if got := list(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 100}); !slices.Equal(ids(got.Jobs), left) {
		t.Fatalf("ready after cancelling and deleting four: %v, want %v", ids(got.Jobs), left)
	}
	if n, err := a.DeleteJobs(t.Context(), q, store.StateReady, nil); err != nil || n != len(left) {
		t.Fatalf("Delete of all ready: %d, %v; want %d, nil", n, err, len(left))
	}
	requireCounts(t, a, q, store.StateCounts{Garbage: 2})
	claimNone(t, s, q, "every ready job was cancelled or deleted")
}

func testPriorityReplace(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, prioritized(q, "a", 1), keyed(q, "b", "kb", 0, "v1"), prioritized(q, "c", 1))
	// b goes from the default level to the back of level 1: after c.
	up := keyed(q, "b2", "kb", store.ReplaceArgs, "v2")
	up.Priority = 1
	requireReplaced(t, enqueue(t, s, up)[0], "b", store.StateReady)
	if j := getJob(t, a, q, "b"); j.Priority != 1 || string(j.Args) != "v2" {
		t.Fatalf("after ReplaceArgs with priority 1: priority %d args %q, want 1 and v2", j.Priority, j.Args)
	}
	// A pending job takes its new priority with it when it falls due.
	pend := keyed(q, "d", "kd", 0, "v1")
	pend.Delay = long
	add(t, s, pend, job(q, "e"))
	now := keyed(q, "d2", "kd", store.ReplaceArgs|store.ReplaceRunAt, "v2")
	now.Priority = 3
	requireReplaced(t, enqueue(t, s, now)[0], "d", store.StateReady)
	got := ids(claim(t, s, q, 10, long).Jobs)
	if want := []string{"d", "a", "c", "b", "e"}; !slices.Equal(got, want) {
		t.Fatalf("claim after the replacements: %v, want %v", got, want)
	}
}

func testPriorityOutOfRange(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	for _, p := range []int{store.MinPriority - 1, store.MaxPriority + 1, 1 << 40} {
		_, err := s.Enqueue(t.Context(), []*store.NewJob{prioritized(q, "bad", p)})
		if !errors.Is(err, store.ErrInvalidJob) {
			t.Fatalf("Enqueue with Priority %d: %v, want ErrInvalidJob", p, err)
		}
	}
	requireNotFound(t, a, q, "bad", "no job with a priority out of range is stored")
}
