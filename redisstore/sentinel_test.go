package redisstore_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestSentinelPlannedFailover: behind Sentinel (redis.NewFailoverClient),
// a worker waiting on queues is woken by an enqueue before and after a
// failover (SENTINEL FAILOVER), and the jobs enqueued before it are
// claimed from the new master.
func TestSentinelPlannedFailover(t *testing.T) {
	sentinelFailover(t, func(s *redistest.Sentinel) { s.Failover(t) })
}

// TestSentinelMasterKilled: the same when the master dies (SIGKILL) and
// the sentinel promotes its replica.
func TestSentinelMasterKilled(t *testing.T) {
	sentinelFailover(t, func(s *redistest.Sentinel) {
		old := s.MasterAddr(t)
		s.Servers[0].Kill(t)
		s.WaitMasterNot(t, old)
	})
}

// TestSentinelMasterFrozen: the same when the master freezes (a stopped
// process, a link cut without a reset) and the sentinel promotes its
// replica: the worker's subscription leaves the frozen master, whose
// PING goes unanswered.
func TestSentinelMasterFrozen(t *testing.T) {
	sentinelFailover(t, func(s *redistest.Sentinel) {
		old := s.MasterAddr(t)
		s.Servers[0].Freeze(t)
		s.WaitMasterNot(t, old)
	})
}

// sentinelFailover runs a worker and a producer behind a Sentinel set,
// ends its master with fail, and checks that nothing enqueued before is
// lost and that the worker is woken on every queue after.
func sentinelFailover(t *testing.T, fail func(s *redistest.Sentinel)) {
	if testing.Short() {
		t.Skip("sentinel in -short mode")
	}
	ctx := t.Context()
	s := redistest.StartSentinel(t)
	prefix := redistest.Prefix(t)
	if err := storeOn(t, s.Client(t), &redisstore.Config{Prefix: prefix}).Check(ctx); err != nil {
		t.Fatal(err)
	}
	// A call to a frozen master waits out its read timeout (and the
	// client's retries): 1 s, not the tests' 5 s.
	short := func(o *redis.FailoverOptions) { o.ReadTimeout, o.WriteTimeout = time.Second, time.Second }
	worker := storeOn(t, s.Client(t, short), &redisstore.Config{Prefix: prefix})
	producer := storeOn(t, s.Client(t, short), &redisstore.Config{Prefix: prefix})
	queues := []string{"mail", "sms"}
	settle(t, worker, queues...)
	wakeOnEach(t, worker, producer, queues, "-before")
	mustEnqueue(t, producer, job("mail", "kept"))
	// The replica has the job before the master ends: what Redis's
	// asynchronous replication may lose is not what this test is about.
	if err := s.Servers[0].Client(t).Do(ctx, "WAIT", 1, 5000).Err(); err != nil {
		t.Fatal(err)
	}

	fail(s)
	// Until the clients follow the new master, calls fail (READONLY, or a
	// dead connection).
	probeGetsThrough(t, producer, worker, "sms")
	res, err := worker.Claim(ctx, store.ClaimOpts{Queue: "mail", Max: 10, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != "kept" {
		t.Fatalf("claim of the job enqueued before the failover: %+v, %v", res, err)
	}
	settle(t, worker, queues...)
	wakeOnEach(t, worker, producer, queues, "-after")
}

// TestSentinelWakesOnTheNewMaster: after a planned failover, while the
// old master still answers (the sentinels make it a replica only 10 to
// 20 s later), the worker's subscription follows the store's commands to
// the new master within a few seconds, and an enqueue there wakes it.
// go-redis moves a failover client's commands, not its subscriptions: the
// wake-ups stayed on the old master until it was made a replica.
func TestSentinelWakesOnTheNewMaster(t *testing.T) {
	if testing.Short() {
		t.Skip("sentinel in -short mode")
	}
	ctx := t.Context()
	s := redistest.StartSentinel(t)
	prefix := redistest.Prefix(t)
	worker := storeOn(t, s.Client(t), &redisstore.Config{Prefix: prefix})
	producer := storeOn(t, s.Client(t), &redisstore.Config{Prefix: prefix})
	queues := []string{"mail"}
	settle(t, worker, queues...)
	wakeOnEach(t, worker, producer, queues, "-before")

	newMaster := s.Promote(t)
	direct := redis.NewClient(&redis.Options{Addr: newMaster})
	defer direct.Close()
	// The clients follow once the sentinel announces the new master: a
	// probe enqueued through them is then on it.
	probes := 0
	testutil.Eventually(t, failAfter, func() error {
		probes++
		id := fmt.Sprint("probe-", probes)
		if _, err := producer.Enqueue(ctx, []*store.NewJob{job("sms", id)}); err != nil {
			return err
		}
		if on, err := direct.HExists(ctx, "{"+prefix+":sms}:j", id).Result(); err != nil || !on {
			return fmt.Errorf("the probe is not on the new master %s yet (%v)", newMaster, err)
		}
		return nil
	})
	// Within a few of the subscription's checks (masterCheck, 1 s), not
	// when the old master is made a replica.
	start := time.Now()
	mustEnqueue(t, producer, job("mail", "after"))
	for {
		got, err := worker.WaitReady(ctx, queues, time.Second)
		if err == nil && slices.Contains(got, "mail") {
			res, err := worker.Claim(ctx, store.ClaimOpts{Queue: "mail", Max: 10, Lease: time.Minute})
			if err == nil && len(res.Jobs) == 1 && res.Jobs[0].ID == "after" {
				return
			}
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("no wake-up for the job enqueued on the new master %s within 5 s (last wait: %v, %v)", newMaster, got, err)
		}
	}
}
