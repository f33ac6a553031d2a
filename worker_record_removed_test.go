package hopper_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// beatStore is a Store whose heartbeats fail while down is set, and which
// counts heartbeats and record removals.
type beatStore struct {
	hopper.Store
	down            bool
	beats, removals atomic.Int32
}

func (s *beatStore) Heartbeat(ctx context.Context, w store.WorkerInfo, ttl time.Duration) error {
	s.beats.Add(1)
	if s.down {
		return errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	}
	return s.Store.Heartbeat(ctx, w, ttl)
}

func (s *beatStore) RemoveWorker(ctx context.Context, id string) error {
	s.removals.Add(1)
	return s.Store.RemoveWorker(ctx, id)
}

// TestWorkerRemovesOnlyARecordItWrote: a worker stopping removes its
// record from the store when a heartbeat wrote it, and does not try when
// none ever did (a store unreachable since start-up): that try waited out
// its own 2 s timeout, so Run returned seconds after its context ended.
func TestWorkerRemovesOnlyARecordItWrote(t *testing.T) {
	for _, down := range []bool{false, true} {
		s := &beatStore{Store: newStore(), down: down}
		cfg := testConfig("default")
		cfg.HeartbeatInterval = 10 * time.Millisecond
		w := hopper.NewWorker(s, cfg)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error { return nil })
		stop := startWorker(t, w)
		testutil.EventuallyTrue(t, 10*time.Second, "two heartbeats", func() bool { return s.beats.Load() >= 2 })
		stop()
		if got, want := s.removals.Load(), map[bool]int32{false: 1, true: 0}[down]; got != want {
			t.Errorf("heartbeats failing %v: %d removals of the record at shutdown, want %d", down, got, want)
		}
	}
}
