package redisstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// failAfter is how long a test waits for something that should happen at
// once before it fails; it is not a timing assertion, only a bound on a hang.
const failAfter = 20 * time.Second

// subscribers returns how many clients are subscribed to channel, over
// every node of a cluster.
func subscribers(t *testing.T, rdb redis.UniversalClient, channel string) int64 {
	t.Helper()
	count := func(ctx context.Context, c *redis.Client) int64 {
		m, err := c.PubSubNumSub(ctx, channel).Result()
		if err != nil {
			t.Error(err)
		}
		return m[channel]
	}
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		var mu sync.Mutex
		var total int64
		err := c.ForEachShard(t.Context(), func(ctx context.Context, node *redis.Client) error {
			n := count(ctx, node)
			mu.Lock()
			total += n
			mu.Unlock()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return total
	case *redis.Client:
		return count(t.Context(), c)
	}
	t.Fatalf("unexpected client %T", rdb)
	return 0
}

// settle waits on queues until a wait returns no queue, taking the
// signals a new subscription starts with, and leaves the subscription up.
func settle(t *testing.T, s *redisstore.Store, queues ...string) {
	t.Helper()
	testutil.Eventually(t, failAfter, func() error {
		got, err := s.WaitReady(t.Context(), queues, 50*time.Millisecond)
		if err != nil {
			return err // a subscription being made again after a failover
		}
		if got != nil {
			return errors.New("still signalled: " + strings.Join(got, " "))
		}
		return nil
	})
}

// TestWaitReadyIdleIsQuiet measures the commands an idle worker sends while
// it waits on empty queues, however many: none but the subscription's
// health-check PING every few seconds.
func TestWaitReadyIdleIsQuiet(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	s := storeOn(t, rdb, nil)
	queues := make([]string, 1000)
	for i := range queues {
		queues[i] = "idle" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
	}
	settle(t, s, queues...)
	before := commandCount(t, rdb)
	start := time.Now()
	// The idle period itself: a wait of 3s on 1,000 queues with nothing to
	// wake it.
	got, err := s.WaitReady(t.Context(), queues, 3*time.Second)
	if err != nil || got != nil {
		t.Fatalf("idle WaitReady: %v, %v; want a timeout", got, err)
	}
	elapsed := time.Since(start)
	cmds := commandCount(t, rdb) - before - 1 // the first INFO counts itself
	t.Logf("idle WaitReady on %d queues for %v: %.0f commands", len(queues), elapsed.Round(time.Millisecond), cmds)
	if cmds > elapsed.Seconds() {
		t.Fatalf("an idle WaitReady on %d queues sent %.0f commands in %v, want at most the subscription's health checks", len(queues), cmds, elapsed)
	}
}

// TestWaitReadyWakesOnEnqueue: a worker waiting on empty queues wakes for a
// job another client enqueues, long before its own timeout, names the
// queue, and claims the job.
func TestWaitReadyWakesOnEnqueue(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	prefix := redistest.Prefix(t)
	worker := storeOn(t, srv.Client(t), &redisstore.Config{Prefix: prefix})
	producer := storeOn(t, srv.Client(t), &redisstore.Config{Prefix: prefix})
	testWakes(t, srv.Client(t), prefix, worker, producer, []string{"mail", "other"}, "mail")
}

// TestWaitReadyWakesOnEnqueueCluster: the same on a Redis Cluster, the
// queues on several shards, two subscriptions (on two masters) for all.
func TestWaitReadyWakesOnEnqueueCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := redistest.StartCluster(t)
	prefix := redistest.Prefix(t)
	worker := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	producer := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	queues := []string{"q0", "q1", "q2", "q3", "q4", "q5"}
	testWakes(t, c.Client(t), prefix, worker, producer, queues, "q4")
}

func testWakes(t *testing.T, admin redis.UniversalClient, prefix string, worker, producer *redisstore.Store, queues []string, target string) {
	ctx := t.Context()
	settle(t, worker, queues...)
	want := int64(1)
	if _, ok := admin.(*redis.ClusterClient); ok {
		want = 2 // one on each of two masters (notify_cluster.go)
	}
	if n := subscribers(t, admin, prefix+":ready"); n != want {
		t.Fatalf("%d subscriptions to %s, want the worker's %d", n, prefix+":ready", want)
	}
	type result struct {
		got []string
		err error
	}
	done := make(chan result, 1)
	go func() {
		got, err := worker.WaitReady(ctx, queues, time.Hour)
		done <- result{got, err}
	}()
	mustEnqueue(t, producer, job(target, "wake-me"))
	r := testutil.Receive(t, done, failAfter, "WaitReady (timeout 1h) to wake after an enqueue")
	if r.err != nil || !slices.Equal(r.got, []string{target}) {
		t.Fatalf("WaitReady: %v, %v; want [%s]", r.got, r.err, target)
	}
	res, err := worker.Claim(ctx, store.ClaimOpts{Queue: target, Max: 10, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != "wake-me" {
		t.Fatalf("Claim after waking: %d jobs, %v; want wake-me", len(res.Jobs), err)
	}
}

// TestWaitReturnsOnCancel: a wait with a timeout of an hour returns at
// once when its context is cancelled.
func TestWaitReturnsOnCancel(t *testing.T) {
	s, _ := newStore(t, nil)
	for _, wait := range []struct {
		name string
		fn   func(context.Context, []string, time.Duration) ([]string, error)
	}{{"WaitReady", s.WaitReady}, {"WaitSchedule", s.WaitSchedule}} {
		t.Run(wait.name, func(t *testing.T) {
			settle(t, s, "a", "b")
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := wait.fn(ctx, []string{"a", "b"}, time.Hour)
				done <- err
			}()
			cancel()
			if err := testutil.Receive(t, done, failAfter, wait.name+" to return after its context's cancellation"); err != nil {
				t.Fatalf("%s after cancel: %v, want nil", wait.name, err)
			}
		})
	}
}

// TestWaitSeesEveryQueueAfterALostSubscription: messages published while
// the subscription is down are lost, so when it is back every queue is
// signalled once, and a job enqueued meanwhile is found.
func TestWaitSeesEveryQueueAfterALostSubscription(t *testing.T) {
	s, rdb := newStore(t, nil)
	queues := []string{"a", "b"}
	settle(t, s, queues...)
	// Kill the subscription's connection (and every other: the store's
	// pool reconnects), then enqueue while it is down.
	if err := rdb.Do(t.Context(), "CLIENT", "KILL", "TYPE", "pubsub").Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("b", "meanwhile"))
	var got []string
	testutil.Eventually(t, failAfter, func() error {
		g, err := s.WaitReady(t.Context(), queues, 100*time.Millisecond)
		if err != nil {
			return err
		}
		got = append(got, g...)
		if !slices.Contains(got, "b") {
			return errors.New("queue b not signalled yet")
		}
		return nil
	})
}

// TestWaitValidatesQueues: queue names are checked even when nothing waits.
func TestWaitValidatesQueues(t *testing.T) {
	s, _ := newStore(t, nil)
	for _, timeout := range []time.Duration{0, time.Millisecond} {
		if _, err := s.WaitReady(t.Context(), []string{"ok", "bad{name}"}, timeout); err == nil || !strings.Contains(err.Error(), "invalid queue") {
			t.Fatalf("WaitReady with a bad queue name (timeout %v): %v, want ErrInvalidQueue", timeout, err)
		}
	}
}
