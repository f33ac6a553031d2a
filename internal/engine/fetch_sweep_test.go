package engine

import (
	"context"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// waitHangs is a store whose waits for ready jobs block until their
// context ends, whatever their timeout, and that counts the claims made.
type waitHangs struct {
	store.Store
	claims atomic.Int32
}

func (s *waitHangs) WaitReady(ctx context.Context, _ []string, _ time.Duration) ([]string, error) {
	<-ctx.Done()
	return nil, nil
}

func (s *waitHangs) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	s.claims.Add(1)
	return s.Store.Claim(ctx, req)
}

// The rotating check runs every IdleWait even while the wait for ready
// jobs does not return (a store call that outlives its timeout): a job
// whose signal was lost, made ready after the queue's last claim found it
// empty, is still claimed. The check ran only when the fetch loop woke
// for something else, and a worker with nothing else going on slept with
// the job ready.
func TestRotatingCheckRunsWhileTheWaitHangs(t *testing.T) {
	mem := memstore.New(nil)
	st := &waitHangs{Store: mem}
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.IdleWait = 50 * time.Millisecond
	ran := make(chan string, 1)
	startRun(t, st, cfg, func(ctx context.Context, rec *store.JobRecord) error {
		ran <- rec.ID
		return nil
	})
	// The first claim, at start, finds the queue empty.
	testutil.EventuallyTrue(t, testutil.Wait, "the first claim", func() bool { return st.claims.Load() >= 1 })
	if _, err := mem.Enqueue(t.Context(), []*store.NewJob{{ID: "late", Queue: "q", Kind: "k"}}); err != nil {
		t.Fatal(err)
	}
	if id := testutil.Receive(t, ran, testutil.Wait, "the late job to run"); id != "late" {
		t.Fatalf("ran %q, want late", id)
	}
}
