package faulttest

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// TestClusterMasterKilled is scenario 7: the job lifecycle on a three-master
// Redis Cluster with queues spread over the shards, then one master's
// process killed. Enqueueing to a queue on the lost shard fails with a
// typed error naming the problem; the queues on the other shards keep
// working and lose nothing. The cluster runs with
// cluster-require-full-coverage no, so that the surviving shards serve
// their slots (with the default, every shard answers CLUSTERDOWN once the
// node is marked failed, which the same typed error reports).
func TestClusterMasterKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	const perQueue = 200
	c := redistest.StartCluster(t, redistest.Args("--cluster-require-full-coverage", "no"))
	rdb := c.Client(t)
	ctx := t.Context()
	// Two queues on each master.
	r := newRun(t, rdb)
	owner := map[string]string{} // queue -> master addr
	perMaster := map[string]int{}
	var queues []string
	for i := 0; len(queues) < 6 && i < 200; i++ {
		q := fmt.Sprintf("q%d", i)
		n, err := rdb.MasterForKey(ctx, "{"+r.prefix+":"+q+"}:j")
		if err != nil {
			t.Fatal(err)
		}
		addr := n.Options().Addr
		if perMaster[addr] < 2 {
			perMaster[addr]++
			owner[q] = addr
			queues = append(queues, q)
		}
	}
	if len(perMaster) != 3 || len(queues) != 6 {
		t.Fatalf("queues spread over %d masters (%v), want two on each of 3", len(perMaster), perMaster)
	}
	r.queues = queues
	w := r.startWorker("w0", workerOpts{
		Addr: strings.Join(c.Addrs, ","), Cluster: true, Prefix: r.prefix, Queues: strings.Join(queues, ","),
		Concurrency: 10, Lease: time.Second, Sleep: 5 * time.Millisecond,
	})
	w.WaitReady()
	for _, q := range queues {
		if err := r.enqueue(ctx, q, perQueue, 100, nil); err != nil {
			t.Fatal(err)
		}
	}
	r.waitQuiet(60 * time.Second)

	// Kill the master of the first queue.
	dead := owner[queues[0]]
	var live, liveNodes []string
	for _, q := range queues {
		if owner[q] != dead {
			live = append(live, q)
		}
	}
	for i, addr := range c.Addrs {
		if addr == dead {
			c.KillNode(t, i)
		} else {
			liveNodes = append(liveNodes, addr)
		}
	}
	r.addFault("")
	_, err := hopper.Enqueue(ctx, r.client, faultJob{}, &hopper.EnqueueOpts{Queue: queues[0]})
	if !errors.Is(err, redisstore.ErrUnavailable) && !errors.Is(err, redisstore.ErrClusterDown) {
		t.Fatalf("Enqueue to a queue on the killed master: %v, want ErrUnavailable or ErrClusterDown", err)
	}
	t.Logf("enqueue on the lost shard: %v", err)

	// The other shards keep working: every job enqueued there runs.
	before := r.ackedCount()
	for _, q := range live {
		if err := r.enqueue(ctx, q, perQueue, 100, nil); err != nil {
			t.Fatalf("enqueue to %s on a live shard: %v", q, err)
		}
	}
	if n := r.ackedCount() - before; n != perQueue*len(live) {
		t.Fatalf("%d enqueues acknowledged on live shards, want %d", n, perQueue*len(live))
	}
	r.queues, r.nodes = live, liveNodes
	r.waitQuiet(60 * time.Second)
	w.Stop()
	r.check(1)
}
