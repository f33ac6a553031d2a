package redistest

import (
	"fmt"
	"testing"
	"time"
)

// Option changes the server Start or StartCluster gives a test. Any option
// that changes how the server runs makes it private to the test.
type Option func(*config)

// config is what the options set. New options add fields here; process
// start-up reads them in serverArgs (and, for a cluster, clusterArgs).
type config struct {
	// private asks for a server of the test's own even when a shared one
	// would do.
	private bool
	// args are extra redis-server arguments, appended after the defaults
	// (so they win over them).
	args []string
	// replicas is how many replicas each cluster master gets (Replicas);
	// negative when Replicas was given a negative count.
	replicas int
	// nodeTimeout is the cluster-node-timeout (NodeTimeout); zero for the
	// default, defaultNodeTimeout.
	nodeTimeout time.Duration
	// clusterOnly names the first option given that only StartCluster
	// understands, so that Start and StartTLS can refuse it.
	clusterOnly string
}

// Private gives the test a server of its own, stopped in its t.Cleanup, even
// when the test binary shares one (see Main). Use it for tests that change
// the server's state beyond their key prefix: CONFIG SET, ACL SETUSER,
// FLUSHALL, stopping or restarting it.
func Private() Option {
	return func(c *config) { c.private = true }
}

// Args passes extra arguments to redis-server, such as "--maxmemory",
// "10mb" or "--appendonly", "yes"; they come after the defaults (--save ""
// --appendonly no) and so override them. It implies Private.
func Args(args ...string) Option {
	return func(c *config) {
		c.private = true
		c.args = append(c.args, args...)
	}
}

// Replicas gives every master of the cluster n replicas (StartCluster
// only): the cluster is created with redis-cli --cluster create
// --cluster-replicas n, so Replicas(1) makes three masters and three
// replicas, each replica on a different master. A replica takes over when
// its master dies (KillAddr, WaitFailover). It implies Private.
func Replicas(n int) Option {
	return func(c *config) {
		c.private = true
		c.replicas = n
		c.markClusterOnly(fmt.Sprintf("Replicas(%d)", n))
	}
}

// NodeTimeout sets the cluster's cluster-node-timeout (StartCluster only;
// default 5 s): how long a node may be unreachable before the others
// suspect it. A master that dies is marked failed, and its replica
// promoted, about one to two node timeouts later, so tests of failover use
// about a second. Whole milliseconds count; d must be at least 1 ms. It
// implies Private. Args("--cluster-node-timeout", ...) wins over it.
func NodeTimeout(d time.Duration) Option {
	return func(c *config) {
		c.private = true
		c.nodeTimeout = d
		c.markClusterOnly(fmt.Sprintf("NodeTimeout(%v)", d))
	}
}

func (c *config) markClusterOnly(name string) {
	if c.clusterOnly == "" {
		c.clusterOnly = name
	}
}

// requireServerOptions fails t when opts meant for StartCluster were given
// to what starts a single server (what names it, such as "Start").
func (c config) requireServerOptions(t testing.TB, what string) {
	t.Helper()
	if c.clusterOnly != "" {
		t.Fatalf("redistest: %s is an option of StartCluster, not of %s", c.clusterOnly, what)
	}
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// serverArgs returns the redis-server command line for one server on port
// with its files in dir.
func (c config) serverArgs(port int, dir string, extra ...string) []string {
	args := []string{
		"--port", itoa(port),
		"--bind", "127.0.0.1",
		"--dir", dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--logfile", "",
	}
	args = append(args, extra...)
	return append(args, c.args...)
}
