package pgxoutbox_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/outbox"
	"github.com/hopperq/hopper/outbox/pgxoutbox"
)

// TestFourRelaysNoDoubles runs four relays on one outbox while four
// writers commit 20,000 jobs: the store is asked to add each job exactly
// once, and never sees a duplicate (no row is relayed twice).
func TestFourRelaysNoDoubles(t *testing.T) {
	total := 20000
	if testing.Short() {
		total = 4000
	}
	const writers, perTx = 4, 50
	ctx := context.Background()
	e := newEnv(t)
	cs := newCountingStore(e.store)
	e.ob = outbox.New(hopper.NewClient(cs, nil), nil)
	relays := make([]*pgxoutbox.Relay, 4)
	for i := range relays {
		relays[i] = e.relay(t, &pgxoutbox.RelayConfig{BatchSize: 100})
		run(t, relays[i])
	}
	var mu sync.Mutex
	written := map[string]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := w * perTx; i < total; i += writers * perTx {
				args := make([]Welcome, perTx)
				for k := range args {
					args[k].User = i + k
				}
				tx, err := e.pool.Begin(ctx)
				if err != nil {
					errs <- err
					return
				}
				jobs, err := outbox.EnqueueMany(ctx, e.ob, pgxoutbox.Tx(tx), args, nil)
				if err == nil {
					err = tx.Commit(ctx)
				}
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				for _, j := range jobs {
					written[j.ID] = true
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	testutil.Eventually(t, 60*time.Second, func() error {
		added, _ := cs.counts()
		if s := stats(t, relays[0]); s.Depth != 0 || len(added) < total {
			return fmt.Errorf("%d rows waiting, %d of %d jobs stored", s.Depth, len(added), total)
		}
		return nil
	})
	added, dups := cs.counts()
	if len(added) != total || dups != 0 {
		t.Fatalf("%d jobs added, %d duplicates reported; want %d and none", len(added), dups, total)
	}
	for id, n := range added {
		if n != 1 || !written[id] {
			t.Fatalf("job %s added %d times (written: %v)", id, n, written[id])
		}
	}
}
