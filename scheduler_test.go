package hopper_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// busyStore signals a schedule change on every wait and always reports more
// work, so the scheduler's timer (reset to zero) and the signal are both
// ready at every turn.
type busyStore struct {
	hopper.Store
	maintains atomic.Int64
}

func (s *busyStore) WaitSchedule(ctx context.Context, qs []string, _ time.Duration) ([]string, error) {
	return qs, ctx.Err()
}

func (s *busyStore) Maintain(ctx context.Context, q string, o store.MaintainOpts) (store.MaintainResult, error) {
	s.maintains.Add(1)
	return store.MaintainResult{More: true}, nil
}

func TestSchedulerSurvivesTimerAndSignalRacing(t *testing.T) {
	s := &busyStore{Store: newStore()}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- hopper.NewScheduler(s, &hopper.SchedulerConfig{Queues: []string{"q"}, Logger: testutil.Logger()}).Run(ctx)
	}()
	testutil.EventuallyTrue(t, 20*time.Second, "2,000 maintenance passes", func() bool { return s.maintains.Load() >= 2000 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A scheduler sleeps until the next due time: a job delayed by 300ms is
// promoted once, after it is due, with no pass in between.
func TestSchedulerSleepsUntilDue(t *testing.T) {
	ctx := t.Context()
	ms := newStore()
	s := &countingMaintain{Store: ms}
	c := hopper.NewClient(s, nil)
	info, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Delay: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go hopper.NewScheduler(s, &hopper.SchedulerConfig{Queues: []string{"default"}, MaxSleep: time.Minute}).Run(runCtx)
	var rec *hopper.JobRecord
	testutil.EventuallyTrue(t, 5*time.Second, "job promoted", func() bool {
		rec = getJob(t, ms, "default", info.ID)
		return rec.State == hopper.StateReady
	})
	// One pass at start (nothing due), then at the due time one from the
	// local timer and one from the store's signal (memstore's WaitSchedule
	// also sleeps only until the next due time), and a spare for the
	// millisecond the due time is rounded to. A scheduler that polled, even
	// every 10ms, would make 30 or more.
	if n := s.calls.Load(); n > 6 {
		t.Errorf("scheduler made %d maintenance passes for one delayed job; it should sleep until it is due", n)
	}
}

type countingMaintain struct {
	hopper.Store
	calls atomic.Int64
}

func (s *countingMaintain) Maintain(ctx context.Context, q string, o store.MaintainOpts) (store.MaintainResult, error) {
	s.calls.Add(1)
	return s.Store.Maintain(ctx, q, o)
}
