package memstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

func listIDs(t *testing.T, s *Store, req hopper.ListRequest) ([]string, hopper.JobPage) {
	t.Helper()
	req.Queue = testQueue
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
	var jobs []*hopper.NewJob
	var want []string
	for i := range 300 {
		j := newJob(fmt.Sprintf("p%03d", i))
		j.Delay = time.Duration((i*37)%300+1) * time.Second
		if i%2 == 0 {
			j.Kind = "even"
		}
		jobs = append(jobs, j)
	}
	mustEnqueue(t, s, jobs...)
	byDue := slices.Clone(jobs)
	slices.SortFunc(byDue, func(a, b *hopper.NewJob) int { return int(a.Delay - b.Delay) })
	for _, j := range byDue {
		want = append(want, j.ID)
	}
	newest := slices.Clone(want)
	slices.Reverse(newest)

	for _, tt := range []struct {
		req  hopper.ListRequest
		want []string
	}{
		{hopper.ListRequest{Limit: 5}, want[:5]},
		{hopper.ListRequest{Offset: 295, Limit: 10}, want[295:]},
		{hopper.ListRequest{Offset: 100, Limit: 200}, want[100:300]},
		{hopper.ListRequest{Newest: true, Limit: 3}, newest[:3]},
		{hopper.ListRequest{Newest: true, Offset: 10, Limit: 2}, newest[10:12]},
		{hopper.ListRequest{}, want[:50]},
		{hopper.ListRequest{Offset: 1000}, nil},
	} {
		tt.req.State = hopper.StatePending
		got, page := listIDs(t, s, tt.req)
		if !slices.Equal(got, tt.want) || page.Total != 300 || page.Truncated {
			t.Fatalf("%+v: got %v (total %d), want %v", tt.req, got, page.Total, tt.want)
		}
	}

	var even []string
	for _, id := range want {
		if n := id[1:]; (n[2]-'0')%2 == 0 {
			even = append(even, id)
		}
	}
	got, page := listIDs(t, s, hopper.ListRequest{State: hopper.StatePending, Kind: "even", Offset: 2, Limit: 3})
	if !slices.Equal(got, even[2:5]) || page.Total != 150 || page.Truncated {
		t.Fatalf("kind filter: %v total %d, want %v total 150", got, page.Total, even[2:5])
	}
	// Match may call back into the store; ScanLimit bounds the scan.
	match := func(r *hopper.JobRecord) bool {
		_, err := s.GetJob(context.Background(), testQueue, r.ID)
		return err == nil && r.ID < "p100"
	}
	got, page = listIDs(t, s, hopper.ListRequest{State: hopper.StatePending, Match: match, ScanLimit: 30, Limit: 1000})
	var wantMatch []string
	for _, id := range want[:30] {
		if id < "p100" {
			wantMatch = append(wantMatch, id)
		}
	}
	if !slices.Equal(got, wantMatch) || page.Total != len(wantMatch) || !page.Truncated {
		t.Fatalf("match: %v total %d truncated %v, want %v", got, page.Total, page.Truncated, wantMatch)
	}
}

func TestListJobsReadyAndDoneOrders(t *testing.T) {
	s, clock := newClocked()
	mustEnqueue(t, s, newJob("a"), newJob("b"), newJob("c"), newJob("d"))
	if got, _ := listIDs(t, s, hopper.ListRequest{State: hopper.StateReady, Newest: true, Offset: 1}); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Fatalf("ready newest %v", got)
	}
	// Done jobs list by finish time even when their retentions end in
	// another order.
	for i, keep := range []time.Duration{time.Hour, time.Minute, time.Second} {
		c := claim(t, s, 1, time.Minute).Jobs[0]
		finish(t, s, hopper.FinishRequest{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: hopper.OutcomeAck, Retention: keep})
		clock.Advance(time.Duration(i+1) * time.Millisecond)
	}
	if got, _ := listIDs(t, s, hopper.ListRequest{State: hopper.StateDone}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("done %v, want by finish time", got)
	}
	if got, _ := listIDs(t, s, hopper.ListRequest{State: hopper.StateDone, Newest: true}); !slices.Equal(got, []string{"c", "b", "a"}) {
		t.Fatalf("done newest %v", got)
	}
	if _, err := s.ListJobs(context.Background(), hopper.ListRequest{Queue: testQueue, State: "dead"}); !errors.Is(err, hopper.ErrInvalidState) {
		t.Fatalf("bad state: %v", err)
	}
}
