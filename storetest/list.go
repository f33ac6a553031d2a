package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

func listCases() []testCase {
	return []testCase{
		{name: "Order", sub: listOrderCases()},
		{name: "Paging", fn: testListPaging},
		{name: "PagingNewest", fn: testListPagingNewest},
		{name: "DefaultLimit", fn: testListDefaultLimit},
		{name: "TotalCountsState", fn: testListTotal},
		{name: "KindFilter", fn: testListKind},
		{name: "MatchFilter", fn: testListMatch},
		{name: "ScanLimit", fn: testListScanLimit},
		{name: "InvalidState", fn: testListInvalidState},
	}
}

// list calls Store.ListJobs or fails the test.
func list(t *testing.T, s hopper.Store, req hopper.ListRequest) hopper.JobPage {
	t.Helper()
	p, err := s.ListJobs(t.Context(), req)
	if err != nil {
		t.Fatalf("ListJobs(%+v): unexpected error: %v", req, err)
	}
	for _, j := range p.Jobs {
		if j.State != req.State || j.Queue != req.Queue {
			t.Fatalf("ListJobs of %s in %q returned job %q in state %s of queue %q", req.State, req.Queue, j.ID, j.State, j.Queue)
		}
	}
	return p
}

// listOrder describes how to put jobs a, b and c into one state so that the
// state's order lists them as want, which differs from enqueue order and
// from ID order wherever the state's order allows.
type listOrder struct {
	name  string
	state hopper.JobState
	setup func(t *testing.T, s hopper.Store, q string)
	want  []string
}

func listOrderCases() []testCase {
	orders := []listOrder{
		{"Pending", hopper.StatePending, func(t *testing.T, s hopper.Store, q string) {
			add(t, s, delayed(q, "a", 3*long), delayed(q, "b", long), delayed(q, "c", 2*long))
		}, []string{"b", "c", "a"}},
		{"Ready", hopper.StateReady, func(t *testing.T, s hopper.Store, q string) {
			for _, id := range []string{"c", "a", "b"} {
				add(t, s, job(q, id))
			}
		}, []string{"c", "a", "b"}},
		{"Unack", hopper.StateUnack, func(t *testing.T, s hopper.Store, q string) {
			add(t, s, job(q, "a"), job(q, "b"), job(q, "c"))
			claimOne(t, s, q, "a", 3*long)
			claimOne(t, s, q, "b", long)
			claimOne(t, s, q, "c", 2*long)
		}, []string{"b", "c", "a"}},
		{"Retry", hopper.StateRetry, func(t *testing.T, s hopper.Store, q string) {
			add(t, s, withRetries(q, "a", 1), withRetries(q, "b", 1), withRetries(q, "c", 1))
			cs := claim(t, s, q, 3, long).Jobs
			finishOK(t, s, failed(cs[0], hopper.OutcomeRetry, "x", 3*long), failed(cs[1], hopper.OutcomeRetry, "x", long), failed(cs[2], hopper.OutcomeRetry, "x", 2*long))
		}, []string{"b", "c", "a"}},
		{"Garbage", hopper.StateGarbage, func(t *testing.T, s hopper.Store, q string) {
			finishInOrder(t, s, q, func(c *hopper.JobRecord) hopper.FinishRequest {
				return failed(c, hopper.OutcomeGarbage, "x", 0)
			})
		}, []string{"a", "b", "c"}},
		{"Done", hopper.StateDone, func(t *testing.T, s hopper.Store, q string) {
			finishInOrder(t, s, q, func(c *hopper.JobRecord) hopper.FinishRequest {
				r := outcome(c, hopper.OutcomeAck)
				r.Retention = long
				return r
			})
		}, []string{"a", "b", "c"}},
	}
	var cases []testCase
	for _, o := range orders {
		cases = append(cases, testCase{name: o.name, fn: func(t *testing.T, s hopper.Store) {
			q := newQueue(t)
			o.setup(t, s, q)
			p := list(t, s, hopper.ListRequest{Queue: q, State: o.state})
			if !sameIDs(p.Jobs, o.want) || p.Total != 3 {
				t.Fatalf("ListJobs(%s): %v, Total %d; want %v, Total 3", o.state, ids(p.Jobs), p.Total, o.want)
			}
			newest := slices.Clone(o.want)
			slices.Reverse(newest)
			if p := list(t, s, hopper.ListRequest{Queue: q, State: o.state, Newest: true}); !sameIDs(p.Jobs, newest) {
				t.Fatalf("ListJobs(%s, Newest): %v, want %v", o.state, ids(p.Jobs), newest)
			}
		}})
	}
	return cases
}

// finishInOrder enqueues c, b, a (so that they are claimed in that order)
// and finishes them one call at a time in the order a, b, c.
func finishInOrder(t *testing.T, s hopper.Store, q string, req func(*hopper.JobRecord) hopper.FinishRequest) {
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
func readyJobs(t *testing.T, s hopper.Store, q string, n int, mutate func(i int, j *hopper.NewJob)) []string {
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
func pages(t *testing.T, s hopper.Store, req hopper.ListRequest, total int) []string {
	t.Helper()
	var got []string
	for off := 0; ; off += req.Limit {
		req.Offset = off
		p := list(t, s, req)
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

func testListPaging(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	want := readyJobs(t, s, q, 23, nil)
	got := pages(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Limit: 5}, 23)
	if !slices.Equal(got, want) {
		t.Fatalf("23 ready jobs listed 5 at a time: %v, want %v (no gaps, no repeats)", got, want)
	}
}

func testListPagingNewest(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	want := readyJobs(t, s, q, 12, nil)
	slices.Reverse(want)
	got := pages(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Limit: 5, Newest: true}, 12)
	if !slices.Equal(got, want) {
		t.Fatalf("12 ready jobs listed newest first 5 at a time: %v, want %v", got, want)
	}
}

func testListDefaultLimit(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	var jobs []*hopper.NewJob
	for _, id := range seqIDs("j", 60) {
		jobs = append(jobs, delayed(q, id, long))
	}
	add(t, s, jobs...)
	if p := list(t, s, hopper.ListRequest{Queue: q, State: hopper.StatePending}); len(p.Jobs) != 50 || p.Total != 60 {
		t.Fatalf("ListJobs with Limit 0 over 60 jobs: %d jobs, Total %d; want 50 (the default), Total 60", len(p.Jobs), p.Total)
	}
}

func testListTotal(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	readyJobs(t, s, q, 4, nil)
	add(t, s, delayed(q, "pending", long))
	claimOne(t, s, q, "j0000", long)
	for st, want := range map[hopper.JobState]int{hopper.StateReady: 3, hopper.StateUnack: 1, hopper.StatePending: 1, hopper.StateGarbage: 0} {
		if p := list(t, s, hopper.ListRequest{Queue: q, State: st, Limit: 1}); p.Total != want || len(p.Jobs) != min(want, 1) {
			t.Fatalf("ListJobs(%s, Limit 1): %d jobs, Total %d; want %d, Total %d", st, len(p.Jobs), p.Total, min(want, 1), want)
		}
	}
}

func testListKind(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	names := readyJobs(t, s, q, 10, func(i int, j *hopper.NewJob) { j.Kind = fmt.Sprint("kind", i%2) })
	var odd []string
	for i, id := range names {
		if i%2 == 1 {
			odd = append(odd, id)
		}
	}
	p := list(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Kind: "kind1"})
	if !sameIDs(p.Jobs, odd) || p.Total != 5 {
		t.Fatalf("ListJobs(Kind kind1): %v, Total %d; want %v, Total 5", ids(p.Jobs), p.Total, odd)
	}
	p = list(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Kind: "kind1", Offset: 2, Limit: 2})
	if !sameIDs(p.Jobs, odd[2:4]) || p.Total != 5 {
		t.Fatalf("ListJobs(Kind kind1, Offset 2, Limit 2): %v, Total %d; want %v (Offset counts matches), Total 5", ids(p.Jobs), p.Total, odd[2:4])
	}
	if p := list(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Kind: "nope"}); len(p.Jobs) != 0 || p.Total != 0 {
		t.Fatalf("ListJobs(Kind nope): %v, Total %d; want nothing", ids(p.Jobs), p.Total)
	}
}

func testListMatch(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	names := readyJobs(t, s, q, 12, func(i int, j *hopper.NewJob) {
		if i%3 == 0 {
			j.Args = []byte("needle")
		}
	})
	var want []string
	for i, id := range names {
		if i%3 == 0 {
			want = append(want, id)
		}
	}
	match := func(j *hopper.JobRecord) bool { return strings.Contains(string(j.Args), "needle") }
	p := list(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Match: match})
	if !sameIDs(p.Jobs, want) || p.Total != 4 {
		t.Fatalf("ListJobs(Match args contain needle): %v, Total %d; want %v, Total 4", ids(p.Jobs), p.Total, want)
	}
	p = list(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Match: match, Offset: 1, Limit: 2, Newest: true})
	if w := []string{want[2], want[1]}; !sameIDs(p.Jobs, w) || p.Total != 4 {
		t.Fatalf("ListJobs(Match, Offset 1, Limit 2, Newest): %v, Total %d; want %v, Total 4", ids(p.Jobs), p.Total, w)
	}
}

func testListScanLimit(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	readyJobs(t, s, q, 20, nil)
	all := func(*hopper.JobRecord) bool { return true }
	p := list(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Match: all, ScanLimit: 5, Limit: 50})
	if !p.Truncated || p.Total != 5 || len(p.Jobs) != 5 {
		t.Fatalf("ListJobs(Match all, ScanLimit 5) over 20 jobs: %d jobs, Total %d, Truncated %v; want 5, 5, true", len(p.Jobs), p.Total, p.Truncated)
	}
	p = list(t, s, hopper.ListRequest{Queue: q, State: hopper.StateReady, Match: all, ScanLimit: 100})
	if p.Truncated || p.Total != 20 {
		t.Fatalf("ListJobs(Match all, ScanLimit 100) over 20 jobs: Total %d, Truncated %v; want 20, false", p.Total, p.Truncated)
	}
}

func testListInvalidState(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	for _, st := range []hopper.JobState{"", "bogus", "READY"} {
		_, err := s.ListJobs(t.Context(), hopper.ListRequest{Queue: q, State: st})
		requireErrIs(t, fmt.Sprintf("ListJobs(State %q)", st), err, hopper.ErrInvalidState)
	}
}
