package main

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// TestSentinelURL: a --redis URL that names a master by its Sentinel name
// (master_name) reaches the store through the sentinel, for the commands
// that open a store and for hopper check, which dials on its own. The
// command had no way to reach a Redis behind Sentinel.
func TestSentinelURL(t *testing.T) {
	if testing.Short() {
		t.Skip("sentinel in -short mode")
	}
	s := redistest.StartSentinel(t)
	prefix := redistest.Prefix(t)
	seeded := seed(t, redisstore.New(s.Client(t), &redisstore.Config{Prefix: prefix}))
	c := &cli{open: openRedis, flags: []string{"--redis", s.URL(), "--redis-prefix", prefix}}
	r := c.run(t, "jobs", "show", seeded.ready)
	wantCode(t, r, 0, "jobs show through the sentinel")
	wantOut(t, r.stdout, "jobs show through the sentinel", seeded.ready)
	r = check(t, "--redis", s.URL(), "--redis-prefix", prefix)
	if !strings.Contains(r.stdout, s.Servers[0].Addr) {
		t.Errorf("hopper check through the sentinel does not report the master %s:\n%s\n%s", s.Servers[0].Addr, r.stdout, r.stderr)
	}
	// The sentinel's own address, without master_name: said at once (it
	// was "unknown command 'config'", and check's "layout: unreadable").
	direct := &cli{open: openRedis, flags: []string{"--redis", s.Addr, "--redis-prefix", prefix}}
	for _, r := range []result{direct.run(t, "stats"), check(t, "--redis", s.Addr, "--redis-prefix", prefix)} {
		if r.code != 1 || !strings.Contains(r.stderr, "is a Redis Sentinel") || !strings.Contains(r.stderr, "master_name") {
			t.Errorf("a command given the sentinel's address: exit %d, want 1 saying it is a Sentinel and naming master_name:\n%s\n%s", r.code, r.stdout, r.stderr)
		}
	}
}

// TestSentinelURLErrors: a Sentinel URL with --cluster is bad usage that
// says why, and an error quoting a Sentinel URL hides both its passwords.
func TestSentinelURLErrors(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	r := c.run(t, "stats", "--cluster", "--redis", "redis://127.0.0.1:26379?master_name=mymaster")
	wantBadUsage(t, r, "a Sentinel URL with --cluster", `hopper stats: --redis "redis://127.0.0.1:26379?master_name=mymaster": master_name names a Sentinel's master`)
	r = c.run(t, "stats", "--redis", "redis://u:S3CRETPW@127.0.0.1:26379?master_name=mymaster&password=S3CRETPW2&bogus=1")
	if r.code != 2 || strings.Contains(r.stderr, "S3CRETPW") || !strings.Contains(r.stderr, "bogus") {
		t.Errorf("a Sentinel URL with an unknown parameter: exit %d, want 2 naming the parameter, no password:\n%s", r.code, r.stderr)
	}
}
