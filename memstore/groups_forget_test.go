package memstore

import (
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// TestDrainedGroupsForgotten: once a grouped queue is drained (and, with a
// rate limit per group, its window passed and the Scheduler came by), the
// store keeps no state for its groups, so that with tenants coming and
// going its memory does not grow with every group ever seen.
func TestDrainedGroupsForgotten(t *testing.T) {
	for _, rated := range []bool{false, true} {
		t.Run(fmt.Sprint("rated=", rated), func(t *testing.T) {
			clock := newFakeClock(t0)
			s := New(&Config{Clock: clock.Now})
			ctx := t.Context()
			const period = 50 * time.Millisecond
			if rated {
				if err := s.SetQueueConfig(ctx, "q", store.QueueConfig{GroupRateLimit: 10000, GroupRatePeriod: period}); err != nil {
					t.Fatal(err)
				}
			}
			var jobs []*store.NewJob
			for i := range 1000 {
				jobs = append(jobs, &store.NewJob{ID: fmt.Sprintf("j%05d", i), Queue: "q", Kind: "k", Args: []byte("x"), JobSpec: store.JobSpec{Group: "g" + strconv.Itoa(i%200)}})
			}
			if _, err := s.Enqueue(ctx, jobs); err != nil {
				t.Fatal(err)
			}
			for done := 0; done < len(jobs); {
				res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 32, Lease: time.Minute, WorkerID: "w"})
				if err != nil || len(res.Jobs) == 0 {
					t.Fatalf("claim after %d: %d jobs, %v", done, len(res.Jobs), err)
				}
				var reqs []store.AttemptEnd
				for _, j := range res.Jobs {
					reqs = append(reqs, store.AttemptEnd{Queue: "q", ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck})
				}
				if _, err := s.Finish(ctx, reqs); err != nil {
					t.Fatal(err)
				}
				done += len(res.Jobs)
			}
			// A claim counts for the period and its guard, in whole ms.
			clock.Advance((store.QueueConfig{GroupRateLimit: 1, GroupRatePeriod: period}).GroupRate().Window + time.Millisecond)
			if _, err := s.Maintain(ctx, "q", store.MaintainOpts{}); err != nil {
				t.Fatal(err)
			}
			q := s.lookup("q")
			q.mu.Lock()
			n := len(q.ready.groups)
			q.mu.Unlock()
			if n != 0 {
				t.Fatalf("after the drain the store keeps the state of %d groups, want none", n)
			}
		})
	}
}
