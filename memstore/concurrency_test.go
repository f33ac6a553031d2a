package memstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func TestConcurrentClaimsNeverShareAJob(t *testing.T) {
	const jobs, claimers = 3000, 8
	s := New(nil)
	for i := 0; i < jobs; i += 100 {
		batch := make([]*store.NewJob, 100)
		for k := range batch {
			batch[k] = newJob(fmt.Sprint(i + k))
		}
		mustEnqueue(t, s, batch...)
	}
	var (
		mu     sync.Mutex
		got    = make(map[string]int)
		claims = make(map[string]bool) // "ID/token": one claim of one job
		wg     sync.WaitGroup
	)
	for w := range claimers {
		wg.Go(func() {
			for {
				res, err := s.Claim(context.Background(), store.ClaimOpts{Queue: testQueue, Max: 1 + w%5, Lease: time.Minute})
				if err != nil {
					t.Error(err)
					return
				}
				if len(res.Jobs) == 0 {
					return
				}
				mu.Lock()
				for _, j := range res.Jobs {
					got[j.ID]++
					c := fmt.Sprintf("%s/%d", j.ID, j.Token)
					if claims[c] {
						t.Errorf("job %s claimed twice with token %d", j.ID, j.Token)
					}
					claims[c] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(got) != jobs {
		t.Fatalf("claimed %d distinct jobs, want %d", len(got), jobs)
	}
	for id, n := range got {
		if n != 1 {
			t.Fatalf("job %s claimed %d times", id, n)
		}
	}
}

// TestConcurrentLifecycle runs producers, workers that sleep in WaitReady and
// a scheduler at once over two queues; every job must be acked exactly once.
// A lost wakeup leaves a worker asleep for an hour and fails the test on its
// deadline.
func TestConcurrentLifecycle(t *testing.T) {
	const perQueue, producers, workers = 500, 4, 6
	queues := []string{"a", "b"}
	s := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	var acked atomic.Int64
	var seen sync.Map
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := p; i < perQueue; i += producers {
				for _, q := range queues {
					j := &store.NewJob{ID: fmt.Sprint(i), Queue: q, Kind: "k", JobSpec: store.JobSpec{MaxRetries: 3}}
					if i%7 == 0 {
						j.Delay = time.Millisecond
					}
					if _, err := s.Enqueue(ctx, []*store.NewJob{j}); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	wg.Go(func() { // scheduler
		for ctx.Err() == nil {
			for _, q := range queues {
				if _, err := s.Maintain(ctx, q, store.MaintainOpts{Batch: 10}); err != nil && ctx.Err() == nil {
					t.Error(err)
				}
			}
			_, _ = s.WaitSchedule(ctx, queues, 5*time.Millisecond)
		}
	})
	for w := range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				claimed := 0
				for _, q := range queues {
					res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1 + w%3, Lease: time.Minute})
					if err != nil {
						return // ctx cancelled
					}
					claimed += len(res.Jobs)
					var reqs []store.AttemptEnd
					for _, j := range res.Jobs {
						out := store.OutcomeAck
						if j.Attempt == 1 && j.ID[len(j.ID)-1] == '3' {
							out = store.OutcomeRetry // retried once, at once
						}
						reqs = append(reqs, store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: out})
					}
					errs, err := s.Finish(ctx, reqs)
					if err != nil {
						return
					}
					for i, e := range errs {
						if e != nil {
							t.Error(e)
						}
						if reqs[i].Outcome == store.OutcomeAck {
							if _, dup := seen.LoadOrStore(q+"/"+reqs[i].ID, true); dup {
								t.Errorf("%s/%s acked twice", q, reqs[i].ID)
							}
							acked.Add(1)
						}
					}
				}
				if claimed == 0 {
					_, _ = s.WaitReady(ctx, queues, forever)
				}
			}
		})
	}
	testutil.EventuallyTrue(t, testutil.Wait, "every job to be acked", func() bool { return acked.Load() == perQueue*int64(len(queues)) })
	cancel()
	wg.Wait()
	for _, q := range queues {
		st, err := s.GetQueueStats(context.Background(), q)
		if err != nil || st.Counts.Total() != 0 {
			t.Fatalf("%s: %+v %v, want empty", q, st.Counts, err)
		}
	}
}
