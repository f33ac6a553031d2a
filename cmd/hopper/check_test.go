package main

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// runCheckOn runs "hopper check" with args against a real server.
func runCheckOn(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr syncBuffer
	code := run(t.Context(), &app{stdout: &stdout, stderr: &stderr, open: openRedis}, append([]string{"check"}, args...))
	return result{code, stdout.String(), stderr.String()}
}

// wantLine fails unless the report has a line with that verdict and what.
func wantLine(t *testing.T, out, verdict, what string) {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(verdict) + `\s+(\S+ )?` + regexp.QuoteMeta(what) + `\b`)
	if !re.MatchString(out) {
		t.Errorf("no %q line for %q in:\n%s", verdict, what, out)
	}
}

// TestCheckUnfitRedis: eviction and no persistence are problems, named,
// with a non-zero exit.
func TestCheckUnfitRedis(t *testing.T) {
	srv := redistest.Start(t, redistest.Args("--maxmemory-policy", "allkeys-lru", "--save", "", "--appendonly", "no"))
	r := runCheckOn(t, "--redis", srv.Addr, "--redis-prefix", redistest.Prefix(t))
	wantCode(t, r, 1, "check of an unfit Redis")
	wantLine(t, r.stdout, "FAIL", "maxmemory-policy")
	wantLine(t, r.stdout, "FAIL", "persistence")
	wantOut(t, r.stdout, "check of an unfit Redis", "allkeys-lru", "set maxmemory-policy noeviction", "set appendonly yes")
	wantOut(t, r.stderr, "check of an unfit Redis", "2 problem(s)")
}

// TestCheckFitRedis: a Redis set up as the guide says passes; warnings
// (no replica) do not fail, unless --strict.
func TestCheckFitRedis(t *testing.T) {
	srv := redistest.Start(t, redistest.Args("--appendonly", "yes", "--appendfsync", "everysec", "--maxmemory", "256mb", "--maxmemory-policy", "noeviction"))
	flags := []string{"--redis", srv.Addr, "--redis-prefix", redistest.Prefix(t)}
	r := runCheckOn(t, flags...)
	wantCode(t, r, 0, "check of a fit Redis")
	for _, what := range []string{"server version", "functions", "maxmemory-policy", "persistence", "WAIT", "ACL rights", "stored layout", "clock skew", "round trip", "memory headroom"} {
		wantLine(t, r.stdout, "ok", what)
	}
	wantLine(t, r.stdout, "warn", "replicas")
	r = runCheckOn(t, append(flags, "--strict")...)
	wantCode(t, r, 1, "check --strict with a warning")
}

// TestCheckACLUser: an ACL user given the documented recipe passes; one
// without a command the store needs fails, naming it.
func TestCheckACLUser(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	prefix := redistest.Prefix(t)
	rdb := srv.Client(t)
	rules := []any{"ACL", "SETUSER", "workers", "reset", "on", ">secret", "~{" + prefix + ":*", "~{" + prefix + "}:*", "&" + prefix + ":*", "-@all"}
	for _, c := range redisstore.RequiredCommands() {
		if c != "unlink" {
			rules = append(rules, "+"+c)
		}
	}
	if err := rdb.Do(context.Background(), rules...).Err(); err != nil {
		t.Fatal(err)
	}
	r := runCheckOn(t, "--redis", srv.Addr, "--redis-prefix", prefix, "--acl-user", "workers")
	wantLine(t, r.stdout, "FAIL", "ACL rights")
	wantOut(t, r.stdout, "a user without UNLINK", "user workers lacks +unlink")
	if err := rdb.Do(context.Background(), "ACL", "SETUSER", "workers", "+unlink").Err(); err != nil {
		t.Fatal(err)
	}
	r = runCheckOn(t, "--redis", srv.Addr, "--redis-prefix", prefix, "--acl-user", "workers")
	wantLine(t, r.stdout, "ok", "ACL rights")
	// Its keys are the prefix's: another prefix is refused.
	r = runCheckOn(t, "--redis", srv.Addr, "--redis-prefix", prefix+"x", "--acl-user", "workers")
	wantLine(t, r.stdout, "FAIL", "ACL rights")
}

// TestCheckStoredLayout: a Redis whose layout is older than this release
// writes asks for hopper migrate; a newer one is a problem.
func TestCheckStoredLayout(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	rdb := srv.Client(t)
	ctx := context.Background()
	key := "{" + prefix + "}:layout"
	if err := rdb.Set(ctx, key, fmt.Sprint(redisstore.LayoutVersion+1), 0).Err(); err != nil {
		t.Fatal(err)
	}
	r := runCheckOn(t, "--redis", srv.Addr, "--redis-prefix", prefix)
	wantLine(t, r.stdout, "FAIL", "stored layout")
	wantOut(t, r.stdout, "a newer layout", "upgrade this binary")
}

// TestCheckCluster: every master is reported, and the cluster's coverage
// setting is read.
func TestCheckCluster(t *testing.T) {
	c := redistest.StartCluster(t)
	url := "redis://" + c.Addrs[0] + "?addr=" + strings.Join(c.Addrs[1:], "&addr=")
	r := runCheckOn(t, "--cluster", "--redis", url, "--redis-prefix", redistest.Prefix(t))
	for _, a := range c.Addrs {
		if !strings.Contains(r.stdout, a+" maxmemory-policy") {
			t.Errorf("master %s not reported:\n%s", a, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "cluster coverage") {
		t.Errorf("no cluster coverage line:\n%s", r.stdout)
	}
}
