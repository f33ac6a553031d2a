package pgtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL names the environment variable that points the tests at a
// PostgreSQL server of your own instead of a throwaway cluster.
const EnvURL = "HOPPER_TEST_POSTGRES"

// shared is the cluster of a test binary, started on first use.
var shared struct {
	mu      sync.Mutex
	cluster *Cluster
	err     error
}

// Main runs the tests and stops the shared cluster afterwards. Call it from
// TestMain; it does not return.
func Main(m *testing.M) {
	code := m.Run()
	shared.mu.Lock()
	if c := shared.cluster; c != nil {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	shared.mu.Unlock()
	os.Exit(code)
}

// server returns the URL of the server tests create their databases on.
func server(t testing.TB) string {
	t.Helper()
	if u := os.Getenv(EnvURL); u != "" {
		return u
	}
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cluster == nil && shared.err == nil {
		shared.cluster, shared.err = Start(false)
	}
	if err := shared.err; err != nil {
		skipOrFail(t, err)
	}
	return shared.cluster.URL
}

// skipOrFail ends t for a cluster that could not start: a skip when
// PostgreSQL is not installed, except under CI=true, else a failure.
func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if errors.Is(err, ErrNotFound) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	if errors.Is(err, ErrNotFound) {
		t.Fatal(err.Error() + "; CI=true, so this is a failure, not a skip")
	}
	t.Fatal(err)
}

// NewCluster starts a throwaway cluster of t's own, for a test that kills
// and restarts it (Kill, Restart), and stops it when t ends. It survives
// its processes being killed without losing an acknowledged commit
// (synchronous_commit is on; fsync stays off, which only a machine crash
// needs). HOPPER_TEST_POSTGRES is not used: that server is not the
// test's to kill. When PostgreSQL is missing t is skipped, or failed
// under CI=true.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	c, err := start(processCrash)
	if err != nil {
		skipOrFail(t, err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("pgtest: stop cluster: %v", err)
		}
	})
	return c
}

// DB creates a fresh database for t and returns its URL; the database is
// dropped when t ends. Without HOPPER_TEST_POSTGRES it lives on the test
// binary's throwaway cluster (see Main). When PostgreSQL is missing t is
// skipped, or failed under CI=true.
func DB(t testing.TB) string {
	t.Helper()
	base := server(t)
	name := fmt.Sprintf("hopper_test_%d_%08x", os.Getpid(), rand.Uint32())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", redact(base), err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: %s is not a URL: %v", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String()
}

// redact hides the password of a URL for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
