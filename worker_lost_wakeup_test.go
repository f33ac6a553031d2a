package hopper_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
)

// deafStore is a Store whose wake-ups never name queue deaf, as if each
// one were lost to a fault (a frozen master's subscription).
type deafStore struct {
	hopper.Store
	deaf string
}

func (s *deafStore) WaitReady(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	got, err := s.Store.WaitReady(ctx, queues, timeout)
	return slices.DeleteFunc(got, func(q string) bool { return q == s.deaf }), err
}

// TestBusyWorkerFindsJobOfLostWakeUp: a worker kept busy by one queue,
// whose wake-ups keep coming, still claims the job of another queue whose
// wake-up was lost, within a few IdleWaits: the rotating check ran only
// when a whole IdleWait passed with no wake-up at all, so that job waited
// as long as the busy queue kept signalling.
func TestBusyWorkerFindsJobOfLostWakeUp(t *testing.T) {
	ctx := t.Context()
	s := &deafStore{Store: newStore(), deaf: "quiet"}
	c := hopper.NewClient(s, nil)
	cfg := testConfig("busy", "quiet")
	cfg.IdleWait = 50 * time.Millisecond
	w := hopper.NewWorker(s, cfg)
	var busyRan, quietRan atomic.Int32
	ran := make(chan struct{}, 1)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		if j.Queue == "quiet" {
			quietRan.Add(1)
		} else {
			busyRan.Add(1)
		}
		select {
		case ran <- struct{}{}:
		default:
		}
		return nil
	})
	startWorker(t, w)
	busy := func() {
		if _, err := hopper.Enqueue(ctx, c, Echo{Msg: "busy"}, &hopper.EnqueueOpts{Queue: "busy"}); err != nil {
			t.Error(err)
		}
	}
	// The worker looked at both queues once it ran a busy job.
	busy()
	testutil.EventuallyTrue(t, 10*time.Second, "the first busy job", func() bool { return busyRan.Load() == 1 })
	if _, err := hopper.Enqueue(ctx, c, Echo{Msg: "quiet"}, &hopper.EnqueueOpts{Queue: "quiet"}); err != nil {
		t.Fatal(err)
	}
	// Busy jobs keep coming, one wake-up each, the next as soon as one
	// ran, until the quiet job ran (at most 20,000: some seconds).
	timeout := time.After(30 * time.Second)
	for i := 0; quietRan.Load() == 0 && i < 20000; i++ {
		busy()
		select {
		case <-ran:
		case <-timeout:
			t.Fatal("the busy jobs stopped running")
		}
	}
	if quietRan.Load() != 1 {
		t.Fatalf("the quiet queue's job did not run while the busy queue kept signalling (%d busy jobs ran)", busyRan.Load())
	}
}
