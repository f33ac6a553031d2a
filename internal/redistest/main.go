package redistest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Main runs the tests of a package with shared servers: Start and
// StartCluster without options return one server (one cluster) for the
// whole test binary, started on first use and stopped after the last test.
// Call it from TestMain:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
// Main does not return: it exits with m.Run's code.
func Main(m *testing.M) {
	shared.mu.Lock()
	shared.enabled = true
	shared.mu.Unlock()
	code := m.Run()
	if err := shared.close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// shared holds the servers of a test binary that called Main.
var shared sharedState

type sharedState struct {
	mu      sync.Mutex
	enabled bool // Main was called
	srv     *Server
	cluster *Cluster
	dirs    []string // temporary directories to remove at the end
}

// server returns the shared server, starting it on first use, or nil when
// servers are not shared (no Main and no HOPPER_TEST_REDIS).
func (sh *sharedState) server(t testing.TB) *Server {
	t.Helper()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.srv != nil {
		return sh.srv
	}
	if addr := os.Getenv(EnvRedis); addr != "" {
		s := &Server{Addr: addr, shared: true}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := ping(ctx, s.Options()); err != nil {
			t.Fatalf("redistest: %s=%s does not answer PING: %v", EnvRedis, addr, err)
		}
		sh.srv = s
		return s
	}
	if !sh.enabled {
		return nil
	}
	bin := requireBinary(t, "redis-server")
	dir, err := makeDir("shared")
	if err != nil {
		t.Fatal(err)
	}
	sh.dirs = append(sh.dirs, dir)
	var cfg config
	p, err := startServer(bin, dir, func(port int) []string { return cfg.serverArgs(port, dir) })
	if err != nil {
		t.Fatal(err)
	}
	sh.srv = &Server{Addr: p.addr(), Dir: dir, proc: p, shared: true}
	return sh.srv
}

// clusterOf returns the shared cluster, starting it on first use, or nil
// when clusters are not shared.
func (sh *sharedState) clusterOf(t testing.TB) *Cluster {
	t.Helper()
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.cluster != nil {
		return sh.cluster
	}
	if addrs := os.Getenv(EnvCluster); addrs != "" {
		c := &Cluster{Addrs: strings.Split(addrs, ","), shared: true}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.waitHealthy(ctx); err != nil {
			t.Fatalf("redistest: %s=%s: %v", EnvCluster, addrs, err)
		}
		sh.cluster = c
		return c
	}
	if !sh.enabled {
		return nil
	}
	dir, err := makeDir("cluster")
	if err != nil {
		t.Fatal(err)
	}
	sh.dirs = append(sh.dirs, dir)
	c, err := startCluster(t, dir, config{})
	if err != nil {
		t.Fatal(err)
	}
	c.shared = true
	sh.cluster = c
	return c
}

// close stops the shared servers and removes their directories.
func (sh *sharedState) close() error {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var errs []error
	if sh.srv != nil {
		if err := sh.srv.stop(); err != nil {
			errs = append(errs, err)
		}
	}
	if sh.cluster != nil {
		if err := sh.cluster.stop(); err != nil {
			errs = append(errs, err)
		}
	}
	for _, d := range sh.dirs {
		_ = os.RemoveAll(d)
	}
	if len(errs) > 0 {
		return fmt.Errorf("redistest: stopping shared servers: %v", errs)
	}
	return nil
}
