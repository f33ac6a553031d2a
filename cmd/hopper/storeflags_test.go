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

// TestBadRedisPrefix: a --redis-prefix redisstore refuses is one line
// naming the flag and the rule, exit 1, before anything connects (it was
// a panic with a stack trace from redisstore.New, after connecting, and
// hopper check printed half its report first).
func TestBadRedisPrefix(t *testing.T) {
	rule := `--redis-prefix: Config.Prefix "a:b" has ":" at byte 1 (no braces, colons, spaces or control characters)`
	c := &cli{open: refusingOpener(t)}
	for _, args := range [][]string{
		{"stats"}, {"jobs", "list"}, {"jobs", "show", "x"}, {"events", "--queue", "q"}, {"migrate", "status"},
		{"queues", "pause", "q"}, {"workflows", "list"}, {"schedules", "list"}, {"dashboard", "--addr", "127.0.0.1:0"},
	} {
		r := c.run(t, append(args, "--redis-prefix", "a:b")...)
		wantCode(t, r, 1, strings.Join(args, " "))
		wantOneLine(t, r, strings.Join(args, " "), "hopper "+args[0]+": "+rule)
	}
	r := c.run(t, "stats", "--redis-prefix", strings.Repeat("p", 65))
	wantCode(t, r, 1, "stats with a 65-byte prefix")
	wantOneLine(t, r, "stats with a 65-byte prefix", "--redis-prefix: Config.Prefix is 65 bytes, at most 64")

	// On a real Redis, through the opener the binary uses, and hopper
	// check, which dials on its own.
	srv := redistest.Start(t)
	rc := &cli{open: openRedis, flags: []string{"--redis", "redis://" + srv.Addr + "/0"}}
	for _, args := range [][]string{{"stats", "--redis-prefix", "bad prefix"}, {"check", "--redis-prefix", "bad prefix"}} {
		r := rc.run(t, args...)
		wantCode(t, r, 1, strings.Join(args, " "))
		wantOneLine(t, r, strings.Join(args, " "), `--redis-prefix: Config.Prefix "bad prefix" has " " at byte 3`)
	}
}

// TestEmptyRedisURL: --redis "" is refused before anything connects; it
// connected to localhost:6379 (go-redis's default for "redis://"),
// whatever $HOPPER_REDIS_URL said.
func TestEmptyRedisURL(t *testing.T) {
	t.Setenv("HOPPER_REDIS_URL", "redis://127.0.0.1:1/0")
	c := &cli{open: refusingOpener(t)}
	for _, url := range []string{"", " "} {
		r := c.run(t, "stats", "--redis", url)
		wantCode(t, r, 1, "stats --redis "+url)
		wantOneLine(t, r, "stats --redis "+url, "hopper stats: --redis is empty")
	}
}
