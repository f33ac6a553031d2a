package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	watch := &outboxStderr{w: a.stderr}
	cmd.Stderr = watch
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &exit):
		return outboxExit(exit, watch)
	default:
		return fmt.Errorf("run %s: %w", bin, err)
	}
}

// outboxExit maps the exit status of hopper-outbox, which printed why it
// failed, to the hopper command's rule (main.go), which hopper-outbox
// follows too: 2 for bad usage, 1 for a failure while running (both
// printed already: hopper adds nothing). A crash of the Go runtime exits 2
// as well, and is a failure (1); so is an end by a signal.
func outboxExit(exit *exec.ExitError, stderr *outboxStderr) error {
	switch code := exit.ExitCode(); {
	case code == 2 && stderr.crashed:
		return fmt.Errorf("%s crashed (%v)", outboxProgram, exit)
	case code == 2:
		return errUsage // it printed what was wrong and its usage
	case code == 1:
		return errFailed // it printed why
	default:
		return fmt.Errorf("%s failed (%v)", outboxProgram, exit)
	}
}

// outboxStderr passes hopper-outbox's stderr through and remembers
// whether the Go runtime reported a panic or a fatal error.
type outboxStderr struct {
	w       io.Writer
	partial []byte // the start of a line not ended yet
	crashed bool
}

func (s *outboxStderr) Write(p []byte) (int, error) {
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		line := string(s.partial[:i])
		s.partial = s.partial[i+1:]
		if strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ") {
			s.crashed = true
		}
	}
	if len(s.partial) > 4096 {
		s.partial = s.partial[:0] // no line of interest is that long
	}
	return s.w.Write(p)
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
