package redistest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// clusterMasters is how many masters StartCluster runs: enough that queues
// spread over several shards.
const clusterMasters = 3

// Cluster is a local Redis Cluster of three masters (no replicas), covering
// all 16384 slots.
type Cluster struct {
	// Addrs are the masters' host:port, in the order they were created.
	Addrs []string

	procs  []*process
	shared bool
}

// StartCluster returns a Redis Cluster for t. Without options, in a test
// binary that calls Main, it is the binary's shared cluster (or
// HOPPER_TEST_REDIS_CLUSTER); otherwise it starts three redis-server with
// --cluster-enabled yes in temporary directories, joins them with
// redis-cli --cluster create, waits until every node reports cluster_state:ok
// with all slots covered, and stops them in t.Cleanup. When redis-server or
// redis-cli is missing, t is skipped, or failed when CI=true.
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
	bin := requireBinary(t, "redis-server")
	cli := requireBinary(t, "redis-cli")
	c := &Cluster{}
	for i := range clusterMasters {
		nodeDir := filepath.Join(dir, fmt.Sprintf("node%d", i))
		if err := os.MkdirAll(nodeDir, 0o755); err != nil {
			return nil, fmt.Errorf("redistest: %w", err)
		}
		p, err := startServer(bin, nodeDir, func(port int) []string {
			// The bus port is port+10000 by default, which may be out of
			// range or taken; pick one.
			bus, _ := freePort()
			return cfg.serverArgs(port, nodeDir,
				"--cluster-enabled", "yes",
				"--cluster-config-file", "nodes.conf",
				"--cluster-port", itoa(bus),
				"--cluster-node-timeout", "5000",
			)
		})
		if err != nil {
			_ = c.stop()
			return nil, err
		}
		c.procs = append(c.procs, p)
		c.Addrs = append(c.Addrs, p.addr())
	}
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
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
	return c, nil
}

// waitHealthy polls CLUSTER INFO on every node until each reports
// cluster_state:ok, all 16384 slots assigned and ok, and every node known,
// or ctx is done.
func (c *Cluster) waitHealthy(ctx context.Context) error {
	pause := 5 * time.Millisecond
	for {
		err := c.healthy(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("redistest: cluster %v not healthy: %w", c.Addrs, err)
		case <-time.After(pause):
		}
		pause = min(2*pause, 100*time.Millisecond)
	}
}

func (c *Cluster) healthy(ctx context.Context) error {
	for _, addr := range c.Addrs {
		rdb := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 1})
		info, err := rdb.ClusterInfo(ctx).Result()
		_ = rdb.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", addr, err)
		}
		for _, want := range []string{
			"cluster_state:ok",
			"cluster_slots_assigned:16384",
			"cluster_slots_ok:16384",
			fmt.Sprintf("cluster_known_nodes:%d", len(c.Addrs)),
		} {
			if !strings.Contains(info, want+"\r\n") {
				return fmt.Errorf("%s: CLUSTER INFO lacks %q", addr, want)
			}
		}
	}
	return nil
}

// Options returns cluster client options with short timeouts suitable for
// tests. Callers may change the copy they get.
func (c *Cluster) Options() *redis.ClusterOptions {
	return &redis.ClusterOptions{
		Addrs:        append([]string(nil), c.Addrs...),
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

func (c *Cluster) stop() error {
	var errs []error
	for _, p := range c.procs {
		if err := p.stop(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
