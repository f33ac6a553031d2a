package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// markStore is a Store whose calls that a Worker or a Scheduler makes
// over and over return their error through mark: a test's stand-in for
// what a store says of an error that no call can get past.
type markStore struct {
	hopper.Store
	mark func(ctx context.Context, err error) error
}

func (s *markStore) Unwrap() hopper.Store { return s.Store }

func (s *markStore) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	res, err := s.Store.Claim(ctx, req)
	return res, s.mark(ctx, err)
}

func (s *markStore) WaitReady(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	got, err := s.Store.WaitReady(ctx, queues, timeout)
	return got, s.mark(ctx, err)
}

func (s *markStore) Heartbeat(ctx context.Context, w store.WorkerInfo, ttl time.Duration) error {
	return s.mark(ctx, s.Store.Heartbeat(ctx, w, ttl))
}

func (s *markStore) Maintain(ctx context.Context, queue string, opts store.MaintainOpts) (store.MaintainResult, error) {
	res, err := s.Store.Maintain(ctx, queue, opts)
	return res, s.mark(ctx, err)
}

func (s *markStore) WaitSchedule(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	got, err := s.Store.WaitSchedule(ctx, queues, timeout)
	return got, s.mark(ctx, err)
}

func (s *markStore) ListQueues(ctx context.Context) ([]string, error) {
	qs, err := s.Store.ListQueues(ctx)
	return qs, s.mark(ctx, err)
}

// closedMark says redisstore.ErrClientClosed for an error of rdb closed,
// with the check redisstore makes on a Worker's calls (Claim, WaitReady,
// Heartbeat: an error wrapping redis.ErrClosed, and rdb's PING says so
// too), but on every call: redisstore's Maintain and WaitSchedule say
// ErrUnavailable (temporary) instead.
func closedMark(rdb *redis.Client) func(context.Context, error) error {
	return func(ctx context.Context, err error) error {
		if err != nil && errors.Is(err, redis.ErrClosed) && !errors.Is(err, redisstore.ErrClientClosed) &&
			errors.Is(rdb.Ping(ctx).Err(), redis.ErrClosed) {
			return fmt.Errorf("%w: %w", redisstore.ErrClientClosed, err)
		}
		return err
	}
}

// TestSchedulerStopsWhenItsRedisClientIsClosed: a standalone Scheduler
// whose store says its go-redis client was closed stops promptly and Run
// returns an error wrapping redisstore.ErrClientClosed and
// redis.ErrClosed, as a Worker's does; it logged the error over and over
// until its context ended, then returned nil.
func TestSchedulerStopsWhenItsRedisClientIsClosed(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	rst := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger()})
	st := &markStore{Store: rst, mark: closedMark(rdb)}
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
