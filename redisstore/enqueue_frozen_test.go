package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// enqueueWrites counts the commands a client writes to one node: a
// Dialer wrapper that finds what (the enqueue library's FCALLs when
// empty) in the bytes written on the node's connections, in lower case.
type enqueueWrites struct {
	addr string
	what string
	n    atomic.Int32
}

func (w *enqueueWrites) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil || addr != w.addr {
		return c, err
	}
	return &countingConn{Conn: c, w: w}, nil
}

type countingConn struct {
	net.Conn
	w *enqueueWrites
}

func (c *countingConn) Write(b []byte) (int, error) {
	// A function's name ends with its script: "..._enqueue" or a variant
	// of it ("..._enqueue_P"); FCALL and the name are in one write.
	what := c.w.what
	if what == "" {
		what = "_enqueue"
	}
	c.w.n.Add(int32(bytes.Count(bytes.ToLower(b), []byte(what))))
	return c.Conn.Write(b)
}

// warmConns leaves idle connections to node in its pool, so that each
// send to it once frozen (and, before, each of go-redis's retries) finds
// one: a new one's handshake would time out before the command is
// written.
func warmConns(t *testing.T, node *redis.Client, key string) {
	t.Helper()
	var warm sync.WaitGroup
	for range 16 {
		warm.Go(func() {
			// A blocking read holds its connection for 50 ms.
			if err := node.Do(t.Context(), "BLPOP", key, "0.05").Err(); !errors.Is(err, redis.Nil) {
				t.Error(err)
			}
		})
	}
	warm.Wait()
}

// loadLibraries loads the store's libraries on every master with the
// tests' timeouts: a FUNCTION LOAD on a loaded machine can take longer
// than the short timeouts of the tests below.
func loadLibraries(t *testing.T, rdb *redis.ClusterClient, prefix string) {
	t.Helper()
	if err := storeOn(t, rdb, &redisstore.Config{Prefix: prefix}).Check(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestEnqueueToAFrozenNodeGoesOnceCluster: an enqueue round trip to a
// master that stopped answering (a frozen process) fails after one read
// timeout and is not sent again, whether it goes alone, in a pipeline per
// node with another master's call (which succeeds), or from the enqueue
// batcher's flusher, whose round trips have no deadline of their own.
// go-redis sent it again after each of its read timeouts (three retries
// by default): an enqueue may have run when its reply timed out, and each
// retry held the caller, and a flusher's queue, for another read timeout,
// so that a Cluster's producers stayed off a failed-over shard for many
// seconds after its replica took over.
func TestEnqueueToAFrozenNodeGoesOnceCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t, redistest.Private())
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	queues, addrs := queuesOnMasters(t, c, rdb, prefix)
	loadLibraries(t, rdb, prefix)
	w := &enqueueWrites{addr: addrs[0]}
	const readTimeout = 300 * time.Millisecond
	client := c.Client(t, func(o *redis.ClusterOptions) {
		o.ReadTimeout, o.WriteTimeout = readTimeout, readTimeout
		o.Dialer = w.dial
	})
	s := storeOn(t, client, &redisstore.Config{Prefix: prefix})
	for _, q := range queues { // the check made, the queues registered
		if _, err := s.Enqueue(ctx, []*store.NewJob{job(q, "before")}); err != nil {
			t.Fatal(err)
		}
	}
	node, err := client.MasterForKey(ctx, "{"+prefix+":"+queues[0]+"}")
	if err != nil {
		t.Fatal(err)
	}
	warmConns(t, node, "{"+prefix+":"+queues[0]+"}:warm")
	thaw := c.FreezeAddr(t, addrs[0])
	defer thaw()

	// sent checks that run wrote want enqueue calls to the frozen master:
	// one a round trip, each waiting out one read timeout.
	sent := func(what string, want int32, run func()) {
		t.Helper()
		before := w.n.Load()
		run()
		if n := w.n.Load() - before; n != want {
			t.Errorf("%s: %d enqueue calls went to the frozen master, want %d (one a round trip)", what, n, want)
		}
	}
	sent("a lone enqueue", 1, func() {
		_, err := s.Enqueue(ctx, []*store.NewJob{job(queues[0], "alone")})
		if !errors.Is(err, redisstore.ErrUnavailable) {
			t.Errorf("lone enqueue on the frozen master: %v, want ErrUnavailable", err)
		}
	})
	sent("an enqueue beside another master's", 1, func() {
		res, err := s.Enqueue(ctx, []*store.NewJob{job(queues[0], "pair-frozen"), job(queues[1], "pair-alive")})
		if err != nil {
			t.Fatalf("enqueue of two queues: %v (the live master's job should be stored)", err)
		}
		if !errors.Is(res[0].Err, redisstore.ErrUnavailable) || res[1].Err != nil {
			t.Errorf("results %+v, want the frozen master's job ErrUnavailable and the other stored", res)
		}
	})
	sent("two concurrent enqueues, the second sent by a flusher", 2, func() {
		// Two calls at once, in the batcher of the frozen master's slot:
		// the second waits for the first's round trip and is sent by a
		// flusher, with no deadline of its own.
		var wg sync.WaitGroup
		first := make(chan struct{})
		var errs [2]error
		wg.Go(func() {
			close(first)
			_, errs[0] = s.Enqueue(ctx, []*store.NewJob{job(queues[0], "lead")})
		})
		<-first
		wg.Go(func() {
			_, errs[1] = s.Enqueue(ctx, []*store.NewJob{job(queues[0], "queued")})
		})
		wg.Wait()
		for i, err := range errs {
			if !errors.Is(err, redisstore.ErrUnavailable) {
				t.Errorf("concurrent enqueue %d on the frozen master: %v, want ErrUnavailable", i, err)
			}
		}
	})
}

// storeWideCluster starts a private Cluster with hopper's libraries
// loaded, and returns it, the tests' prefix, the address of the master
// of the store-wide keys ({<prefix>}: the registry, the partition counts,
// the layout) and a queue of another master.
func storeWideCluster(t *testing.T) (c *redistest.Cluster, prefix, frozen, live string) {
	t.Helper()
	c = redistest.StartCluster(t, redistest.Private())
	rdb := c.Client(t)
	prefix = redistest.Prefix(t)
	slot, err := rdb.ClusterKeySlot(t.Context(), "{"+prefix+"}").Result()
	if err != nil {
		t.Fatal(err)
	}
	frozen = c.MasterForSlot(t, int(slot))
	queues, addrs := queuesOnMasters(t, c, rdb, prefix)
	for i, a := range addrs {
		if a != frozen {
			live = queues[i]
		}
	}
	loadLibraries(t, rdb, prefix)
	return c, prefix, frozen, live
}

// TestEnqueueWhileTheRegistrysMasterIsFrozenCluster: an enqueue into a
// new queue (whose round trip registers it) on a live master, while the
// master of the store-wide registry is frozen, stores its job and sends
// the registration once. go-redis sent it again after each read timeout,
// and the enqueue, which waits for the registration's round trip, waited
// for them all.
func TestEnqueueWhileTheRegistrysMasterIsFrozenCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c, prefix, frozen, live := storeWideCluster(t)
	registry := "{" + prefix + "}:queues"
	w := &enqueueWrites{addr: frozen, what: "sadd"}
	const readTimeout = 300 * time.Millisecond
	client := c.Client(t, func(o *redis.ClusterOptions) {
		o.ReadTimeout, o.WriteTimeout = readTimeout, readTimeout
		o.Dialer = w.dial
	})
	s := storeOn(t, client, &redisstore.Config{Prefix: prefix})
	if err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
	node, err := client.MasterForKey(ctx, registry)
	if err != nil {
		t.Fatal(err)
	}
	warmConns(t, node, "{"+prefix+"}:warm")
	thaw := c.FreezeAddr(t, frozen)
	defer thaw()

	before := w.n.Load()
	res, err := s.Enqueue(ctx, []*store.NewJob{job(live, "new-queue")})
	if err != nil || res[0].Err != nil || res[0].Duplicate {
		t.Fatalf("enqueue into a new queue on a live master: %+v, %v; want it stored", res, err)
	}
	if n := w.n.Load() - before; n != 1 {
		t.Errorf("the registration went %d times to the registry's frozen master, want once", n)
	}
}

// TestClaimWhileTheStoreWideKeysMasterIsFrozenCluster: a claim on a live
// master, while the master of the store-wide keys is frozen, takes its
// job within its bound when it is the call that reads the store-wide
// keys again (every 10 s, one claim or enqueue of the store does). The
// claim waited for that read until its context ended, and failed: a
// worker's claims failed one after another, whatever their queue's node.
func TestClaimWhileTheStoreWideKeysMasterIsFrozenCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c, prefix, frozen, live := storeWideCluster(t)
	client := c.Client(t, func(o *redis.ClusterOptions) { o.ReadTimeout, o.WriteTimeout = 2*time.Second, 2*time.Second })
	s := storeOn(t, client, &redisstore.Config{Prefix: prefix})
	if _, err := s.Enqueue(ctx, []*store.NewJob{job(live, "a")}); err != nil {
		t.Fatal(err)
	}
	thaw := c.FreezeAddr(t, frozen)
	defer thaw()
	redisstore.ExpirePartsRead(s)
	// A worker's claim bound: half its lease, 5 s at most; here less
	// than the client's read timeout.
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	res, err := s.Claim(cctx, store.ClaimOpts{Queue: live, Max: 1, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("claim on a live master while the store-wide keys' master is frozen: %d jobs, %v; want its job", len(res.Jobs), err)
	}
}
