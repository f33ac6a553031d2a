package main

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// TestStoreFlagsBeforeTheSubcommand: the store flags may come before a
// group's subcommand, or before the command, as well as after it; any
// other flag there is bad usage saying where it goes. "hopper jobs
// --redis X list" said `unknown subcommand "--redis"`.
func TestStoreFlagsBeforeTheSubcommand(t *testing.T) {
	m := memstore.New(nil)
	var mu sync.Mutex
	var opened []storeFlags
	c := &cli{open: func(_ context.Context, sf *storeFlags) (hopper.Store, func(), error) {
		mu.Lock()
		defer mu.Unlock()
		opened = append(opened, storeFlags{url: sf.url, prefix: sf.prefix, cluster: sf.cluster})
		return m, func() {}, nil
	}}
	for _, args := range [][]string{
		{"jobs", "--redis", "redis://h:1/0", "--redis-prefix", "p", "list"},
		{"jobs", "--redis=redis://h:1/0", "--redis-prefix=p", "list", "--state", "pending"},
		{"workflows", "--redis", "redis://h:1/0", "--redis-prefix", "p", "list"},
		{"queues", "--redis", "redis://h:1/0", "--redis-prefix", "p", "pause", "default"},
		{"queues", "--redis", "redis://h:1/0", "--redis-prefix", "p", "set", "--paused=false", "default"},
		{"schedules", "--redis", "redis://h:1/0", "--redis-prefix", "p", "list"},
		{"--redis", "redis://h:1/0", "--redis-prefix", "p", "stats"},
		{"--redis", "redis://h:1/0", "jobs", "--redis-prefix", "p", "list"},
	} {
		opened = nil
		what := strings.Join(args, " ")
		r := c.run(t, args...)
		wantCode(t, r, 0, what)
		if want := (storeFlags{url: "redis://h:1/0", prefix: "p"}); len(opened) != 1 || opened[0] != want {
			t.Errorf("%s opened %+v, want %+v", what, opened, want)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"jobs", "--state", "ready", "list"}, "hopper jobs: --state goes after the subcommand: hopper jobs <list|show|retry|delete|cancel|reschedule> --state ..."},
		{[]string{"workflows", "--redis", "r", "--json", "list"}, "hopper workflows: --json goes after the subcommand"},
		{[]string{"migrate", "--dry-run", "up"}, "hopper migrate: --dry-run goes after the subcommand"},
		{[]string{"--json", "stats"}, "hopper: --json goes after the command: hopper <command> --json ..."},
	} {
		what := strings.Join(tc.args, " ")
		r := c.run(t, tc.args...)
		wantCode(t, r, 2, what)
		if line, rest, _ := strings.Cut(r.stderr, "\n"); !strings.HasPrefix(line, tc.want) || !strings.Contains(rest, "usage: hopper") {
			t.Errorf("%s: want the line %q, then the usage; got\n%s", what, tc.want, r.stderr)
		}
	}
	// Help there is help.
	wantCode(t, c.run(t, "jobs", "--redis", "r", "-h"), 0, "jobs --redis r -h")
	wantCode(t, c.run(t, "jobs", "--redis", "r"), 2, "jobs --redis r")
}
