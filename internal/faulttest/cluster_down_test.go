package faulttest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// TestClusterFullCoverageDown is scenario 7 with Redis's default
// cluster-require-full-coverage yes: once the cluster marks a killed master
// as failed, every shard refuses, and a user sees ErrClusterDown (temporary)
// on the queues of the surviving shards too — an error on every call, never
// a silent drop. The jobs those shards held are still there.
func TestClusterFullCoverageDown(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := redistest.StartCluster(t, redistest.Private(), redistest.Args("--cluster-node-timeout", "1000"))
	rdb := c.Client(t)
	ctx := t.Context()
	r := newRun(t, rdb)
	// One queue on a master that survives, and the master to kill.
	victim := c.Addrs[0]
	var live string
	for i := 0; live == "" && i < 200; i++ {
		q := fmt.Sprintf("q%d", i)
		n, err := rdb.MasterForKey(ctx, "{"+r.prefix+":"+q+"}:j")
		if err != nil {
			t.Fatal(err)
		}
		if n.Options().Addr != victim {
			live = q
		}
	}
	info, err := hopper.Enqueue(ctx, r.client, faultJob{N: 1}, &hopper.EnqueueOpts{Queue: live})
	if err != nil {
		t.Fatal(err)
	}
	c.KillNode(t, 0)

	// Within a few node timeouts the surviving shards refuse too.
	var last error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, last = hopper.Enqueue(ctx, r.client, faultJob{N: 2}, &hopper.EnqueueOpts{Queue: live})
		if errors.Is(last, redisstore.ErrClusterDown) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("enqueue on a surviving shard after a master died: %v, want ErrClusterDown once the cluster marks it failed", last)
		}
	}
	t.Logf("enqueue on a surviving shard: %v", last)
	if !redisstore.Temporary(last) {
		t.Errorf("%v is not Temporary; CLUSTERDOWN clears when the master or a replica comes back", last)
	}
	// Reads are refused the same way; the job is not reported missing.
	if _, err := r.store.GetJob(ctx, live, info.ID); !errors.Is(err, redisstore.ErrClusterDown) {
		t.Errorf("GetJob on a surviving shard: %v, want ErrClusterDown (not ErrJobNotFound)", err)
	}
	// Nothing was dropped: once the surviving masters are told to serve
	// without full coverage, the job is there, still ready.
	for _, addr := range c.Addrs[1:] {
		node := redis.NewClient(&redis.Options{Addr: addr})
		err := node.ConfigSet(ctx, "cluster-require-full-coverage", "no").Err()
		_ = node.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		rec, err := r.store.GetJob(ctx, live, info.ID)
		if err == nil {
			if rec.State != hopper.StateReady {
				t.Errorf("job on a surviving shard is %s after the outage, want ready", rec.State)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job on a surviving shard once it serves again: %v", err)
		}
	}
}
