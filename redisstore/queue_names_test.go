package redisstore_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// Queue names that a careless key scheme breaks or merges: they share
// characters a scheme might use as separators or escapes, equal each other
// after replacing '.', '-' and '_', prefix one another, or are the longest
// allowed. Each must be a queue of its own.
var awkwardQueues = []string{
	"a.b", "a-b", "a_b", "ab", "a", "a.", ".a", "-", "_", ".",
	"x-y_z", "x_y-z", "x.y.z", "j", "r", "queues", "workers",
	strings.Repeat("q", 64), strings.Repeat("q", 63),
}

func TestAwkwardQueueNames(t *testing.T) {
	prefix := redistest.Prefix(t)
	rdb := redistest.Start(t).Client(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	ctx := t.Context()
	for i, q := range awkwardQueues {
		j := job(q, "same-id")
		j.Args = []byte(q)
		j.MaxRetries = i
		mustEnqueue(t, s, j, job(q, "second"))
	}
	for i, q := range awkwardQueues {
		got, err := hopper.NewInspector(s).GetJob(ctx, q, "same-id")
		if err != nil {
			t.Fatalf("GetJob(%q): %v", q, err)
		}
		if string(got.Args) != q || got.MaxRetries != i {
			t.Fatalf("queue %q holds the job of another queue: args %q", q, got.Args)
		}
		st, err := hopper.NewInspector(s).GetQueueStats(ctx, q)
		if err != nil || st.Counts.Ready != 2 || st.Counts.Total() != 2 {
			t.Fatalf("GetQueueStats(%q) = %+v, %v; want 2 ready jobs", q, st.Counts, err)
		}
		c, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 5, Lease: time.Minute})
		if err != nil || len(c.Jobs) != 2 || c.Jobs[0].ID != "same-id" {
			t.Fatalf("Claim(%q) = %d jobs, %v; want its own 2", q, len(c.Jobs), err)
		}
	}
	qs, err := s.ListQueues(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(awkwardQueues)
	slices.Sort(want)
	if !slices.Equal(qs, want) {
		t.Fatalf("Queues = %q, want %q", qs, want)
	}
	// Every key the store wrote starts with the hash tag of its queue (or
	// the store-wide one), and each queue got keys of its own.
	keys, err := rdb.Keys(ctx, "{"+prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	tags := map[string]int{"{" + prefix + "}": 0}
	for _, q := range awkwardQueues {
		tags["{"+prefix+":"+q+"}"] = 0
	}
	for _, k := range keys {
		tag, _, ok := strings.Cut(k, "}:")
		if _, known := tags[tag+"}"]; !ok || !known {
			t.Fatalf("key %q does not start with the hash tag of a queue used here", k)
		}
		tags[tag+"}"]++
	}
	for tag, n := range tags {
		if n == 0 {
			t.Fatalf("no key has the hash tag %s", tag)
		}
	}
}

// TestQueuesSpreadOverClusterNodes checks on a Redis Cluster that queues
// land on several masters (and, through the conformance suite on the
// cluster, that every script keeps to one slot: a script touching keys of
// two slots fails there with CROSSSLOT).
func TestQueuesSpreadOverClusterNodes(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := redistest.StartCluster(t)
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	ctx := t.Context()
	var mu sync.Mutex
	nodes := map[string]bool{}
	for _, q := range awkwardQueues {
		mustEnqueue(t, s, job(q, "a"))
	}
	// Where did the queues' jobs hashes land?
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, node *redis.Client) error {
		keys, err := node.Keys(ctx, "{"+prefix+":*").Result()
		if err != nil {
			return err
		}
		for _, k := range keys {
			if strings.HasSuffix(k, "}:j") {
				mu.Lock()
				nodes[node.Options().Addr] = true
				mu.Unlock()
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) < 2 {
		t.Fatalf("the jobs of %d queues all live on %d node(s), want them spread over the masters", len(awkwardQueues), len(nodes))
	}
}
