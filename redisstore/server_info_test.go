package redisstore_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// checkServerInfo enqueues jobs in two queues of s and checks what
// ServerInfo reports: each node with its version and memory, and the
// queue with more jobs estimated larger.
func checkServerInfo(t *testing.T, s *redisstore.Store, wantNodes int) {
	t.Helper()
	var big []*store.NewJob
	for i := range 200 {
		big = append(big, job("big", "b"+string(rune('a'+i%26))+string(rune('a'+i/26))))
	}
	mustEnqueue(t, s, big...)
	mustEnqueue(t, s, job("small", "s1"))
	info, err := s.ServerInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Nodes) < wantNodes {
		t.Fatalf("%d nodes, want at least %d", len(info.Nodes), wantNodes)
	}
	for _, n := range info.Nodes {
		if n.Err != "" || n.Version == "" || n.UsedMemory <= 0 || n.Uptime < 0 || n.Clients <= 0 || n.Role == "" || n.MaxMemoryPolicy == "" {
			t.Fatalf("node %+v", n)
		}
	}
	if info.Samples <= 0 || info.QueuesTotal < 2 || info.QueuesMeasured != info.QueuesTotal {
		t.Fatalf("samples %d, measured %d of %d", info.Samples, info.QueuesMeasured, info.QueuesTotal)
	}
	sizes := map[string]int64{}
	for _, q := range info.Queues {
		sizes[q.Queue] = q.Bytes
	}
	if sizes["small"] <= 0 || sizes["big"] <= sizes["small"] {
		t.Fatalf("estimated big %d bytes, small %d; want big > small > 0", sizes["big"], sizes["small"])
	}
	if info.Queues[0].Queue != "big" {
		t.Fatalf("queues not largest first: %+v", info.Queues)
	}
}

func TestServerInfo(t *testing.T) {
	s, _ := newStore(t, nil)
	checkServerInfo(t, s, 1)
}

func TestServerInfoCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	c := redistest.StartCluster(t)
	s := redisstore.New(c.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t)})
	checkServerInfo(t, s, 3)
}

// Without MEMORY USAGE (an ACL user with the documented rights) the nodes
// are still reported and the queues' estimate says it could not be made.
func TestServerInfoWithoutMemoryUsage(t *testing.T) {
	_, admin := newStore(t, nil)
	user := "nomem" + strings.ReplaceAll(t.Name(), "/", "")
	if err := admin.Do(context.Background(), "ACL", "SETUSER", user, "on", ">secret", "~*", "&*", "+@all", "-memory").Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Do(context.Background(), "ACL", "DELUSER", user) })
	o := *admin.Options()
	o.Username, o.Password = user, "secret"
	rdb := redis.NewClient(&o)
	t.Cleanup(func() { rdb.Close() })
	s := storeOn(t, rdb, nil)
	mustEnqueue(t, s, job("q", "j1"))
	info, err := s.ServerInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Nodes) != 1 || info.Nodes[0].Version == "" {
		t.Fatalf("nodes %+v", info.Nodes)
	}
	if info.QueuesErr == "" || len(info.Queues) != 0 {
		t.Fatalf("without MEMORY USAGE: QueuesErr %q, queues %+v", info.QueuesErr, info.Queues)
	}
}

// TestServerInfoCountsGroupLists: a grouped queue's estimate counts its
// groups' lists of ready jobs (layout 2), keys named after the groups: it
// counted only the keys of the layout table, so a queue of 5,000 grouped
// jobs came out below the same jobs ungrouped.
func TestServerInfoCountsGroupLists(t *testing.T) {
	s, _ := newStore(t, nil)
	var plain, grouped []*store.NewJob
	for i := range 5000 {
		plain = append(plain, job("plain", "job-id-of-some-length-"+strconv.Itoa(i)))
		j := job("grouped", "job-id-of-some-length-"+strconv.Itoa(i))
		j.Group = "tenant-" + strconv.Itoa(i%50)
		grouped = append(grouped, j)
	}
	mustEnqueue(t, s, plain...)
	mustEnqueue(t, s, grouped...)
	info, err := s.ServerInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.QueueMemory{}
	for _, q := range info.Queues {
		got[q.Queue] = q
	}
	p, g := got["plain"], got["grouped"]
	if g.Bytes < p.Bytes || g.Keys < p.Keys+40 {
		t.Fatalf("grouped queue %d bytes in %d keys, plain %d bytes in %d keys; want the grouped one at least as large, with its 50 lists", g.Bytes, g.Keys, p.Bytes, p.Keys)
	}
}
