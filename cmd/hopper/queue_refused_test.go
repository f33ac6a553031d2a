package main

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestStoreRefusedQueueIsBadUsage: a queue name store.ValidateQueue takes
// but the store refuses (ErrInvalidQueue: a partition of a queue that is
// not partitioned or has fewer partitions, a partitioned queue as a whole
// where one partition is needed) is bad usage in every command that takes
// a queue: exit 2, one line naming the flag and the store's reason, then
// the usage, and nothing done. "jobs list --queue mail~1", "queues pause
// mail~1", "jobs show --queue mail~1 x" and "events --queue mail~1"
// exited 1 as for a failure while running ("--queue mail~" exited 2),
// and "queues pause mail mail~1" paused mail first.
func TestStoreRefusedQueueIsBadUsage(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"part": 2}})
	c := &cli{store: s, open: openRedis, flags: []string{"--redis", "redis://" + srv.Addr + "/0", "--redis-prefix", prefix}}
	if _, err := s.Enqueue(t.Context(), []*store.NewJob{
		{ID: "m1", Queue: "mail", Kind: "send_email", Args: []byte{0x80}},
		{ID: "p1", Queue: "part", Kind: "send_email", Args: []byte{0x80}},
	}); err != nil {
		t.Fatal(err)
	}
	notPartitioned := `invalid queue name: "mail~1" names a partition of "mail", which is not partitioned`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"jobs", "list", "--queue", "mail~1"}, "hopper jobs list: --queue: " + notPartitioned},
		{[]string{"jobs", "list", "--queue", "part~2"}, `hopper jobs list: --queue: invalid queue name: "part~2": queue "part" has 2 partitions`},
		{[]string{"jobs", "list", "--queue", "part"}, `hopper jobs list: --queue: invalid queue name: "part" has 2 partitions`},
		{[]string{"jobs", "list", "--queue", "part", "--kind", "send_email"}, `hopper jobs list: --queue: invalid queue name: "part" has 2 partitions`},
		{[]string{"jobs", "show", "--queue", "mail~1", "m1"}, "hopper jobs show: --queue: " + notPartitioned},
		{[]string{"jobs", "retry", "--queue", "mail~1", "m1"}, "hopper jobs retry: --queue: " + notPartitioned},
		{[]string{"jobs", "delete", "--queue", "mail~1", "m1"}, "hopper jobs delete: --queue: " + notPartitioned},
		{[]string{"jobs", "delete", "--queue", "mail~1", "--state", "ready", "--all"}, "hopper jobs delete: --queue: " + notPartitioned},
		{[]string{"jobs", "cancel", "--queue", "mail~1", "m1"}, "hopper jobs cancel: --queue: " + notPartitioned},
		{[]string{"jobs", "reschedule", "--queue", "mail~1", "--now", "m1"}, "hopper jobs reschedule: --queue: " + notPartitioned},
		{[]string{"queues", "pause", "mail", "mail~1"}, "hopper queues pause: " + notPartitioned},
		{[]string{"queues", "resume", "mail~1"}, "hopper queues resume: " + notPartitioned},
		{[]string{"queues", "set", "--max-running", "3", "mail", "mail~1"}, "hopper queues set: " + notPartitioned},
		{[]string{"schedules", "pause", "--queue", "mail~1", "nightly"}, "hopper schedules pause: --queue: " + notPartitioned},
		{[]string{"events", "--queue", "mail~1", "--count", "1"}, "hopper events: --queue: " + notPartitioned},
	} {
		what := strings.Join(tc.args, " ")
		r := c.run(t, tc.args...)
		wantBadUsage(t, r, what, tc.want)
	}
	// A partitioned queue as a whole has stats, but no one event stream:
	// events refuses it before it says it follows anything (it printed
	// "following part" first), alone or after a queue it takes.
	for _, args := range [][]string{
		{"events", "--queue", "part", "--count", "1"},
		{"events", "--queue", "mail,part", "--count", "1"},
	} {
		what := strings.Join(args, " ")
		r := c.run(t, args...)
		wantBadUsage(t, r, what, `hopper events: --queue: invalid queue name: "part" has 2 partitions`)
		if strings.Contains(r.stderr, "following") {
			t.Errorf("%s: said it follows before refusing the queue:\n%s", what, r.stderr)
		}
	}

	ins := hopper.NewInspector(s)
	st, err := ins.GetQueueStats(t.Context(), "mail")
	if err != nil {
		t.Fatal(err)
	}
	if st.Config.Paused || st.Config.MaxRunning != 0 {
		t.Errorf("queue mail changed by a command that refused mail~1: %+v", st.Config)
	}
	if j, err := ins.GetJob(t.Context(), "mail", "m1"); err != nil || j.State != hopper.StateReady {
		t.Errorf("job m1 after commands that refused mail~1: %v, %v", j, err)
	}
}
