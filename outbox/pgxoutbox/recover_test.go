package pgxoutbox_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// TestRelayWarnsWhatWasStored kills a running relay's database session
// after it stored a batch of two jobs, before it deleted their rows. Its
// warning says that the two jobs are already in the store and what the
// next batch does with them; it then resumes as soon as it reconnects,
// and the second store of both jobs is a duplicate.
func TestRelayWarnsWhatWasStored(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	cs := newCountingStore(e.store)
	e.ob = outbox.New(hopper.NewClient(cs, nil), nil)
	var once sync.Once
	cs.after = func() {
		once.Do(func() { killIdleInTx(t, e) })
	}
	tx, err := e.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := outbox.EnqueueMany(ctx, e.ob, tx, []Welcome{{User: 1}, {User: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rec := newLogRecorder()
	run(t, e.relay(t, &pgxoutbox.RelayConfig{Logger: slog.New(rec)}))

	w := rec.next(t, "relay batch failed")
	if w.Level != slog.LevelWarn || attr(w, "stored").Int64() != 2 {
		t.Fatalf("warning %q, stored=%v; want a warning with stored=2", w.Message, attr(w, "stored"))
	}
	for _, want := range []string{"after storing its jobs", "stores the jobs again under the same IDs", "is a duplicate", "Retention", "runs again"} {
		if !strings.Contains(w.Message, want) {
			t.Errorf("warning %q does not say %q", w.Message, want)
		}
	}
	if err := attr(w, "error").String(); !strings.Contains(err, "2 jobs already stored") {
		t.Errorf("warning's error %q does not count the stored jobs", err)
	}
	rec.next(t, "relay resumed")
	testutil.Eventually(t, testutil.Wait, func() error {
		if s := stats(t, e.relay(t, nil)); s.Depth != 0 {
			return errors.New("rows still in the outbox")
		}
		return nil
	})
	added, dups := cs.counts()
	for _, j := range jobs {
		if added[j.ID] != 1 {
			t.Errorf("job %s added %d times, want once", j.ID, added[j.ID])
		}
	}
	if dups != 2 {
		t.Errorf("%d duplicates, want both jobs once", dups)
	}
}

// TestRelayBacksOffWhileDatabaseUp: a failure that persists while
// PostgreSQL answers (the store down, the outbox table gone) is retried
// with a wait that grows each time, not at the short interval of an
// outage, so that it does not spin.
func TestRelayBacksOffWhileDatabaseUp(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T, e *env, cs *countingStore)
	}{
		{"store down", func(t *testing.T, e *env, cs *countingStore) {
			cs.setFail(errors.New("redis is down"))
			if _, err := outbox.Enqueue(context.Background(), e.ob, pgxoutbox.Tx(e.pool), Welcome{User: 1}, nil); err != nil {
				t.Fatal(err)
			}
		}},
		{"table gone", func(t *testing.T, e *env, _ *countingStore) {
			if _, err := e.pool.Exec(context.Background(), `ALTER TABLE hopper_outbox RENAME TO hopper_outbox_away`); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			cs := newCountingStore(e.store)
			e.ob = outbox.New(hopper.NewClient(cs, nil), nil)
			tc.break_(t, e, cs)
			rec := newLogRecorder()
			run(t, e.relay(t, &pgxoutbox.RelayConfig{Logger: slog.New(rec)}))
			var prev time.Duration
			for i := range 4 {
				w := rec.next(t, "relay batch failed; rows left in place")
				wait := attr(w, "retry_in").Duration()
				if wait <= prev {
					t.Fatalf("failure %d: retry in %v after %v; want a growing backoff", i+1, wait, prev)
				}
				prev = wait
			}
		})
	}
}
