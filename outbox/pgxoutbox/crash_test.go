package pgxoutbox_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// TestRelayDiesBeforeCommit kills the relay's database session right after
// the store call, before the rows are deleted: the relay dies in the one
// window where a job is in the store and its row still in the outbox. The
// jobs run; then another batch stores the rows again. The job kept for its
// Retention is a duplicate; the job without one had left the store and is
// added again: it runs again, as the package documents.
func TestRelayDiesBeforeCommit(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	cs := newCountingStore(e.store)
	e.ob = outbox.New(hopper.NewClient(cs, nil), nil)
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	db := pgxoutbox.Tx(tx)
	kept, err := outbox.Enqueue(ctx, e.ob, db, Welcome{User: 1}, &hopper.EnqueueOpts{Retention: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := outbox.Enqueue(ctx, e.ob, db, Welcome{User: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	cs.mu.Lock()
	cs.after = func() {
		killIdleInTx(t, e)
	}
	cs.mu.Unlock()
	r := e.relay(t, nil)
	if _, err := r.Flush(ctx); err == nil || !strings.Contains(err.Error(), "2 jobs already stored") {
		t.Fatalf("Flush with its session killed before commit = %v; want an error saying both jobs are already stored", err)
	}
	if s := stats(t, r); s.Depth != 2 {
		t.Fatalf("stats %+v, want both rows left", s)
	}
	cs.mu.Lock()
	cs.after = nil
	cs.mu.Unlock()

	log := newRunLog()
	w := hopper.NewWorker(e.store, &hopper.WorkerConfig{Logger: testutil.Logger()})
	hopper.Handle(w, log.handle)
	if n, err := w.Drain(ctx); err != nil || n != 2 {
		t.Fatalf("Drain = %d, %v", n, err)
	}
	if n, err := r.Flush(ctx); err != nil || n != 2 {
		t.Fatalf("Flush after the crash = %d, %v", n, err)
	}
	added, dups := cs.counts()
	if added[kept.ID] != 1 || added[plain.ID] != 2 || dups != 1 {
		t.Fatalf("added %v, %d duplicates; want the retained job once (then a duplicate), the other twice", added, dups)
	}
	if n, err := w.Drain(ctx); err != nil || n != 1 {
		t.Fatalf("Drain after the second relay = %d, %v; want the job without retention again", n, err)
	}
}
