package hopper_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
)

// TestSchedulerStopsWhenItsRedisClientIsClosed: a standalone Scheduler
// whose store says its go-redis client was closed stops promptly and Run
// returns an error wrapping redisstore.ErrClientClosed and
// redis.ErrClosed, as a Worker's does; it logged the error over and over
// until its context ended, then returned nil.
func TestSchedulerStopsWhenItsRedisClientIsClosed(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	st := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger()})
	s := hopper.NewScheduler(st, &hopper.SchedulerConfig{Queues: []string{"closed"}, Logger: testutil.Logger()})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	info, err := hopper.Enqueue(ctx, hopper.NewClient(st, &hopper.ClientConfig{Queue: "closed"}), Echo{}, &hopper.EnqueueOpts{Delay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyTrue(t, 10*time.Second, "the scheduler to promote the delayed job", func() bool {
		rec := getJob(t, st, "closed", info.ID)
		return rec != nil && rec.State == hopper.StateReady
	})
	if err := rdb.Close(); err != nil {
		t.Fatal(err)
	}
	closed := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, redis.ErrClosed) || !errors.Is(err, redisstore.ErrClientClosed) {
			t.Fatalf("Run returned %v, want an error wrapping redis.ErrClosed and redisstore.ErrClientClosed", err)
		}
		t.Logf("Run returned %v after %v", err, time.Since(closed).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of its client's Close")
	}
}
