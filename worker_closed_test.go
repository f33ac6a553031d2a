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

// TestWorkerStopsWhenItsRedisClientIsClosed: a closed go-redis client
// cannot serve a call again. A worker whose client was closed stops
// promptly and Run returns an error wrapping redis.ErrClosed; it logged
// "redis: client is closed" over and over until its context ended, then
// returned nil.
func TestWorkerStopsWhenItsRedisClientIsClosed(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	st := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger()})
	w := hopper.NewWorker(st, testConfig("closed"))
	ran := make(chan struct{}, 1)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Echo]) error {
		ran <- struct{}{}
		return nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	info, err := hopper.Enqueue(ctx, hopper.NewClient(st, &hopper.ClientConfig{Queue: "closed"}), Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the job did not run within 10s")
	}
	testutil.EventuallyTrue(t, 10*time.Second, "the job to be acked", func() bool { return getJob(t, st, "closed", info.ID) == nil })
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

// TestSubscribeEndsWhenItsRedisClientIsClosed: a subscription whose
// go-redis client was closed yields the error once and ends, as for bad
// input; it yielded "client is closed" every few seconds for as long as
// the caller kept reading.
func TestSubscribeEndsWhenItsRedisClientIsClosed(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	st := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger()})
	c := hopper.NewClient(st, &hopper.ClientConfig{Queue: "closed"})
	if _, err := hopper.Enqueue(t.Context(), c, Echo{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := rdb.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var errs []error
	for _, err := range c.Subscribe(ctx, []string{"closed"}, &hopper.SubscribeOpts{Start: hopper.FromStart}) {
		if err == nil {
			continue
		}
		errs = append(errs, err)
		if len(errs) > 1 {
			break
		}
	}
	if len(errs) != 1 || !errors.Is(errs[0], redisstore.ErrClientClosed) || ctx.Err() != nil {
		t.Fatalf("Subscribe on a closed client yielded %v (context %v), want one ErrClientClosed and the end", errs, ctx.Err())
	}
}
