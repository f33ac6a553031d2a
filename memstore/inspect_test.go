package memstore

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func TestQueuesListsOnlyQueuesInUse(t *testing.T) {
	s := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _ = s.WaitReady(ctx, []string{"waited"}, time.Second) // creates a hidden queue
	mustEnqueue(t, s, &store.NewJob{ID: "a", Queue: "zeta", Kind: "k"})
	if err := s.SetQueueConfig(context.Background(), "alpha", store.QueueConfig{Paused: true}); err != nil {
		t.Fatal(err)
	}
	if qs, err := s.ListQueues(context.Background()); err != nil || !slices.Equal(qs, []string{"alpha", "zeta"}) {
		t.Fatalf("queues %v %v", qs, err)
	}
}

func TestQueueStatsCountsAndLatency(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	p := newJob("p")
	p.Delay = time.Minute
	mustEnqueue(t, s, newJob("a"), newJob("b"), p)
	claim(t, s, 1, time.Minute)
	clock.Advance(3 * time.Second)
	cfg := store.QueueConfig{MaxRunning: 3, RateLimit: 10}
	if err := s.SetQueueConfig(ctx, testQueue, cfg); err != nil {
		t.Fatal(err)
	}
	st, err := s.GetQueueStats(ctx, testQueue)
	if err != nil {
		t.Fatal(err)
	}
	want := store.StateCounts{Pending: 1, Ready: 1, Unack: 1}
	if st.Counts != want || st.Config != cfg || st.Latency != 3*time.Second {
		t.Fatalf("stats %+v, want counts %+v, config %+v, latency 3s", st, want, cfg)
	}
}

func TestClaimRejectsBadRequests(t *testing.T) {
	s := New(nil)
	ctx := context.Background()
	for _, req := range []store.ClaimOpts{
		{Queue: "q", Max: 0, Lease: time.Second},
		{Queue: "q", Max: 1, Lease: time.Microsecond},
	} {
		if _, err := s.Claim(ctx, req); !errors.Is(err, store.ErrInvalidConfig) {
			t.Errorf("Claim(%+v) = %v, want ErrInvalidConfig", req, err)
		}
	}
	if _, err := s.Claim(ctx, store.ClaimOpts{Queue: "", Max: 1, Lease: time.Second}); !errors.Is(err, store.ErrInvalidQueue) {
		t.Errorf("empty queue: %v", err)
	}
	if err := s.SetQueueConfig(ctx, "q", store.QueueConfig{Paused: true}); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Second}); err != nil || res.RetryIn != time.Second {
		t.Errorf("paused: %+v %v, want RetryIn 1s", res, err)
	}
}
