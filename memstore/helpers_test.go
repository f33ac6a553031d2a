package memstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// t0 is a start time with a sub-millisecond part, to check truncation.
var t0 = time.Date(2030, 1, 2, 3, 4, 5, 123_456_789, time.UTC)

// newClocked returns a store on a fake clock starting at t0.
func newClocked() (*Store, *fakeClock) {
	c := newFakeClock(t0)
	return New(&Config{Clock: c.Now}), c
}

const testQueue = "q"

func newJob(id string) *store.NewJob {
	return &store.NewJob{ID: id, Queue: testQueue, Kind: "k", Args: []byte("args-" + id)}
}

func mustEnqueue(t testing.TB, s *Store, jobs ...*store.NewJob) []store.EnqueueResult {
	t.Helper()
	res, err := s.Enqueue(context.Background(), jobs)
	if err != nil {
		t.Fatalf("Enqueue: %v", err)
	}
	return res
}

func claim(t testing.TB, s *Store, max int, lease time.Duration) store.ClaimResult {
	t.Helper()
	res, err := s.Claim(context.Background(), store.ClaimOpts{Queue: testQueue, Max: max, Lease: lease, WorkerID: "w"})
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return res
}

func ids(recs []*store.JobRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

func maintain(t testing.TB, s *Store, opts store.MaintainOpts) store.MaintainResult {
	t.Helper()
	res, err := s.Maintain(context.Background(), testQueue, opts)
	if err != nil {
		t.Fatalf("Maintain: %v", err)
	}
	return res
}

func getJob(t testing.TB, s *Store, id string) *store.JobRecord {
	t.Helper()
	r, err := s.GetJob(context.Background(), testQueue, id)
	if err != nil {
		t.Fatalf("GetJob(%s): %v", id, err)
	}
	return r
}

func finish(t testing.TB, s *Store, reqs ...store.AttemptEnd) []error {
	t.Helper()
	errs, err := s.Finish(context.Background(), reqs)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return errs
}

// returns fails the test unless done is closed within 10 seconds.
func returns(t testing.TB, what string, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return", what)
	}
}
