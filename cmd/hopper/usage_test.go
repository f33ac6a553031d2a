package main

import (
	"strings"
	"testing"
)

// TestBadUsageSaysWhat: arguments a command refuses get one line naming
// the command and what was wrong, then its usage, exit 2. Some printed
// the usage alone, and "stats extra" ignored its argument and exited 0.
func TestBadUsageSaysWhat(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--replicas", "-1"}, "hopper check: --replicas -1 is negative"},
		{[]string{"check", "extra"}, `hopper check: unexpected argument "extra"`},
		{[]string{"migrate", "status", "extra"}, `hopper migrate status: unexpected argument "extra"`},
		{[]string{"queues", "set", "mail"}, "hopper queues set: give a setting to change, such as --max-running N"},
		{[]string{"queues", "set", "--max-running", "2"}, "hopper queues set: give the names of the queues to change"},
		{[]string{"queues", "frobnicate"}, `hopper queues: unknown subcommand "frobnicate"`},
		{[]string{"queues", "pause"}, "hopper queues pause: give the names of the queues to pause"},
		{[]string{"stats", "extra"}, `hopper stats: unexpected argument "extra"`},
		{[]string{"jobs", "list", "extra"}, `hopper jobs list: unexpected argument "extra"`},
		{[]string{"jobs", "show"}, "hopper jobs show: give one job ID (got 0)"},
		{[]string{"jobs", "retry"}, "hopper jobs retry: give the IDs of the jobs, or --all with --queue and --state"},
		{[]string{"jobs", "delete", "--all", "x"}, "hopper jobs delete: give job IDs or --all, not both"},
		{[]string{"jobs", "cancel"}, "hopper jobs cancel: give the IDs of the jobs to cancel"},
		{[]string{"jobs", "reschedule", "x"}, "hopper jobs reschedule: give job IDs, at most one of"},
		{[]string{"workflows", "list", "extra"}, `hopper workflows list: unexpected argument "extra"`},
		{[]string{"workflows", "show"}, "hopper workflows show: give one workflow ID (got 0)"},
		{[]string{"workflows", "cancel"}, "hopper workflows cancel: give the IDs of the workflows to cancel"},
		{[]string{"schedules", "list", "extra"}, `hopper schedules list: unexpected argument "extra"`},
		{[]string{"schedules", "pause"}, "hopper schedules pause: give the names of the schedules to pause"},
		{[]string{"schedules", "respec", "nightly"}, "hopper schedules respec: --spec is required"},
		{[]string{"events"}, "hopper events: --queue is required"},
		// These three were accepted: the argument ignored, --all refused
		// after connecting, exit 1.
		{[]string{"dashboard", "extra"}, `hopper dashboard: unexpected argument "extra"`},
		{[]string{"demo", "--duration", "1ms", "--addr", "", "extra"}, `hopper demo: unexpected argument "extra"`},
		{[]string{"jobs", "retry", "--all", "--queue", "mail"}, "hopper jobs retry: --all needs --queue and --state"},
	} {
		wantBadUsage(t, c.run(t, tc.args...), strings.Join(tc.args, " "), tc.want)
	}
}

// wantBadUsage fails t unless r is bad usage: exit 2, nothing on stdout,
// a first line on stderr that starts with first, then the usage.
func wantBadUsage(t *testing.T, r result, what, first string) {
	t.Helper()
	line, rest, _ := strings.Cut(r.stderr, "\n")
	if r.code != 2 || r.stdout != "" || !strings.HasPrefix(line, first) || !strings.Contains(rest, "usage: ") {
		t.Errorf("%s: exit code %d, want 2 with the line %q, then the usage; got\nstdout:\n%s\nstderr:\n%s", what, r.code, first, r.stdout, r.stderr)
	}
}

// TestHelpExitsZero: help asked for, of any command, exits 0 as "hopper
// -h" does (every "hopper <cmd> -h" exited 2), and "hopper help <cmd>"
// is the command's help, not the list of commands.
func TestHelpExitsZero(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	for _, args := range [][]string{
		{"-h"}, {"help"}, {"stats", "-h"}, {"stats", "--help"}, {"check", "-h"}, {"dashboard", "-h"}, {"demo", "-h"},
		{"events", "-h"}, {"version", "-h"}, {"jobs", "-h"}, {"jobs", "help"}, {"jobs", "list", "-h"}, {"jobs", "show", "-h"},
		{"workflows", "-h"}, {"workflows", "list", "-h"}, {"queues", "-h"}, {"queues", "pause", "-h"}, {"queues", "set", "-h"},
		{"schedules", "-h"}, {"schedules", "respec", "-h"}, {"migrate", "-h"}, {"migrate", "up", "-h"},
	} {
		r := c.run(t, args...)
		wantCode(t, r, 0, strings.Join(args, " "))
		if !strings.Contains(r.stdout+r.stderr, "usage") {
			t.Errorf("%v printed no usage:\n%s%s", args, r.stdout, r.stderr)
		}
	}
	r := c.run(t, "help", "jobs", "list")
	wantCode(t, r, 0, "help jobs list")
	wantOut(t, r.stderr, "help jobs list", "usage: hopper jobs list", "-search")
	r = c.run(t, "help", "nosuch")
	wantCode(t, r, 2, "help nosuch")
	// Help not asked for is still exit 2.
	wantCode(t, c.run(t, "jobs"), 2, "jobs")
	wantCode(t, c.run(t, "stats", "--nosuch"), 2, "stats --nosuch")
}
