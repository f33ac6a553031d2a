package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutboxExitCodesFollowTheRule: "hopper outbox" exits as every hopper
// command does (main.go): 0 for help, 2 for bad usage, 1 for a failure
// while running, and adds nothing to what hopper-outbox printed, except
// for a crash of the Go runtime (which exits 2) and an end by a signal.
// The fake program replays the real one's lines and statuses
// (outbox/cmd/hopper-outbox, exit_codes_test.go there).
func TestOutboxExitCodesFollowTheRule(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '%s\\n' \"$FAKE_OUTBOX_STDERR\" >&2\nexit $FAKE_OUTBOX_EXIT\n"
	if err := os.WriteFile(filepath.Join(dir, outboxProgram), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	for _, tc := range []struct {
		args   []string
		stderr string // what hopper-outbox prints
		exit   string // and its status
		code   int    // hopper's
	}{
		{[]string{"relay", "-h"}, "", "0", 0},
		{[]string{"relay", "--nosuch"}, "hopper outbox relay: flag provided but not defined: -nosuch\n\nusage: hopper outbox relay ...", "2", 2},
		{[]string{"relay", "--batch", "-1"}, "hopper outbox relay: --batch: RelayConfig.BatchSize -1 must be between 1 and 10000\n\nusage: hopper outbox relay ...", "2", 2},
		{[]string{"stats", "--postgres="}, "hopper outbox stats: no PostgreSQL URL: set --postgres, $HOPPER_POSTGRES_URL or $DATABASE_URL\n\nusage: hopper outbox stats ...", "2", 2},
		{[]string{"relay"}, "hopper outbox relay: cannot reach PostgreSQL: failed to connect to `user=root database=x`: 127.0.0.1:1 (localhost): dial error", "1", 1},
		{[]string{"relay"}, "time=2026-01-02T03:04:05Z level=INFO msg=relaying\npanic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\nmain.main()", "2", 1},
	} {
		what := strings.Join(tc.args, " ") + " exiting " + tc.exit
		t.Setenv("FAKE_OUTBOX_STDERR", tc.stderr)
		t.Setenv("FAKE_OUTBOX_EXIT", tc.exit)
		var out, errs syncBuffer
		code := run(context.Background(), &app{stdout: &out, stderr: &errs}, append([]string{"outbox"}, tc.args...))
		if code != tc.code {
			t.Errorf("%s: hopper exited %d, want %d\nstderr:\n%s", what, code, tc.code, errs.String())
		}
		if !strings.HasPrefix(errs.String(), tc.stderr+"\n") {
			t.Errorf("%s: stderr %q, want hopper-outbox's %q first", what, errs.String(), tc.stderr)
		}
		// What hopper-outbox printed is all: a failure is said once.
		if tc.code != 1 || !strings.Contains(tc.stderr, "panic: ") {
			if rest := strings.TrimPrefix(errs.String(), tc.stderr+"\n"); rest != "" {
				t.Errorf("%s: hopper added %q to hopper-outbox's lines", what, rest)
			}
		}
	}
}
