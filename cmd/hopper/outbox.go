package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// outboxProgram is the program that runs "hopper outbox ...". The outbox
// lives in a module of its own (github.com/hopperq/hopper/outbox) because
// it brings a PostgreSQL driver, which this command does not link.
const outboxProgram = "hopper-outbox"

// outboxInstall is how to install outboxProgram.
const outboxInstall = "go install github.com/hopperq/hopper/outbox/cmd/hopper-outbox@latest"

// runOutbox runs hopper-outbox with args (relay, migrate, stats, schema and
// their flags), found on PATH or next to this executable, passing the
// output through. When ctx ends (an interrupt) it sends the program
// SIGTERM, so that a relay finishes its batch, and waits up to 30 s.
func runOutbox(ctx context.Context, a *app, args []string) error {
	bin, err := findOutboxProgram()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = os.Stdin
	cmd.Stdout = a.stdout
	cmd.Stderr = a.stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		return errUsage // it printed its usage
	case errors.As(err, &exit):
		return fmt.Errorf("%s failed (%v)", outboxProgram, exit)
	default:
		return fmt.Errorf("run %s: %w", bin, err)
	}
}

// findOutboxProgram looks for hopper-outbox on PATH, then in the directory
// of this executable.
func findOutboxProgram() (string, error) {
	if p, err := exec.LookPath(outboxProgram); err == nil {
		return p, nil
	}
	self, err := os.Executable()
	if err == nil {
		p := filepath.Join(filepath.Dir(self), outboxProgram)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("the outbox commands are in a program of their own, %s, found neither on PATH nor next to %s (it is kept apart so that hopper carries no PostgreSQL driver); install it with\n\n\t%s", outboxProgram, self, outboxInstall)
}
