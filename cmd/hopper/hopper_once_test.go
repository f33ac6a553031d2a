package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// TestLibraryErrorsSayHopperOnce: an error of the library ("hopper: ...")
// printed after the command's "hopper <command>: " says "hopper" once. It
// said it twice: "hopper jobs: hopper: invalid job state", "hopper
// queues: hopper: invalid queue name", "hopper workflows: hopper: not
// supported by this store".
func TestLibraryErrorsSayHopperOnce(t *testing.T) {
	m := memstore.New(nil)
	c := &cli{open: func(context.Context, *storeFlags) (hopper.Store, func(), error) { return m, func() {}, nil }}
	for _, args := range [][]string{
		{"jobs", "list", "--state", "zzz"},
		{"jobs", "retry", "--all", "--queue", "q", "--state", "zzz"},
		{"queues", "pause", "bad q"},
		{"queues", "set", "--paused", "bad q"},
		{"workflows", "show", "bad id"},
		{"jobs", "show", "a b"},
		{"schedules", "pause", "--queue", "bad q", "nightly"},
	} {
		r := c.run(t, args...)
		line, _, _ := strings.Cut(r.stderr, "\n")
		if !strings.HasPrefix(line, "hopper "+args[0]) || strings.Count(line, "hopper") != 1 {
			t.Errorf("%v: %q, want \"hopper\" once", args, line)
		}
	}
	// The flag package prints a value's error after its own words.
	r := c.run(t, "events", "--queue", "bad q")
	if line, _, _ := strings.Cut(r.stderr, "\n"); strings.Contains(line, "hopper: ") {
		t.Errorf("events --queue 'bad q': %q", line)
	}
	// Failures while running: a store without workflows or events.
	unsupported := &cli{open: func(context.Context, *storeFlags) (hopper.Store, func(), error) {
		return adminOnly{m, m}, func() {}, nil
	}}
	for _, args := range [][]string{{"workflows", "list"}, {"events", "--queue", "q"}} {
		r := unsupported.run(t, args...)
		wantCode(t, r, 1, strings.Join(args, " "))
		last := r.stderr[strings.LastIndex(strings.TrimSuffix(r.stderr, "\n"), "\n")+1:]
		if !strings.HasPrefix(last, "hopper "+args[0]+": not supported by this store") || strings.Count(last, "hopper") != 1 {
			t.Errorf("%v: %q, want \"hopper\" once", args, last)
		}
	}
}

func TestErrText(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{errors.New("hopper: invalid job state"), "invalid job state"},
		{fmt.Errorf("%w: %q", hopper.ErrInvalidQueue, "a b"), `invalid queue name: "a b"`},
		{fmt.Errorf("%w: schedule %q: %w", hopper.ErrInvalidConfig, "n", errors.New("hopper: schedule spec")), `invalid config: schedule "n": schedule spec`},
		{errors.New("cannot reach Redis"), "cannot reach Redis"},
		{errors.New(`queue "hopper: x"`), `queue "hopper: x"`}, // not at the start of an error's text
	} {
		if got := errText(tc.err); got != tc.want {
			t.Errorf("errText(%q) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
