package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// SentinelMaster is the name under which a Sentinel set watches its
// master.
const SentinelMaster = "mymaster"

// Sentinel is a master, its replica and one Redis Sentinel watching them
// (quorum 1, the master taken for down after 1 s of silence), each a
// private redis-server of the test's own, stopped in t.Cleanup.
type Sentinel struct {
	// Servers are the master and its replica as they were started: after
	// a failover Servers[1] is the master (MasterAddr says which).
	Servers [2]*Server
	// Addr is the sentinel's host:port.
	Addr string

	proc *process
}

// StartSentinel starts a master, a replica of it and a sentinel, and
// returns once the sentinel knows the replica in sync, so that a failover
// (Failover, or the master's end) can promote it. Without redis-server it
// skips t, or fails it when CI=true.
func StartSentinel(t testing.TB) *Sentinel {
	t.Helper()
	bin := requireBinary(t, "redis-server")
	master := Start(t, Private())
	_, port, _ := net.SplitHostPort(master.Addr)
	replica := Start(t, Private(), Args("--replicaof", "127.0.0.1", port))
	dir := t.TempDir()
	conf := filepath.Join(dir, "sentinel.conf")
	text := fmt.Sprintf("sentinel monitor %[1]s 127.0.0.1 %[2]s 1\n"+
		"sentinel down-after-milliseconds %[1]s 1000\n"+
		"sentinel failover-timeout %[1]s 5000\n", SentinelMaster, port)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := startServer(bin, dir, func(port int) []string {
		return []string{conf, "--sentinel", "--port", itoa(port), "--bind", "127.0.0.1", "--dir", dir, "--logfile", ""}
	})
	if err != nil {
		t.Fatal(err)
	}
	s := &Sentinel{Servers: [2]*Server{master, replica}, Addr: p.addr(), proc: p}
	t.Cleanup(func() {
		if err := p.stop(); err != nil {
			t.Error(err)
		}
	})
	s.waitReplica(t, replica.Addr)
	return s
}

// Options returns the options of a failover client of the set, with the
// tests' timeouts.
func (s *Sentinel) Options() *redis.FailoverOptions {
	return &redis.FailoverOptions{
		MasterName:    SentinelMaster,
		SentinelAddrs: []string{s.Addr},
		DialTimeout:   5 * time.Second,
		ReadTimeout:   5 * time.Second,
		WriteTimeout:  5 * time.Second,
	}
}

// Client returns a new failover client of the set (redis.NewFailoverClient),
// closed in t.Cleanup; configure, when given, adjusts its options first.
func (s *Sentinel) Client(t testing.TB, configure ...func(*redis.FailoverOptions)) *redis.Client {
	t.Helper()
	o := s.Options()
	for _, f := range configure {
		f(o)
	}
	rdb := redis.NewFailoverClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// URL returns the set's URL as go-redis's ParseFailoverURL reads it.
func (s *Sentinel) URL() string {
	return "redis://" + s.Addr + "?master_name=" + SentinelMaster
}

// MasterAddr returns the master's address as the sentinel reports it.
func (s *Sentinel) MasterAddr(t testing.TB) string {
	t.Helper()
	sc := redis.NewSentinelClient(&redis.Options{Addr: s.Addr})
	defer sc.Close()
	addr, err := sc.GetMasterAddrByName(context.Background(), SentinelMaster).Result()
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort(addr[0], addr[1])
}

// Promote asks the sentinel for a failover (SENTINEL FAILOVER) and waits
// until it reports the replica as the master, whose address it returns.
// The old master is left as the sentinel leaves it: a master that takes
// the writes of clients still on it, until the sentinel makes it a
// replica some 10 to 20 s later and its resync drops them.
func (s *Sentinel) Promote(t testing.TB) string {
	t.Helper()
	old := s.MasterAddr(t)
	sc := redis.NewSentinelClient(&redis.Options{Addr: s.Addr})
	defer sc.Close()
	if err := sc.Failover(context.Background(), SentinelMaster).Err(); err != nil {
		t.Fatal(err)
	}
	return s.WaitMasterNot(t, old)
}

// Failover promotes the replica (Promote), makes the old master its
// replica at once (REPLICAOF, which the sentinel does only later), waits
// until it is in sync, and returns the new master's address: a planned
// failover complete. A test that counts on its writes starts them after
// Failover returns.
func (s *Sentinel) Failover(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	old := s.MasterAddr(t)
	addr := s.Promote(t)
	host, port, _ := net.SplitHostPort(addr)
	rdb := redis.NewClient(&redis.Options{Addr: old})
	defer rdb.Close()
	if err := rdb.Do(ctx, "REPLICAOF", host, port).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(startTimeout)
	for {
		info, err := rdb.Info(ctx, "replication").Result()
		if err == nil && strings.Contains(info, "master_link_status:up") {
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the old master %s is not in sync with %s after %v (%v)", old, addr, startTimeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitMasterNot waits until the sentinel reports a master other than old,
// after Failover or the end of the master (Servers[i].Kill, Freeze), and
// returns its address; it fails t after startTimeout.
func (s *Sentinel) WaitMasterNot(t testing.TB, old string) string {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		if addr := s.MasterAddr(t); addr != old {
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the sentinel still reports the master %s after %v", old, startTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitReplica waits until the sentinel lists the replica at addr as a
// replica in sync with its master.
func (s *Sentinel) waitReplica(t testing.TB, addr string) {
	t.Helper()
	sc := redis.NewSentinelClient(&redis.Options{Addr: s.Addr})
	defer sc.Close()
	deadline := time.Now().Add(startTimeout)
	for {
		replicas, err := sc.Replicas(context.Background(), SentinelMaster).Result()
		if err == nil {
			for _, r := range replicas {
				if net.JoinHostPort(r["ip"], r["port"]) == addr && r["flags"] == "slave" && r["master-link-status"] == "ok" {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("redistest: the sentinel at %s does not list the replica %s in sync after %v (%v, %v)", s.Addr, addr, startTimeout, replicas, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
