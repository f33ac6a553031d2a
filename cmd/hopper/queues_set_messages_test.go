package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// TestQueuesSetBadValueNamesTheFlag: a value queues set cannot take is
// bad usage, reported on one line naming the flags, not QueueConfig's
// fields, with "hopper" once, then the usage. It said "hopper queues:
// hopper: invalid config: QueueConfig.MaxRunning -1 is negative", and
// exited 1 as for a failure.
func TestQueuesSetBadValueNamesTheFlag(t *testing.T) {
	s := memstore.New(nil)
	c := &cli{store: s, open: func(context.Context, *storeFlags) (hopper.Store, func(), error) { return s, func() {}, nil }}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-running", "-1"}, "hopper queues set: --max-running -1 is negative"},
		{[]string{"--group-rate-period", "-1s"}, "hopper queues set: --group-rate-period -1s is negative"},
		{[]string{"--rate-burst", "5"}, "hopper queues set: --rate-burst 5 needs --rate-smooth"},
	} {
		r := c.run(t, append(append([]string{"queues", "set"}, tc.args...), "default")...)
		wantBadUsage(t, r, "queues set "+tc.args[0], tc.want)
		if line, _, _ := strings.Cut(r.stderr, "\n"); line != tc.want {
			t.Errorf("queues set %v: first line %q, want %q", tc.args, line, tc.want)
		}
	}
}
