package redistest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// clusterMasters is how many masters StartCluster runs: enough that
	// queues spread over several shards, and that one of them dying leaves
	// a majority to agree it failed and to elect its replica.
	clusterMasters = 3
	// defaultNodeTimeout is the cluster-node-timeout without NodeTimeout.
	defaultNodeTimeout = 5 * time.Second
	// clusterSlots is how many hash slots a Redis Cluster has.
	clusterSlots = 16384
)

// Cluster is a local Redis Cluster of three masters covering all 16384
// slots, each with the replicas Replicas asked for (none by default).
type Cluster struct {
	// Addrs are the masters' host:port, in the order they were created.
	// After a failover (KillAddr, WaitFailover) some of them may be down or
	// replicas; Nodes tells what each node is now, AllAddrs lists replicas
	// too.
	Addrs []string

	// procs are every node this package started, in creation order
	// (masters first); nil for an external cluster. The slice does not
	// change after startCluster; mu guards the processes' state.
	procs []*process
	// mu serialises killing, restarting and stopping nodes, and guards
	// killed.
	mu sync.Mutex
	// killed records, by address, what a node served when KillAddr or
	// KillNode ended it, for WaitFailover.
	killed map[string]killRecord
	shared bool
}

// StartCluster returns a Redis Cluster for t. Without options, in a test
// binary that calls Main, it is the binary's shared cluster (or
// HOPPER_TEST_REDIS_CLUSTER); otherwise it starts three redis-server with
// --cluster-enabled yes (and, with Replicas(n), n more per master) in
// temporary directories, joins them with redis-cli --cluster create, waits
// until every node reports cluster_state:ok with all slots covered and
// every replica is in sync with its master, and stops them in t.Cleanup.
// When redis-server or redis-cli is missing, t is skipped, or failed when
// CI=true.
func StartCluster(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	cfg := newConfig(opts)
	if !cfg.private {
		if c := shared.clusterOf(t); c != nil {
			return c
		}
	}
	c, err := startCluster(t, t.TempDir(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.stop(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// startCluster starts the nodes in subdirectories of dir and creates the
// cluster. On error it stops what it started.
func startCluster(t testing.TB, dir string, cfg config) (*Cluster, error) {
	t.Helper()
	if cfg.replicas < 0 {
		return nil, fmt.Errorf("redistest: Replicas(%d): want 0 or more replicas per master", cfg.replicas)
	}
	if cfg.nodeTimeout < 0 || cfg.nodeTimeout > 0 && cfg.nodeTimeout < time.Millisecond {
		return nil, fmt.Errorf("redistest: NodeTimeout(%v): want at least 1ms", cfg.nodeTimeout)
	}
	bin := requireBinary(t, "redis-server")
	cli := requireBinary(t, "redis-cli")
	c := &Cluster{}
	var addrs []string
	for i := range clusterMasters * (1 + cfg.replicas) {
		nodeDir := filepath.Join(dir, fmt.Sprintf("node%d", i))
		if err := os.MkdirAll(nodeDir, 0o755); err != nil {
			_ = c.stop()
			return nil, fmt.Errorf("redistest: %w", err)
		}
		p, err := startServer(bin, nodeDir, func(port int) []string { return cfg.clusterArgs(port, nodeDir) })
		if err != nil {
			_ = c.stop()
			return nil, err
		}
		c.procs = append(c.procs, p)
		addrs = append(addrs, p.addr())
	}
	// All nodes are on one host, so redis-cli makes the first three
	// masters and gives each a replica from the rest; it warns that the
	// replicas share their master's host, which --cluster-yes accepts.
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", itoa(cfg.replicas), "--cluster-yes")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput(); err != nil {
		_ = c.stop()
		return nil, fmt.Errorf("redistest: redis-cli %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := c.waitHealthy(ctx); err != nil {
		_ = c.stop()
		return nil, err
	}
	// Addrs are the masters, whichever nodes redis-cli picked.
	nodes, err := c.nodes(ctx)
	if err != nil {
		_ = c.stop()
		return nil, err
	}
	replicas := map[string]int{}
	for _, n := range nodes {
		switch n.Role {
		case Master:
			c.Addrs = append(c.Addrs, n.Addr)
		case Replica:
			replicas[n.MasterAddr]++
		}
	}
	for _, m := range c.Addrs {
		if replicas[m] != cfg.replicas {
			err = fmt.Errorf("master %s has %d replicas, want %d", m, replicas[m], cfg.replicas)
		}
	}
	if len(c.Addrs) != clusterMasters || err != nil {
		_ = c.stop()
		return nil, fmt.Errorf("redistest: redis-cli created an unexpected cluster: masters %v: %v; nodes: %v", c.Addrs, err, nodes)
	}
	return c, nil
}

// clusterArgs returns the redis-server command line for one cluster node
// on port with its files in dir.
func (c config) clusterArgs(port int, dir string) []string {
	timeout := c.nodeTimeout
	if timeout == 0 {
		timeout = defaultNodeTimeout
	}
	// The bus port is port+10000 by default, which may be out of range or
	// taken; pick one. A restarted node keeps it (and its port): nodes.conf
	// and the other nodes know it by them.
	bus, _ := freePort()
	return c.serverArgs(port, dir,
		"--cluster-enabled", "yes",
		"--cluster-config-file", "nodes.conf",
		"--cluster-port", itoa(bus),
		"--cluster-node-timeout", itoa(int(timeout.Milliseconds())),
		// A replica refuses to fail over when its data is older than
		// validity-factor node timeouts, and one that has not synced since
		// it started counts as infinitely old; in a test a replica always
		// takes over rather than leaving the slots down.
		"--cluster-replica-validity-factor", "0",
		// Redis 7 replicates without disk by default but waits 5 s for more
		// replicas before each full sync; a new or restarted replica need
		// not wait.
		"--repl-diskless-sync-delay", "0",
	)
}

// waitHealthy polls the nodes until healthy reports nothing wrong, or ctx
// is done.
func (c *Cluster) waitHealthy(ctx context.Context) error {
	pause := 5 * time.Millisecond
	for {
		err := c.healthy(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: cluster %v not healthy: %w", c.AllAddrs(), err)
		case <-time.After(pause):
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// healthy checks every running node: CLUSTER INFO reports cluster_state:ok,
// all 16384 slots assigned and ok and every node known; it flags no running
// node as failing and sees each as what that node says it is (master, or
// replica of which master); and a replica's link to its master is up. Nodes
// killed with KillAddr or KillNode are not asked.
func (c *Cluster) healthy(ctx context.Context) error {
	views := map[string]*view{}
	for _, addr := range c.runningAddrs() {
		v, err := c.healthyNode(ctx, addr)
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
		views[addr] = v
	}
	for addr, v := range views {
		for other, ov := range views {
			l, ok := v.byID(ov.self.ID)
			switch {
			case !ok:
				return fmt.Errorf("%s does not know %s (%s)", addr, other, ov.self.ID)
			case l.fail || l.pfail:
				return fmt.Errorf("%s flags %s as failing", addr, other)
			case l.Role != ov.self.Role || l.MasterID != ov.self.MasterID:
				return fmt.Errorf("%s sees %s as %s, which sees itself as %s", addr, other, l.describe(), ov.self.describe())
			}
		}
	}
	return nil
}

// healthyNode checks one node's own state for healthy and returns its view.
func (c *Cluster) healthyNode(ctx context.Context, addr string) (*view, error) {
	rdb := nodeClient(addr)
	defer rdb.Close()
	info, err := rdb.ClusterInfo(ctx).Result()
	if err != nil {
		return nil, err
	}
	for _, want := range []string{
		"cluster_state:ok",
		fmt.Sprintf("cluster_slots_assigned:%d", clusterSlots),
		fmt.Sprintf("cluster_slots_ok:%d", clusterSlots),
		fmt.Sprintf("cluster_known_nodes:%d", len(c.AllAddrs())),
	} {
		if !strings.Contains(info, want+"\r\n") {
			return nil, fmt.Errorf("CLUSTER INFO lacks %q", want)
		}
	}
	v, err := readView(ctx, rdb, addr)
	if err != nil {
		return nil, err
	}
	if v.self.Role == Replica {
		repl, err := rdb.Info(ctx, "replication").Result()
		if err != nil {
			return nil, err
		}
		if !strings.Contains(repl, "master_link_status:up\r\n") {
			return nil, fmt.Errorf("replica's link to its master is not up yet")
		}
	}
	return v, nil
}

// nodeClient returns a client of one node that does not retry, for
// polling.
func nodeClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr: addr, MaxRetries: -1, PoolSize: 1,
		DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: time.Second,
	})
}

// AllAddrs returns every node's host:port, masters and replicas, in the
// order they were created (the masters of Addrs first), whatever their role
// now and whether they run. For an external cluster it is Addrs.
func (c *Cluster) AllAddrs() []string {
	if c.procs == nil {
		return append([]string(nil), c.Addrs...)
	}
	addrs := make([]string, len(c.procs))
	for i, p := range c.procs {
		addrs[i] = p.addr()
	}
	return addrs
}

// runningAddrs returns the nodes that have not been killed or stopped; for
// an external cluster, Addrs.
func (c *Cluster) runningAddrs() []string {
	if c.procs == nil {
		return append([]string(nil), c.Addrs...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var addrs []string
	for _, p := range c.procs {
		if p.running() {
			addrs = append(addrs, p.addr())
		}
	}
	return addrs
}

// Config returns cluster client options with short timeouts suitable for
// tests, seeded with every node (AllAddrs), so that a client made after a
// master died still finds the cluster. Callers may change the copy they
// get.
func (c *Cluster) Options() *redis.ClusterOptions {
	return &redis.ClusterOptions{
		Addrs:        c.AllAddrs(),
		DialTimeout:  5 * time.Second,
		ReadTimeout:  5 * time.Second,
		WriteTimeout: 5 * time.Second,
	}
}

// Client returns a new cluster client, closed in t.Cleanup. configure, when
// given, adjusts the options first.
func (c *Cluster) Client(t testing.TB, configure ...func(*redis.ClusterOptions)) *redis.ClusterClient {
	t.Helper()
	o := c.Options()
	for _, f := range configure {
		f(o)
	}
	rdb := redis.NewClusterClient(o)
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

// stop stops every node at once: a master with replicas waits on SIGTERM
// for lagging replicas (Redis 7's shutdown-timeout), which stop alongside
// it rather than after it.
func (c *Cluster) stop() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	errs := make([]error, len(c.procs))
	var wg sync.WaitGroup
	for i, p := range c.procs {
		wg.Go(func() { errs[i] = p.stop() })
	}
	wg.Wait()
	return errors.Join(errs...)
}
