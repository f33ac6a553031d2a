package storetest

import (
	"slices"
	"testing"

	"github.com/hopperq/hopper/store"
)

func listCases() []adminCase {
	return []adminCase{
		{name: "Order", sub: listOrderCases()},
		{name: "Paging", fn: testListPaging},
		{name: "PagingNewest", fn: testListPagingNewest},
		{name: "TotalCountsState", fn: testListTotal},
		{name: "RefusesInvalid", fn: testListInvalid},
	}
}

// listOrder describes how to put jobs a, b and c into one state so that the
// state's order lists them as want, which differs from enqueue order and
// from ID order wherever the state's order allows.
type listOrder struct {
	name  string
	state store.JobState
	setup func(t *testing.T, s store.Store, q string)
	want  []string
}

func listOrderCases() []adminCase {
	orders := []listOrder{
		{"Pending", store.StatePending, func(t *testing.T, s store.Store, q string) {
			add(t, s, delayed(q, "a", 3*long), delayed(q, "b", long), delayed(q, "c", 2*long))
		}, []string{"b", "c", "a"}},
		{"Ready", store.StateReady, func(t *testing.T, s store.Store, q string) {
			for _, id := range []string{"c", "a", "b"} {
				add(t, s, job(q, id))
			}
		}, []string{"c", "a", "b"}},
		{"Unack", store.StateUnack, func(t *testing.T, s store.Store, q string) {
			add(t, s, job(q, "a"), job(q, "b"), job(q, "c"))
			claimOne(t, s, q, "a", 3*long)
			claimOne(t, s, q, "b", long)
			claimOne(t, s, q, "c", 2*long)
		}, []string{"b", "c", "a"}},
		{"Retry", store.StateRetry, func(t *testing.T, s store.Store, q string) {
			add(t, s, withRetries(q, "a", 1), withRetries(q, "b", 1), withRetries(q, "c", 1))
			cs := claim(t, s, q, 3, long).Jobs
			finishOK(t, s, failed(cs[0], store.OutcomeRetry, "x", 3*long), failed(cs[1], store.OutcomeRetry, "x", long), failed(cs[2], store.OutcomeRetry, "x", 2*long))
		}, []string{"b", "c", "a"}},
		{"Garbage", store.StateGarbage, func(t *testing.T, s store.Store, q string) {
			finishInOrder(t, s, q, func(c *store.JobRecord) store.AttemptEnd {
				return failed(c, store.OutcomeGarbage, "x", 0)
			})
		}, []string{"a", "b", "c"}},
		{"Done", store.StateDone, func(t *testing.T, s store.Store, q string) {
			finishInOrder(t, s, q, func(c *store.JobRecord) store.AttemptEnd {
				r := outcome(c, store.OutcomeAck)
				r.Retention = long
				return r
			})
		}, []string{"a", "b", "c"}},
	}
	var cases []adminCase
	for _, o := range orders {
		cases = append(cases, adminCase{name: o.name, fn: func(t *testing.T, s store.Store, a store.Admin) {
			q := newQueue(t)
			o.setup(t, s, q)
			p := list(t, a, store.ListJobsOpts{Queue: q, State: o.state})
			if !sameIDs(p.Jobs, o.want) || p.Total != 3 {
				t.Fatalf("ListJobs(%s): %v, Total %d; want %v, Total 3", o.state, ids(p.Jobs), p.Total, o.want)
			}
			newest := slices.Clone(o.want)
			slices.Reverse(newest)
			if p := list(t, a, store.ListJobsOpts{Queue: q, State: o.state, Newest: true}); !sameIDs(p.Jobs, newest) {
				t.Fatalf("ListJobs(%s, Newest): %v, want %v", o.state, ids(p.Jobs), newest)
			}
		}})
	}
	return cases
}

// finishInOrder enqueues c, b, a (so that they are claimed in that order)
// and finishes them one call at a time in the order a, b, c.
func finishInOrder(t *testing.T, s store.Store, q string, req func(*store.JobRecord) store.AttemptEnd) {
	t.Helper()
	for _, id := range []string{"c", "b", "a"} {
		add(t, s, job(q, id))
	}
	cs := claim(t, s, q, 3, long).Jobs
	if !sameIDs(cs, []string{"c", "b", "a"}) {
		t.Fatalf("Claim Max 3: got %v, want [c b a]", ids(cs))
	}
	for _, i := range []int{2, 1, 0} {
		finishOK(t, s, req(cs[i]))
	}
}

// readyJobs enqueues n ready jobs into q, one call each so that their order
// is well defined, and returns their IDs in enqueue order.
func readyJobs(t *testing.T, s store.Store, q string, n int, mutate func(i int, j *store.NewJob)) []string {
	t.Helper()
	names := seqIDs("j", n)
	for i, id := range names {
		j := job(q, id)
		if mutate != nil {
			mutate(i, j)
		}
		add(t, s, j)
	}
	return names
}

// pages lists state of q page by page and returns the IDs in order.
func pages(t *testing.T, a store.Admin, req store.ListJobsOpts, total int) []string {
	t.Helper()
	var got []string
	for off := 0; ; off += req.Limit {
		req.Offset = off
		p := list(t, a, req)
		if p.Total != total {
			t.Fatalf("ListJobs(Offset %d, Limit %d): Total %d, want %d", off, req.Limit, p.Total, total)
		}
		if want := min(req.Limit, max(total-off, 0)); len(p.Jobs) != want {
			t.Fatalf("ListJobs(Offset %d, Limit %d) of %d jobs: %d jobs, want %d", off, req.Limit, total, len(p.Jobs), want)
		}
		if len(p.Jobs) == 0 {
			return got
		}
		got = append(got, ids(p.Jobs)...)
	}
}

func testListPaging(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	want := readyJobs(t, s, q, 23, nil)
	got := pages(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 5}, 23)
	if !slices.Equal(got, want) {
		t.Fatalf("23 ready jobs listed 5 at a time: %v, want %v (no gaps, no repeats)", got, want)
	}
}

func testListPagingNewest(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	want := readyJobs(t, s, q, 12, nil)
	slices.Reverse(want)
	got := pages(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 5, Newest: true}, 12)
	if !slices.Equal(got, want) {
		t.Fatalf("12 ready jobs listed newest first 5 at a time: %v, want %v", got, want)
	}
}

func testListTotal(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	readyJobs(t, s, q, 4, nil)
	add(t, s, delayed(q, "pending", long))
	claimOne(t, s, q, "j0000", long)
	for st, want := range map[store.JobState]int{store.StateReady: 3, store.StateUnack: 1, store.StatePending: 1, store.StateGarbage: 0} {
		if p := list(t, a, store.ListJobsOpts{Queue: q, State: st, Limit: 1}); p.Total != want || len(p.Jobs) != min(want, 1) {
			t.Fatalf("ListJobs(%s, Limit 1): %d jobs, Total %d; want %d, Total %d", st, len(p.Jobs), p.Total, min(want, 1), want)
		}
	}
}
