package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
)

// refusingOpener is a store opener that fails t when a command opens a
// store: the command should have refused its flags first.
func refusingOpener(t *testing.T) storeOpener {
	return func(_ context.Context, sf *storeFlags) (hopper.Store, func(), error) {
		t.Errorf("a store was opened with --redis %q --redis-prefix %q", sf.url, sf.prefix)
		return nil, nil, errors.New("opened")
	}
}

// wantOneLine fails t unless r's stderr is one line holding every one of
// subs and stdout is empty.
func wantOneLine(t *testing.T, r result, what string, subs ...string) {
	t.Helper()
	if strings.Count(r.stderr, "\n") != 1 || r.stdout != "" {
		t.Errorf("%s: want one line on stderr and nothing on stdout, got\nstdout:\n%s\nstderr:\n%s", what, r.stdout, r.stderr)
	}
	wantOut(t, r.stderr, what, subs...)
}

// TestBadRedisPrefix: a --redis-prefix redisstore refuses is bad usage,
// one line naming the flag and the rule, then the usage, exit 2, before
// anything connects (it was a panic with a stack trace from
// redisstore.New, after connecting, and hopper check printed half its
// report first; then exit 1).
func TestBadRedisPrefix(t *testing.T) {
	rule := `--redis-prefix: Config.Prefix "a:b" has ":" at byte 1 (no braces, colons, spaces or control characters)`
	c := &cli{open: refusingOpener(t)}
	for _, args := range [][]string{
		{"stats"}, {"jobs", "list"}, {"jobs", "show", "x"}, {"events", "--queue", "q"}, {"migrate", "status"},
		{"queues", "pause", "q"}, {"workflows", "list"}, {"schedules", "list"}, {"dashboard", "--addr", "127.0.0.1:0"},
	} {
		r := c.run(t, append(args, "--redis-prefix", "a:b")...)
		command := args[0]
		if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
			command += " " + args[1]
		}
		wantBadUsage(t, r, strings.Join(args, " "), "hopper "+command+": "+rule)
	}
	r := c.run(t, "stats", "--redis-prefix", strings.Repeat("p", 65))
	wantBadUsage(t, r, "stats with a 65-byte prefix", "hopper stats: --redis-prefix: Config.Prefix is 65 bytes, at most 64")

	// On a real Redis, through the opener the binary uses, and hopper
	// check, which dials on its own.
	srv := redistest.Start(t)
	rc := &cli{open: openRedis, flags: []string{"--redis", "redis://" + srv.Addr + "/0"}}
	for _, args := range [][]string{{"stats", "--redis-prefix", "bad prefix"}, {"check", "--redis-prefix", "bad prefix"}} {
		r := rc.run(t, args...)
		wantBadUsage(t, r, strings.Join(args, " "), "hopper "+args[0]+`: --redis-prefix: Config.Prefix "bad prefix" has " " at byte 3`)
	}
}

// TestEmptyRedisURL: --redis "" is bad usage, refused before anything
// connects; it connected to localhost:6379 (go-redis's default for
// "redis://"), whatever $HOPPER_REDIS_URL said.
func TestEmptyRedisURL(t *testing.T) {
	t.Setenv("HOPPER_REDIS_URL", "redis://127.0.0.1:1/0")
	c := &cli{open: refusingOpener(t)}
	for _, url := range []string{"", " "} {
		r := c.run(t, "stats", "--redis", url)
		wantBadUsage(t, r, "stats --redis "+url, "hopper stats: --redis is empty")
	}
}

// TestEmptyRedisPrefix: --redis-prefix "" is bad usage, refused before
// anything connects, as an empty --redis is; it meant the default prefix
// "hopper" without a word, another store than the one named.
func TestEmptyRedisPrefix(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	for _, tc := range []struct {
		command string
		args    []string
	}{
		{"stats", []string{"stats"}}, {"jobs list", []string{"jobs", "list"}}, {"events", []string{"events", "--queue", "q"}},
		{"dashboard", []string{"dashboard", "--addr", "127.0.0.1:0"}}, {"check", []string{"check", "--redis", "127.0.0.1:1"}},
	} {
		r := c.run(t, append(tc.args, "--redis-prefix", "")...)
		wantBadUsage(t, r, tc.command+` --redis-prefix ""`, "hopper "+tc.command+`: --redis-prefix is empty: give the key prefix of the store, or leave the flag out for "hopper"`)
	}
}

// TestRedisPasswordNeverShown: a --redis URL (or $HOPPER_REDIS_URL) that
// does not parse is bad usage, quoted with its password hidden; the parse error
// quoted it in clear ("parse \"redis://user:S3CRETPW@...\": invalid
// port"). The help hides the password of the default too, and says
// "default" once.
func TestRedisPasswordNeverShown(t *testing.T) {
	c := &cli{open: openRedis}
	for _, tc := range []struct{ url, want string }{
		{"redis://user:S3CRETPW@localhost:notaport/0", `--redis "redis://user:xxxxx@localhost:notaport/0": invalid port ":notaport" after host`},
		{"redis://user:S3CRETPW@local host:1/0", `--redis "redis://user:xxxxx@local host:1/0": invalid character " " in host name`},
		{"user:S3CRETPW@localhost:notaport", `--redis "redis://user:xxxxx@localhost:notaport": invalid port`},
		{"redis://:S3CRETPW@localhost:1/zero", `--redis "redis://:xxxxx@localhost:1/zero": redis: invalid database number: "zero"`},
		// A "/" or a bad escape in the password: the URL parses without
		// it, and the message says where the fault is.
		{"redis://user:S3CRETPW/x@localhost:1/0", `--redis "redis://user:xxxxx@localhost:1/0": its user name or password does not parse`},
		{"redis://user:S3CRETPW%zz@localhost:1/0", `--redis "redis://user:xxxxx@localhost:1/0": its user name or password does not parse`},
	} {
		for _, cluster := range []bool{false, true} {
			if cluster && strings.Contains(tc.url, "zero") {
				continue // a Cluster URL has no database: it would connect
			}
			args := []string{"stats", "--redis", tc.url}
			if cluster {
				args = append(args, "--cluster")
			}
			r := c.run(t, args...)
			wantBadUsage(t, r, strings.Join(args, " "), "hopper stats: "+tc.want)
			if strings.Contains(r.stderr, "S3CRETPW") {
				t.Errorf("%v shows the password: %s", args, r.stderr)
			}
		}
	}

	t.Setenv("HOPPER_REDIS_URL", "redis://user:S3CRETPW@localhost:notaport/0")
	r := c.run(t, "stats")
	wantBadUsage(t, r, "stats with $HOPPER_REDIS_URL", `hopper stats: --redis "redis://user:xxxxx@localhost:notaport/0": invalid port`)
	if strings.Contains(r.stderr, "S3CRETPW") {
		t.Errorf("stats with $HOPPER_REDIS_URL shows the password: %s", r.stderr)
	}
	r = c.run(t, "stats", "-h")
	wantOut(t, r.stderr, "stats -h", `(default "redis://user:xxxxx@localhost:notaport/0" from $HOPPER_REDIS_URL)`)
	if strings.Contains(r.stderr, "S3CRETPW") || strings.Count(redisHelp(t, r.stderr), "default") != 1 {
		t.Errorf("stats -h: the password, or \"default\" more than once:\n%s", r.stderr)
	}
	t.Setenv("HOPPER_REDIS_URL", "")
	r = c.run(t, "stats", "-h")
	wantOut(t, r.stderr, "stats -h", `(default "redis://localhost:6379/0"; $HOPPER_REDIS_URL, when set, replaces it)`)
	if strings.Count(redisHelp(t, r.stderr), "default") != 1 {
		t.Errorf("stats -h says \"default\" more than once:\n%s", r.stderr)
	}
}

// redisHelp returns the help of --redis in a command's usage.
func redisHelp(t *testing.T, usage string) string {
	t.Helper()
	_, help, ok := strings.Cut(usage, "  -redis string\n")
	if !ok {
		t.Fatalf("no -redis in the usage:\n%s", usage)
	}
	line, _, _ := strings.Cut(help, "\n")
	return line
}

// TestNoRedisLogLines: when Redis cannot be reached, hopper prints its own
// one line; go-redis's logger printed one more a dial ("redis: ...
// pool.go:770: ... failed to dial after 5 attempts") before it.
func TestNoRedisLogLines(t *testing.T) {
	r := runMain(t, "stats", "--redis", "127.0.0.1:1")
	wantCode(t, r, 1, "stats of no server")
	wantOneLine(t, r, "stats of no server", "hopper stats: cannot reach Redis at redis://127.0.0.1:1: ")
}
