package main

import (
	"context"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// TestQueuesSetBadValueNamesTheFlag: a value queues set cannot take is
// reported on one line naming the flags, not QueueConfig's fields, with
// "hopper" once. It said "hopper queues: hopper: invalid config:
// QueueConfig.MaxRunning -1 is negative".
func TestQueuesSetBadValueNamesTheFlag(t *testing.T) {
	s := memstore.New(nil)
	c := &cli{store: s, open: func(context.Context, *storeFlags) (hopper.Store, func(), error) { return s, func() {}, nil }}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-running", "-1"}, "hopper queues: --max-running -1 is negative\n"},
		{[]string{"--group-rate-period", "-1s"}, "hopper queues: --group-rate-period -1s is negative\n"},
		{[]string{"--rate-burst", "5"}, "hopper queues: --rate-burst 5 needs --rate-smooth\n"},
	} {
		r := c.run(t, append(append([]string{"queues", "set"}, tc.args...), "default")...)
		wantCode(t, r, 1, "queues set "+tc.args[0])
		if r.stderr != tc.want {
			t.Errorf("queues set %v: stderr %q, want %q", tc.args, r.stderr, tc.want)
		}
	}
}
