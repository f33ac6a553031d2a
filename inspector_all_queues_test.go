package hopper_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// toRetry moves the one ready job of queue to retry, due in delay.
func toRetry(t *testing.T, s hopper.Store, queue string, delay time.Duration) {
	t.Helper()
	res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: queue, Max: 1, Lease: time.Hour, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("Claim(%s): %v, %v", queue, res.Jobs, err)
	}
	j := res.Jobs[0]
	errs, err := s.Finish(t.Context(), []store.AttemptEnd{{Queue: queue, ID: j.ID, Token: j.Token, Outcome: hopper.OutcomeRetry, Delay: delay,
		Error: &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: "boom " + j.ID}}})
	if err != nil || errs[0] != nil {
		t.Fatalf("Finish(%s): %v %v", j.ID, err, errs)
	}
}

// Every queue's retries in one list, merged by when each is due, paged
// and filtered across queues: what the dashboard's Retries page shows.
func TestInspectorListJobsAllQueues(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		ins := hopper.NewInspector(s)
		// Six jobs over three queues, due in an order that interleaves
		// the queues; a fourth queue has only ready jobs.
		due := []struct {
			queue string
			in    time.Duration
		}{{"b", 1}, {"a", 2}, {"c", 3}, {"a", 4}, {"b", 5}, {"a", 6}}
		var want []string
		for i, d := range due {
			id := fmt.Sprintf("%s-%d", d.queue, i)
			kind := "even"
			if i%2 == 1 {
				kind = "odd"
			}
			if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: id, Queue: d.queue, Kind: kind, Args: []byte{0x80}}}); err != nil {
				t.Fatal(err)
			}
			toRetry(t, s, d.queue, d.in*time.Hour)
			want = append(want, id)
		}
		addJobs(t, s, "idle", 3, nil)

		list := func(o hopper.AllQueuesOpts) hopper.AllQueuesPage {
			t.Helper()
			p, err := ins.ListJobsAllQueues(ctx, o)
			if err != nil {
				t.Fatalf("ListJobsAllQueues(%+v): %v", o, err)
			}
			return p
		}
		ids := func(p hopper.AllQueuesPage) []string {
			var out []string
			for _, j := range p.Jobs {
				out = append(out, j.ID)
			}
			return out
		}

		p := list(hopper.AllQueuesOpts{State: hopper.StateRetry})
		if !slices.Equal(ids(p), want) || p.Total != 6 {
			t.Fatalf("every retry: %v, Total %d; want %v (by due time across queues), 6", ids(p), p.Total, want)
		}
		wantQueues := []hopper.QueueCount{{Queue: "a", Count: 3}, {Queue: "b", Count: 2}, {Queue: "c", Count: 1}}
		if !slices.Equal(p.Queues, wantQueues) {
			t.Fatalf("Queues = %v, want %v (only queues with retries)", p.Queues, wantQueues)
		}
		if p := list(hopper.AllQueuesOpts{State: hopper.StateRetry, Offset: 2, Limit: 3}); !slices.Equal(ids(p), want[2:5]) {
			t.Fatalf("Offset 2, Limit 3: %v, want %v", ids(p), want[2:5])
		}
		rev := slices.Clone(want)
		slices.Reverse(rev)
		if p := list(hopper.AllQueuesOpts{State: hopper.StateRetry, Newest: true, Limit: 2}); !slices.Equal(ids(p), rev[:2]) {
			t.Fatalf("Newest, Limit 2: %v, want %v", ids(p), rev[:2])
		}
		if p := list(hopper.AllQueuesOpts{State: hopper.StateRetry, Kind: "odd"}); !slices.Equal(ids(p), []string{want[1], want[3], want[5]}) || p.Total != 3 {
			t.Fatalf("Kind odd: %v, Total %d; want %v, 3", ids(p), p.Total, []string{want[1], want[3], want[5]})
		}
		byID := func(j *hopper.JobRecord) bool { return strings.HasPrefix(j.ID, "a-") }
		if p := list(hopper.AllQueuesOpts{State: hopper.StateRetry, Match: byID, Offset: 1}); !slices.Equal(ids(p), []string{want[3], want[5]}) || p.Total != 3 {
			t.Fatalf("Match a-*, Offset 1: %v, Total %d; want %v, 3", ids(p), p.Total, []string{want[3], want[5]})
		}
		if p := list(hopper.AllQueuesOpts{State: hopper.StateGarbage}); len(p.Jobs) != 0 || p.Total != 0 || len(p.Queues) != 0 {
			t.Fatalf("garbage, empty everywhere: %v, Total %d, Queues %v; want nothing", ids(p), p.Total, p.Queues)
		}
		if p := list(hopper.AllQueuesOpts{State: hopper.StateRetry, Offset: 900}); len(p.Jobs) != 0 || p.Total != 6 {
			t.Fatalf("past the end: %v, Total %d; want no job, Total 6", ids(p), p.Total)
		}

		for _, bad := range []hopper.AllQueuesOpts{
			{State: "nope"},
			{State: hopper.StateRetry, Offset: -1},
			{State: hopper.StateRetry, Offset: 990, Limit: 50},
		} {
			if _, err := ins.ListJobsAllQueues(ctx, bad); err == nil {
				t.Errorf("ListJobsAllQueues(%+v) = nil error, want one", bad)
			}
		}
	})
}

func TestInspectorListJobsAllQueuesWithoutAdmin(t *testing.T) {
	_, err := hopper.NewInspector(engineOnly{newStore()}).ListJobsAllQueues(t.Context(), hopper.AllQueuesOpts{State: hopper.StateRetry})
	if !errors.Is(err, hopper.ErrNotSupported) {
		t.Fatalf("on an engine-only store: %v, want ErrNotSupported", err)
	}
}
