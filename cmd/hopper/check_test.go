package main

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
)

// check runs "hopper check args..." and returns its result.
func check(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr syncBuffer
	a := &app{stdout: &stdout, stderr: &stderr, open: openRedis}
	code := run(t.Context(), a, append([]string{"check"}, args...))
	return result{code, stdout.String(), stderr.String()}
}

// checkLineOf returns the report line that checks name.
func checkLineOf(t *testing.T, out, name string) string {
	t.Helper()
	for l := range strings.Lines(out) {
		if strings.Contains(l, " "+name+": ") {
			return strings.TrimSpace(l)
		}
	}
	t.Fatalf("no %s line in:\n%s", name, out)
	return ""
}

// TestCheckBadServer: eviction and no persistence each FAIL, by name,
// and the exit code is 1.
func TestCheckBadServer(t *testing.T) {
	srv := redistest.Start(t, redistest.Args("--maxmemory-policy", "allkeys-lru", "--save", "", "--appendonly", "no"))
	r := check(t, "--redis", srv.Addr, "--redis-prefix", redistest.Prefix(t))
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"maxmemory-policy", "persistence"} {
		if l := checkLineOf(t, r.stdout, name); !strings.HasPrefix(l, "FAIL") {
			t.Errorf("%s line: %q, want FAIL", name, l)
		}
	}
	if l := checkLineOf(t, r.stdout, "maxmemory-policy"); !strings.Contains(l, "allkeys-lru") || !strings.Contains(l, "noeviction") {
		t.Errorf("policy line %q: want the value and what to set", l)
	}
	if !strings.Contains(r.stderr, "2 FAIL") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// TestCheckGoodServer: noeviction, AOF every second and memory to spare
// pass (warnings, such as no replica, do not fail); --strict fails on
// them.
func TestCheckGoodServer(t *testing.T) {
	srv := redistest.Start(t, redistest.Args("--maxmemory-policy", "noeviction", "--appendonly", "yes", "--appendfsync", "everysec", "--maxmemory", "256mb"))
	args := []string{"--redis", "redis://" + srv.Addr + "/0", "--redis-prefix", redistest.Prefix(t)}
	r := check(t, args...)
	t.Log(r.stdout)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"version", "maxmemory-policy", "persistence", "WAIT", "clock skew", "ACL", "layout", "functions", "memory", "backlog"} {
		if l := checkLineOf(t, r.stdout, name); !strings.HasPrefix(l, "ok") {
			t.Errorf("%s line: %q, want ok", name, l)
		}
	}
	if l := checkLineOf(t, r.stdout, "replicas"); !strings.HasPrefix(l, "warn") {
		t.Errorf("replicas line %q, want warn", l)
	}
	if r := check(t, append(args, "--strict")...); r.code != 1 {
		t.Errorf("--strict with a warning: exit %d, want 1", r.code)
	}
	if r := check(t, append(args, "--replicas", "1")...); r.code != 1 || !strings.HasPrefix(checkLineOf(t, r.stdout, "replicas"), "FAIL") {
		t.Errorf("--replicas 1 on a server without: exit %d\n%s", r.code, r.stdout)
	}
}

// TestCheckACLMissing: a user that lacks a command FAILs the ACL line,
// naming the rule.
func TestCheckACLMissing(t *testing.T) {
	r, l := checkWithout(t, "lpop")
	if r.code != 1 || !strings.HasPrefix(l, "FAIL") || !strings.Contains(l, "+lpop") {
		t.Fatalf("exit %d, ACL line %q: want FAIL naming +lpop\n%s", r.code, l, r.stdout)
	}
	if strings.Contains(r.stdout, "secret") {
		t.Errorf("the password is printed:\n%s", r.stdout)
	}
}

// TestCheckACLSlower: a rule hopper works without (+pttl: an enqueue then
// reads TIME and the queue's marks) is a warning, not a failure.
func TestCheckACLSlower(t *testing.T) {
	r, l := checkWithout(t, "pttl")
	if !strings.HasPrefix(l, "warn") || !strings.Contains(l, "+pttl") || !strings.Contains(l, "more Redis CPU") {
		t.Fatalf("exit %d, ACL line %q: want warn naming +pttl and the cost\n%s", r.code, l, r.stdout)
	}
}

// checkWithout runs hopper check as an ACL user that holds every command
// on the prefix but command, and returns the result and its ACL line.
func checkWithout(t *testing.T, command string) (result, string) {
	t.Helper()
	srv := redistest.Start(t, redistest.Private())
	prefix := redistest.Prefix(t)
	admin := srv.Client(t)
	rules := []any{"ACL", "SETUSER", "app", "on", ">secret", "~{" + prefix + ":*", "~{" + prefix + "}:*", "&" + prefix + ":*", "+@all", "-" + command}
	if err := admin.Do(t.Context(), rules...).Err(); err != nil {
		t.Fatal(err)
	}
	r := check(t, "--redis", "redis://app:secret@"+srv.Addr+"/0", "--redis-prefix", prefix)
	return r, checkLineOf(t, r.stdout, "ACL")
}

// TestCheckLayoutPending: data of a release before layouts (no layout
// key) is a warning naming hopper migrate up.
func TestCheckLayoutPending(t *testing.T) {
	e := newMigrateEnv(t)
	e.seedOld(t, "q")
	r := check(t, e.flags...)
	if l := checkLineOf(t, r.stdout, "layout"); !strings.HasPrefix(l, "warn") || !strings.Contains(l, "hopper migrate up") {
		t.Fatalf("layout line %q, want warn naming hopper migrate up", l)
	}
	if err := e.rdb.Set(t.Context(), "{"+e.prefix+"}:layout", "99", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r = check(t, e.flags...)
	if l := checkLineOf(t, r.stdout, "layout"); !strings.HasPrefix(l, "FAIL") || r.code != 1 {
		t.Fatalf("layout 99: exit %d, line %q, want FAIL", r.code, l)
	}
}

// TestCheckCluster: every master of a Cluster is reported, with its
// coverage setting.
func TestCheckCluster(t *testing.T) {
	c := redistest.StartCluster(t)
	u := clusterURL(c)
	r := check(t, "--cluster", "--redis", u, "--redis-prefix", redistest.Prefix(t))
	t.Log(r.stdout)
	var masters []string
	for _, n := range c.Nodes(t) {
		if n.Role == redistest.Master {
			masters = append(masters, n.Addr)
		}
	}
	if len(masters) != 3 {
		t.Fatalf("masters %v", masters)
	}
	for _, m := range masters {
		if !strings.Contains(r.stdout, "\n"+m+" (master)") {
			t.Errorf("master %s not reported:\n%s", m, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "cluster-require-full-coverage: "); n != 3 {
		t.Errorf("%d coverage lines, want 3:\n%s", n, r.stdout)
	}
}
