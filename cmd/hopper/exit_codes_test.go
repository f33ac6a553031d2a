package main

import (
	"strings"
	"testing"
)

// TestBadValueIsBadUsage: a flag value, a flag or an argument a command
// cannot take is bad usage in every command: exit 2, one line naming the
// command and what was wrong, then the usage, and no store opened. jobs,
// workflows, queues, schedules, dashboard and demo exited 1 for these
// (events and check 2), after connecting for some; reschedule --in -5m
// said "-5m0s".
func TestBadValueIsBadUsage(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"jobs", "list", "--state", "zzz"}, `hopper jobs list: --state: invalid job state: "zzz" (want one of pending,`},
		{[]string{"jobs", "list", "--limit", "-1"}, "hopper jobs list: --limit must be at least 1"},
		{[]string{"jobs", "list", "--kind", "k", "--from", "abc"}, `hopper jobs list: --from "abc": want a position a search printed`},
		{[]string{"jobs", "list", "--from", "5"}, "hopper jobs list: --from goes with --kind or --search"},
		{[]string{"jobs", "list", "--queue", "bad q"}, `hopper jobs list: --queue: invalid queue name: "bad q"`},
		{[]string{"jobs", "show", "--queue", "bad q", "x"}, `hopper jobs show: --queue: invalid queue name: "bad q"`},
		{[]string{"jobs", "show", "a b"}, `hopper jobs show: invalid job: ID "a b" has " "`},
		{[]string{"jobs", "retry", "--all", "--queue", "default", "--state", "zzz"}, `hopper jobs retry: --state: invalid job state: "zzz"`},
		{[]string{"jobs", "delete", "--queue", "bad q", "x"}, `hopper jobs delete: --queue: invalid queue name: "bad q"`},
		{[]string{"jobs", "cancel", "x", "a b"}, `hopper jobs cancel: invalid job: ID "a b"`},
		{[]string{"jobs", "reschedule", "--in", "-5m", "x"}, "hopper jobs reschedule: --in -5m is negative"},
		{[]string{"jobs", "reschedule", "--priority", "999", "x"}, "hopper jobs reschedule: --priority 999 is not between"},
		{[]string{"jobs", "reschedule", "--at", "tomorrow", "x"}, `hopper jobs reschedule: --at "tomorrow" is not an RFC 3339 time`},
		{[]string{"workflows", "list", "--state", "zzz"}, `hopper workflows list: --state "zzz": want running`},
		{[]string{"workflows", "list", "--limit", "0"}, "hopper workflows list: --limit must be 1 to 1000"},
		{[]string{"workflows", "show", "bad id"}, `hopper workflows show: invalid workflow: workflow ID "bad id"`},
		{[]string{"workflows", "cancel", "ok", "bad id"}, `hopper workflows cancel: invalid workflow: workflow ID "bad id"`},
		{[]string{"queues", "pause", "bad q"}, `hopper queues pause: invalid queue name: "bad q"`},
		{[]string{"queues", "set", "--max-running", "1", "bad q"}, `hopper queues set: invalid queue name: "bad q"`},
		{[]string{"schedules", "respec", "--spec", "sometimes", "nightly"}, `hopper schedules respec: --spec "sometimes"`},
		{[]string{"dashboard", "--refresh", "-1s"}, "hopper dashboard: --refresh -1s is negative"},
		{[]string{"dashboard", "--prefix", "/a b"}, `hopper dashboard: --prefix "/a b" must hold no`},
		{[]string{"dashboard", "--addr", "nowhere"}, `hopper dashboard: --addr "nowhere": address nowhere: missing port in address`},
		{[]string{"dashboard", "--password-file", "pw"}, "hopper dashboard: --password-file needs --user"},
		{[]string{"demo", "--rate", "0"}, "hopper demo: --rate and --concurrency must be at least 1"},
		{[]string{"demo", "--addr", "nowhere"}, `hopper demo: --addr "nowhere"`},
		{[]string{"check", "--timeout", "0s"}, "hopper check: --timeout 0s"},
		{[]string{"version", "extra"}, `hopper version: unexpected argument "extra"`},
		{[]string{"stats", "--redis", "redis://localhost:notaport"}, `hopper stats: --redis "redis://localhost:notaport": invalid port`},
	} {
		what := strings.Join(tc.args, " ")
		r := c.run(t, tc.args...)
		wantBadUsage(t, r, what, tc.want)
		if line, _, _ := strings.Cut(r.stderr, "\n"); strings.Count(line, "hopper") != 1 {
			t.Errorf("%s: %q says \"hopper\" more than once", what, line)
		}
	}
	// Flags the flag package refuses were bad usage already, in every
	// command: they stay so.
	for _, args := range [][]string{{"jobs", "list", "--limit", "x"}, {"jobs", "reschedule", "--in", "soon", "x"}, {"events", "--queue", "bad q"}, {"stats", "--nosuch"}} {
		r := c.run(t, args...)
		wantCode(t, r, 2, strings.Join(args, " "))
		wantOut(t, r.stderr, strings.Join(args, " "), "usage: hopper")
	}
}
