package memstore

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func listIDs(t *testing.T, s *Store, req store.ListJobsOpts) ([]string, store.JobPage) {
	t.Helper()
	req.Queue = testQueue
	if req.Limit == 0 {
		req.Limit = 50
	}
	page, err := s.ListJobs(context.Background(), req)
	if err != nil {
		t.Fatalf("ListJobs(%+v): %v", req, err)
	}
	return ids(page.Jobs), page
}

func TestListJobsOrderAndPaging(t *testing.T) {
	s, _ := newClocked()
	// 300 pending jobs due in an order unrelated to their IDs, so that
	// both the full sort and the bounded selection are used.
	var jobs []*store.NewJob
	var want []string
	for i := range 300 {
		j := newJob(fmt.Sprintf("p%03d", i))
		j.Delay = time.Duration((i*37)%300+1) * time.Second
		jobs = append(jobs, j)
	}
	mustEnqueue(t, s, jobs...)
	byDue := slices.Clone(jobs)
	slices.SortFunc(byDue, func(a, b *store.NewJob) int { return int(a.Delay - b.Delay) })
	for _, j := range byDue {
		want = append(want, j.ID)
	}
	newest := slices.Clone(want)
	slices.Reverse(newest)

	for _, tt := range []struct {
		req  store.ListJobsOpts
		want []string
	}{
		{store.ListJobsOpts{Limit: 5}, want[:5]},
		{store.ListJobsOpts{Offset: 295, Limit: 10}, want[295:]},
		{store.ListJobsOpts{Offset: 100, Limit: 200}, want[100:300]},
		{store.ListJobsOpts{Newest: true, Limit: 3}, newest[:3]},
		{store.ListJobsOpts{Newest: true, Offset: 10, Limit: 2}, newest[10:12]},
		{store.ListJobsOpts{Limit: 50}, want[:50]},
		{store.ListJobsOpts{Offset: 1000, Limit: 50}, nil},
	} {
		tt.req.State = store.StatePending
		got, page := listIDs(t, s, tt.req)
		if !slices.Equal(got, tt.want) || page.Total != 300 {
			t.Fatalf("%+v: got %v (total %d), want %v", tt.req, got, page.Total, tt.want)
		}
	}

}

func TestListJobsReadyAndDoneOrders(t *testing.T) {
	s, clock := newClocked()
	mustEnqueue(t, s, newJob("a"), newJob("b"), newJob("c"), newJob("d"))
	if got, _ := listIDs(t, s, store.ListJobsOpts{State: store.StateReady, Newest: true, Offset: 1}); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Fatalf("ready newest %v", got)
	}
	// Done jobs list by finish time even when their retentions end in
	// another order.
	for i, keep := range []time.Duration{time.Hour, time.Minute, time.Second} {
		c := claim(t, s, 1, time.Minute).Jobs[0]
		finish(t, s, store.AttemptEnd{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: store.OutcomeAck, Retention: keep})
		clock.Advance(time.Duration(i+1) * time.Millisecond)
	}
	if got, _ := listIDs(t, s, store.ListJobsOpts{State: store.StateDone}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("done %v, want by finish time", got)
	}
	if got, _ := listIDs(t, s, store.ListJobsOpts{State: store.StateDone, Newest: true}); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Fatalf("done newest %v", got)
	}
}
