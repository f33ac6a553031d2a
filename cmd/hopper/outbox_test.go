package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeOutbox puts a hopper-outbox on PATH that prints its arguments and
// exits with the code in $FAKE_OUTBOX_EXIT.
func fakeOutbox(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"outbox got: $*\"\necho \"to stderr\" >&2\nexit ${FAKE_OUTBOX_EXIT:-0}\n"
	if err := os.WriteFile(filepath.Join(dir, outboxProgram), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
}

// TestOutboxDispatch runs "hopper outbox ..." with a hopper-outbox on PATH:
// the arguments reach it, its output comes back, and its exit code decides
// hopper's.
func TestOutboxDispatch(t *testing.T) {
	fakeOutbox(t)
	for _, tc := range []struct {
		exit string
		code int
	}{{"0", 0}, {"1", 1}, {"2", 2}} {
		t.Setenv("FAKE_OUTBOX_EXIT", tc.exit)
		var out, errs syncBuffer
		code := run(context.Background(), &app{stdout: &out, stderr: &errs}, []string{"outbox", "relay", "--batch", "10"})
		if code != tc.code {
			t.Errorf("exit %s: hopper exited %d, want %d (%s)", tc.exit, code, tc.code, errs.String())
		}
		if out.String() != "outbox got: relay --batch 10\n" || !strings.HasPrefix(errs.String(), "to stderr\n") {
			t.Errorf("exit %s: stdout %q, stderr %q", tc.exit, out.String(), errs.String())
		}
	}
}

// TestOutboxMissing runs "hopper outbox" with no hopper-outbox anywhere:
// the error says how to install it.
func TestOutboxMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errs syncBuffer
	code := run(context.Background(), &app{stdout: &out, stderr: &errs}, []string{"outbox", "relay"})
	if code != 1 || !strings.Contains(errs.String(), outboxInstall) {
		t.Fatalf("exit %d, stderr %q; want 1 and how to install hopper-outbox", code, errs.String())
	}
}
