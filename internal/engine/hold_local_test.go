package engine

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// holdBlocked is a store whose Finish of an outcome with a hold waits
// until release is closed: the window in which the store does not hold
// the queue yet.
type holdBlocked struct {
	store.Store
	release chan struct{}
}

func (s *holdBlocked) Finish(ctx context.Context, reqs []store.AttemptEnd) ([]error, error) {
	for _, r := range reqs {
		if r.Hold > 0 {
			<-s.release
			break
		}
	}
	return s.Store.Finish(ctx, reqs)
}

// errLimited is the handler's rate-limited error in TestHoldStopsClaimsBeforeTheStoreHasIt.
var errLimited = errors.New("429")

// A worker claims nothing from a queue whose job asked to hold it
// (RateLimited) until the store has the hold: the slot the job freed
// claimed the queue's next job at once, while the outcome was still on
// its way, and that job hit the same limit. With StrictPriority and room
// for one job, the queue "q" goes first whenever it may be claimed: the
// job that runs after the held one tells which queue the freed slot
// claimed.
func TestHoldStopsClaimsBeforeTheStoreHasIt(t *testing.T) {
	mem := memstore.New(nil)
	st := &holdBlocked{Store: mem, release: make(chan struct{})}
	jobs := []*store.NewJob{
		{ID: "limited", Queue: "q", Kind: "k"}, {ID: "next", Queue: "q", Kind: "k"},
		{ID: "other", Queue: "o", Kind: "k"},
	}
	if _, err := mem.Enqueue(t.Context(), jobs); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Queues = []Queue{{Name: "o", Weight: 1}, {Name: "q", Weight: 2}}
	cfg.StrictPriority, cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = true, 1, 1, 0
	cfg.Classify = func(err error) Verdict {
		if errors.Is(err, errLimited) {
			return Verdict{Snooze: true, Delay: time.Hour, Hold: true}
		}
		return Verdict{}
	}
	started := make(chan string, 3)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, st, cfg, func(ctx context.Context, rec *store.JobRecord) error {
			started <- rec.ID
			if rec.ID == "limited" {
				return errLimited
			}
			return nil
		})
	}()
	defer func() {
		cancel()
		<-done
	}()
	if id := <-started; id != "limited" {
		t.Fatalf("first job started: %q, want limited (queue q goes first)", id)
	}
	id := <-started
	close(st.release)
	if id != "other" {
		t.Fatalf("after the rate-limited job, %q started while its hold was on its way to the store; want other (queue q not claimed)", id)
	}
}
