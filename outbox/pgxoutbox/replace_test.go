package pgxoutbox_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/store"
)

// resultStore records what the store answered for each job ID, last
// answer first.
type resultStore struct {
	hopper.Store
	mu      sync.Mutex
	results map[string]store.EnqueueResult
}

func (s *resultStore) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	res, err := s.Store.Enqueue(ctx, jobs)
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range res {
		s.results[jobs[i].ID] = res[i]
	}
	return res, err
}

func (s *resultStore) result(id string) store.EnqueueResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.results[id]
}

// TestRelayReplaces: a job written to the outbox with Replace: ReplaceArgs
// changes the waiting job that holds its ID once the relay moves it, as
// Enqueue does: the store reports Replaced and the job has the new args.
// (PreparedJob's format had no Replace, so the relay enqueued a plain
// duplicate, dropped.)
func TestRelayReplaces(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	rs := &resultStore{Store: e.store, results: map[string]store.EnqueueResult{}}
	e.ob = outbox.New(hopper.NewClient(rs, nil), nil)
	opts := &hopper.EnqueueOpts{ID: "welcome-7", Queue: "mail", Delay: time.Hour}
	if _, err := hopper.Enqueue(ctx, e.ob.Client(), Welcome{User: 1}, opts); err != nil {
		t.Fatal(err)
	}
	replace := *opts
	replace.Replace = hopper.ReplaceArgs
	direct, err := hopper.Enqueue(ctx, e.ob.Client(), Welcome{User: 2}, &replace)
	if err != nil || !direct.Replaced {
		t.Fatalf("Enqueue with ReplaceArgs = %+v, %v; want Replaced", direct, err)
	}

	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outbox.Enqueue(ctx, e.ob, tx, Welcome{User: 3}, &replace); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, err := e.relay(t, nil).Flush(ctx); err != nil || n != 1 {
		t.Fatalf("Flush = %d, %v; want 1 row", n, err)
	}
	if res := rs.result("welcome-7"); !res.Duplicate || !res.Replaced || res.State != hopper.StatePending {
		t.Fatalf("the store answered the relayed job with %+v, want Replaced (pending), as Enqueue got", res)
	}
	rec := getJob(t, e.store, "mail", "welcome-7")
	var got Welcome
	if rec == nil || msgpack.Unmarshal(rec.Args, &got) != nil || got.User != 3 {
		t.Fatalf("job after the relay: %+v, args %+v; want the outbox's (user 3)", rec, got)
	}
}
