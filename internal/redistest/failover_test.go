package redistest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

func TestClusterReplicaFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	t.Parallel()
	begin := time.Now()
	c := StartCluster(t, Replicas(1), NodeTimeout(time.Second))
	t.Logf("cluster of 3 masters and 3 replicas healthy after %v", time.Since(begin).Round(time.Millisecond))
	nodes := c.Nodes(t)
	checkTopology(t, nodes, 3, 3)
	if len(c.Addrs) != clusterMasters || len(c.AllAddrs()) != 2*clusterMasters {
		t.Fatalf("Addrs %v and AllAddrs %v, want 3 masters of 6 nodes", c.Addrs, c.AllAddrs())
	}
	for i, addr := range c.Addrs {
		if n := nodeAt(t, nodes, addr); n.Role != Master {
			t.Errorf("Addrs[%d] = %v, want a master", i, n)
		}
	}

	ctx := t.Context()
	rdb := c.Client(t)
	const key = "{failover}k"
	slot64, err := rdb.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		t.Fatal(err)
	}
	slot := int(slot64)
	master := c.MasterForSlot(t, slot)
	if n, err := rdb.MasterForKey(ctx, key); err != nil || n.Options().Addr != master {
		t.Fatalf("MasterForSlot(%d) = %s; the cluster client routes %s to %v (%v)", slot, master, key, n, err)
	}
	var replica string
	for _, n := range nodes {
		if n.Role == Replica && n.MasterAddr == master {
			replica = n.Addr
		}
	}
	// Replication is asynchronous: a write the replica has not received
	// when its master dies is lost, so wait for it (WAIT on the writing
	// connection) before the kill.
	direct := redis.NewClient(&redis.Options{Addr: master, PoolSize: 1})
	defer direct.Close()
	if err := direct.Set(ctx, key, "v1", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := direct.Wait(ctx, 1, 5*time.Second).Result(); err != nil || n != 1 {
		t.Fatalf("WAIT 1 after SET on %s: %d, %v; want the replica to acknowledge", master, n, err)
	}

	killed := time.Now()
	c.KillAddr(t, master)
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	newMaster, promotedAt := c.WaitFailover(t, wctx, master)
	t.Logf("failover: %s promoted %v after the kill of %s; every node agrees and reports ok after %v",
		newMaster, promotedAt.Sub(killed).Round(time.Millisecond), master, time.Since(killed).Round(time.Millisecond))
	if newMaster == master || newMaster != replica {
		t.Fatalf("WaitFailover returned %s, want the dead master's replica %s", newMaster, replica)
	}
	if d := promotedAt.Sub(killed); d > 10*time.Second || d < time.Second {
		t.Errorf("promotion %v after the kill, want between the 1 s node timeout and 10 s", d)
	}
	if got := c.MasterForSlot(t, slot); got != newMaster {
		t.Errorf("MasterForSlot(%d) after the failover = %s, want %s", slot, got, newMaster)
	}
	if n := nodeAt(t, c.Nodes(t), master); n.Up || !n.Failed {
		t.Errorf("killed master after the failover: %v, want down and failed", n)
	}
	promotedRDB := redis.NewClient(&redis.Options{Addr: newMaster})
	defer promotedRDB.Close()
	if v, err := promotedRDB.Get(ctx, key).Result(); err != nil || v != "v1" {
		t.Fatalf("GET %s on the new master %s = %q, %v; want v1, replicated before the kill", key, newMaster, v, err)
	}
	// A new client finds the new master at once.
	if err := c.Client(t).Set(ctx, key, "v2", 0).Err(); err != nil {
		t.Fatalf("SET through a new cluster client after the failover: %v", err)
	}
	// A client made before routes the slot to the dead master until it
	// reloads its slot map: on MOVED, or every ClusterStateReloadInterval
	// (60 s by default in go-redis v9.23), not on connection errors.
	rdb.ReloadState(ctx)
	writeEventually(t, rdb, key, "v2")

	// The old master comes back as a replica of the new one and syncs.
	restarted := time.Now()
	c.RestartAddr(t, master)
	hctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	c.WaitHealthy(t, hctx)
	t.Logf("restarted %s rejoined as a synced replica after %v", master, time.Since(restarted).Round(time.Millisecond))
	if n := nodeAt(t, c.Nodes(t), master); n.Role != Replica || n.MasterAddr != newMaster || !n.Up || n.Failed {
		t.Fatalf("restarted old master: %v, want an up replica of %s", n, newMaster)
	}
	back := redis.NewClient(&redis.Options{Addr: master, PoolSize: 1})
	defer back.Close()
	if err := back.ReadOnly(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := back.Get(ctx, key).Result(); err != nil || v != "v2" {
		t.Fatalf("READONLY GET %s on the restarted replica = %q, %v; want v2, synced from %s", key, v, err, newMaster)
	}

	// And it takes over in turn when the new master dies.
	killed = time.Now()
	c.KillAddr(t, newMaster)
	wctx, cancel = context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	again, promotedAt := c.WaitFailover(t, wctx, newMaster)
	t.Logf("second failover: %s promoted %v after the kill of %s", again, promotedAt.Sub(killed).Round(time.Millisecond), newMaster)
	if again != master {
		t.Fatalf("second WaitFailover returned %s, want the restarted %s", again, master)
	}
	rdb.ReloadState(ctx)
	writeEventually(t, rdb, key, "v3")

	// Misuse fails with a clear message.
	for _, tc := range []struct {
		name string
		fn   func(testing.TB)
		want string
	}{
		{"KillNode out of range", func(tb testing.TB) { c.KillNode(tb, 3) }, "KillNode(3) of a cluster of 3 masters"},
		{"KillAddr unknown", func(tb testing.TB) { c.KillAddr(tb, "127.0.0.1:1") }, "not a node of the cluster"},
		{"RestartAddr running", func(tb testing.TB) { c.RestartAddr(tb, master) }, "still running"},
		{"WaitFailover not killed", func(tb testing.TB) { c.WaitFailover(tb, ctx, master) }, "not a node ended with KillAddr"},
		{"WaitFailover replica", func(tb testing.TB) {
			for _, n := range c.Nodes(t) {
				if n.Up && n.Role == Replica {
					c.KillAddr(t, n.Addr)
					c.WaitFailover(tb, ctx, n.Addr)
				}
			}
		}, "served no slots"},
	} {
		ft := &fakeTB{TB: t}
		ft.run(func() { tc.fn(ft) })
		if !ft.fatal || !strings.Contains(ft.msg, tc.want) {
			t.Errorf("%s: fatal %v, message %q; want a failure saying %q", tc.name, ft.fatal, ft.msg, tc.want)
		}
	}
}

// writeEventually writes key through the cluster client until it succeeds:
// the client learns the new topology on the first errors after a failover.
func writeEventually(t *testing.T, rdb *redis.ClusterClient, key, value string) {
	t.Helper()
	ctx := t.Context()
	deadline := time.Now().Add(10 * time.Second)
	var errs int
	for {
		err := rdb.Set(ctx, key, value, 0).Err()
		if err == nil {
			break
		}
		errs++
		if time.Now().After(deadline) {
			t.Fatalf("SET %s through the cluster client after the failover: %v (%d errors)", key, err, errs)
		}
		time.Sleep(20 * time.Millisecond) // retry pacing, not synchronisation
	}
	if v, err := rdb.Get(ctx, key).Result(); err != nil || v != value {
		t.Fatalf("GET %s = %q, %v; want %s", key, v, err, value)
	}
	if errs > 0 {
		t.Logf("SET %s through the cluster client succeeded after %d errors", key, errs)
	}
}

// checkTopology fails t unless nodes are masters and replicas up, each
// replica of a master, and the masters cover every slot exactly once.
func checkTopology(t *testing.T, nodes []Node, masters, replicas int) {
	t.Helper()
	var m, r int
	byAddr := map[string]Node{}
	for _, n := range nodes {
		byAddr[n.Addr] = n
	}
	var covered [clusterSlots]int
	for _, n := range nodes {
		if !n.Up || n.Failed || n.ID == "" {
			t.Errorf("node %v: want up, not failed, with an ID", n)
		}
		switch n.Role {
		case Master:
			m++
			for _, s := range n.Slots {
				for i := s.Start; i <= s.End; i++ {
					covered[i]++
				}
			}
		case Replica:
			r++
			if mn := byAddr[n.MasterAddr]; mn.Role != Master || mn.ID != n.MasterID || len(n.Slots) > 0 {
				t.Errorf("replica %v: its master %v is not a master of the cluster", n, mn)
			}
		default:
			t.Errorf("node %v has no role", n)
		}
	}
	if m != masters || r != replicas {
		t.Fatalf("%d masters and %d replicas, want %d and %d: %v", m, r, masters, replicas, nodes)
	}
	for s, n := range covered {
		if n != 1 {
			t.Fatalf("slot %d served by %d masters, want 1: %v", s, n, nodes)
		}
	}
}

// nodeAt returns the node at addr, or fails t.
func nodeAt(t *testing.T, nodes []Node, addr string) Node {
	t.Helper()
	for _, n := range nodes {
		if n.Addr == addr {
			return n
		}
	}
	t.Fatalf("no node at %s in %v", addr, nodes)
	return Node{}
}

func TestParseClusterNodes(t *testing.T) {
	const text = "" +
		"07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,host-4 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected\n" +
		"67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922\n" +
		"292f8b365bb7edb5e285caf0b7e6ddc7265d2f4f 127.0.0.1:30003@31003 master,fail - 1426238316232 1426238315000 3 disconnected 10923-16383\n" +
		"6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005 slave,fail? 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 0 1426238316232 5 connected\n" +
		"e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca :30001@31001 myself,master - 0 0 1 connected 0-5460 [5461->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1] 7\n" +
		"1111111111111111111111111111111111111111 127.0.0.1:30009@31009 handshake - 0 0 0 connected\n"
	lines, err := parseClusterNodes(text)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(lines))
	for i, l := range lines {
		got[i] = fmt.Sprintf("%s %s %s %v %s e%d myself=%v fail=%v pfail=%v", l.ID[:4], l.Addr, l.Role, l.Slots, l.MasterID, l.ConfigEpoch, l.myself, l.fail, l.pfail)
	}
	want := []string{
		"07c3 127.0.0.1:30004 replica [] e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca e4 myself=false fail=false pfail=false",
		"67ed 127.0.0.1:30002 master [5461-10922]  e2 myself=false fail=false pfail=false",
		"292f 127.0.0.1:30003 master [10923-16383]  e3 myself=false fail=true pfail=false",
		"6ec2 127.0.0.1:30005 replica [] 67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 e5 myself=false fail=false pfail=true",
		"e7d1  master [0-5460 7]  e1 myself=true fail=false pfail=false",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("parsed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []string{"abc 127.0.0.1:1@2 master\n", "a 127.0.0.1:1@2 master - 0 0 x connected\n", "a 127.0.0.1:1@2 master - 0 0 1 connected 5-3\n"} {
		if _, err := parseClusterNodes(bad); err == nil {
			t.Errorf("parseClusterNodes(%q) succeeded, want an error", bad)
		}
	}
}

func TestMasterForSlotPrefersNewerEpoch(t *testing.T) {
	old := Node{Addr: "a", Role: Master, Slots: []SlotRange{{0, 100}}, ConfigEpoch: 1, Up: true}
	promoted := Node{Addr: "b", Role: Master, Slots: []SlotRange{{0, 100}}, ConfigEpoch: 7, Up: true}
	replica := Node{Addr: "c", Role: Replica, Up: true}
	if got := masterForSlot([]Node{old, promoted, replica}, 50); got != "b" {
		t.Errorf("two masters claim slot 50: got %q, want the newer epoch's b", got)
	}
	if got := masterForSlot([]Node{old, replica}, 101); got != "" {
		t.Errorf("unclaimed slot: got %q, want \"\"", got)
	}
}

func TestClusterOptionsRefusedByStart(t *testing.T) {
	for _, opt := range []Option{Replicas(1), NodeTimeout(time.Second)} {
		ft := &fakeTB{TB: t}
		ft.run(func() { Start(ft, opt) })
		if !ft.fatal || !strings.Contains(ft.msg, "option of StartCluster") {
			t.Errorf("Start with a cluster option: fatal %v, message %q; want a failure naming StartCluster", ft.fatal, ft.msg)
		}
	}
}
