package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// failAfter is how long a test waits for something that should happen at
// once before it fails; it is not a timing assertion, only a bound on a hang.
const failAfter = 20 * time.Second

// awaitBlocked polls until the server has at least n clients blocked in a
// blocking command (our waiters), failing after failAfter.
func awaitBlocked(t *testing.T, rdb redis.UniversalClient, n int) {
	t.Helper()
	deadline := time.Now().Add(failAfter)
	for {
		total := 0
		var err error
		switch c := rdb.(type) {
		case *redis.ClusterClient:
			var mu sync.Mutex
			err = c.ForEachMaster(t.Context(), func(ctx context.Context, node *redis.Client) error {
				n := int(infoField(t, node, "clients", "blocked_clients"))
				mu.Lock()
				total += n
				mu.Unlock()
				return nil
			})
		case *redis.Client:
			total = int(infoField(t, c, "clients", "blocked_clients"))
		}
		if err != nil {
			t.Fatal(err)
		}
		if total >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d clients blocked after %v, want %d waiters", total, failAfter, n)
		}
		time.Sleep(2 * time.Millisecond) // polling a condition with a deadline
	}
}

// TestWaitReadyIdleIsQuiet measures the commands an idle worker sends while
// it waits on an empty queue: one blocking command per MaxBlock (1s here),
// never a poll loop.
func TestWaitReadyIdleIsQuiet(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	s := storeOn(t, rdb, &redisstore.Options{MaxBlock: time.Second})
	if err := s.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
	before := commandCount(t, rdb)
	start := time.Now()
	// The idle period itself: a wait of 2.5s with nothing to wake it.
	if err := s.WaitReady(t.Context(), []string{"idle", "idle2"}, 2500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	cmds := commandCount(t, rdb) - before - 1 // the first INFO counts itself
	perSec := cmds / elapsed.Seconds()
	t.Logf("idle WaitReady for %v: %.0f commands (%.1f per second)", elapsed.Round(time.Millisecond), cmds, perSec)
	if cmds > 5*elapsed.Seconds()+1 {
		t.Fatalf("an idle WaitReady sent %.0f commands in %v, want at most a handful per second", cmds, elapsed)
	}
}

// TestWaitReadyWakesOnEnqueue: a worker blocked on an empty queue wakes for
// a job another client enqueues, long before its own timeout, and claims it.
func TestWaitReadyWakesOnEnqueue(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	prefix := redistest.Prefix(t)
	worker := storeOn(t, srv.Client(t), &redisstore.Options{Prefix: prefix, MaxBlock: 30 * time.Second})
	producer := storeOn(t, srv.Client(t), &redisstore.Options{Prefix: prefix})
	testWakes(t, srv.Client(t), worker, producer, []string{"mail"}, "mail")
}

// TestWaitReadyWakesOnEnqueueCluster: the same on a Redis Cluster, waiting
// on queues of several slots at once (one blocking command per slot).
func TestWaitReadyWakesOnEnqueueCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := redistest.StartCluster(t)
	prefix := redistest.Prefix(t)
	worker := storeOn(t, c.Client(t), &redisstore.Options{Prefix: prefix, MaxBlock: 30 * time.Second})
	producer := storeOn(t, c.Client(t), &redisstore.Options{Prefix: prefix})
	queues := []string{"q0", "q1", "q2", "q3", "q4", "q5"}
	testWakes(t, c.Client(t), worker, producer, queues, "q4")
}

func testWakes(t *testing.T, admin redis.UniversalClient, worker, producer *redisstore.Store, queues []string, target string) {
	ctx := t.Context()
	if err := worker.Check(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- worker.WaitReady(ctx, queues, time.Hour) }()
	awaitBlocked(t, admin, 1)
	mustEnqueue(t, producer, job(target, "wake-me"))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("WaitReady: %v", err)
		}
	case <-time.After(failAfter):
		t.Fatalf("WaitReady (timeout 1h) did not wake within %v of an enqueue", failAfter)
	}
	res, err := worker.Claim(ctx, store.ClaimRequest{Queue: target, Max: 10, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != "wake-me" {
		t.Fatalf("Claim after waking: %d jobs, %v; want wake-me", len(res.Jobs), err)
	}
}

// TestWaitReturnsOnCancel: a wait whose blocking command lasts 30s returns
// soon after its context is cancelled (go-redis does not interrupt a
// blocking read by itself), and leaves no private wake key behind.
func TestWaitReturnsOnCancel(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Options{Prefix: prefix, MaxBlock: 30 * time.Second})
	testCancel(t, rdb, s, prefix, []string{"a", "b"})
}

func TestWaitReturnsOnCancelCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := redistest.StartCluster(t)
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Options{Prefix: prefix, MaxBlock: 30 * time.Second})
	testCancel(t, rdb, s, prefix, []string{"q0", "q1", "q2", "q3", "q4", "q5"})
}

func testCancel(t *testing.T, rdb redis.UniversalClient, s *redisstore.Store, prefix string, queues []string) {
	for _, wait := range []struct {
		name string
		fn   func(context.Context, []string, time.Duration) error
	}{{"WaitReady", s.WaitReady}, {"WaitSchedule", s.WaitSchedule}} {
		t.Run(wait.name, func(t *testing.T) {
			if err := s.Check(t.Context()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- wait.fn(ctx, queues, time.Hour) }()
			awaitBlocked(t, rdb, 1)
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("%s after cancel: %v, want nil", wait.name, err)
				}
			case <-time.After(failAfter):
				t.Fatalf("%s did not return within %v of its context's cancellation (blocking commands of 30s)", wait.name, failAfter)
			}
			if keys := keysMatching(t, rdb, "{"+prefix+"*z:*"); len(keys) > 0 {
				t.Fatalf("private wake keys left behind: %q", keys)
			}
		})
	}
}

func keysMatching(t *testing.T, rdb redis.UniversalClient, pattern string) []string {
	t.Helper()
	var (
		mu  sync.Mutex
		all []string
	)
	collect := func(ctx context.Context, c *redis.Client) error {
		keys, err := c.Keys(ctx, pattern).Result()
		mu.Lock()
		all = append(all, keys...)
		mu.Unlock()
		return err
	}
	var err error
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		err = c.ForEachMaster(t.Context(), collect)
	case *redis.Client:
		err = collect(t.Context(), c)
	default:
		err = fmt.Errorf("unexpected client %T", rdb)
	}
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// TestWaitValidatesQueues: queue names are checked even when nothing waits.
func TestWaitValidatesQueues(t *testing.T) {
	s, _ := newStore(t, nil)
	for _, timeout := range []time.Duration{0, time.Millisecond} {
		if err := s.WaitReady(t.Context(), []string{"ok", "bad{name}"}, timeout); err == nil || !strings.Contains(err.Error(), "invalid queue") {
			t.Fatalf("WaitReady with a bad queue name (timeout %v): %v, want ErrInvalidQueue", timeout, err)
		}
	}
}
