package main

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestJobsListUnknownQueueSaysSo: jobs list of a queue the store does not
// know prints what it printed ("0 of 0 jobs", exit 0) and says on stderr
// that no queue has that name in the Redis it read, naming --redis: a
// mistyped name or a forgotten --redis looked like an empty queue. A
// known queue with nothing in the state listed says nothing more.
func TestJobsListUnknownQueueSaysSo(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		seed(t, c.store)
		r := c.run(t, "queues", "pause", "early")
		wantCode(t, r, 0, "pause a queue before its first job")

		notice := "hopper jobs list: no queue named typo in the Redis at "
		for _, tc := range []struct {
			args   []string
			stdout string
		}{
			{[]string{"jobs", "list", "--queue", "typo"}, "ID  KIND  ATTEMPT  WHEN  ARGS  LAST ERROR\n0 of 0 jobs in ready of typo\n"},
			{[]string{"jobs", "list", "--queue", "typo", "--json"}, ""},
			{[]string{"jobs", "list", "--queue", "typo", "--kind", "send_email"}, ""},
		} {
			what := strings.Join(tc.args, " ")
			r := c.run(t, tc.args...)
			wantCode(t, r, 0, what)
			if tc.stdout != "" && r.stdout != tc.stdout {
				t.Errorf("%s: stdout %q, want %q", what, r.stdout, tc.stdout)
			}
			if !strings.Contains(r.stderr, notice) || !strings.Contains(r.stderr, "(--redis)") || !strings.Contains(r.stderr, "check the name") {
				t.Errorf("%s: stderr %q, want a line starting %q naming --redis", what, r.stderr, notice)
			}
			if len(c.flags) > 0 && !strings.Contains(r.stderr, c.flags[1]) {
				t.Errorf("%s: stderr %q does not name the Redis read, %s", what, r.stderr, c.flags[1])
			}
		}

		for _, args := range [][]string{
			{"jobs", "list", "--queue", "default", "--state", "retry"},
			{"jobs", "list", "--queue", "early"},
			{"jobs", "list", "--queue", "default", "--kind", "nothing"},
		} {
			what := strings.Join(args, " ")
			r := c.run(t, args...)
			wantCode(t, r, 0, what)
			if r.stderr != "" {
				t.Errorf("%s: a known queue: stderr %q, want none", what, r.stderr)
			}
		}
	})
}

// TestJobsListEmptyPartitionIsKnown: a partition of a partitioned queue
// is known before it had a job (the store lists it only after), so jobs
// list of it says nothing of an unknown queue.
func TestJobsListEmptyPartitionIsKnown(t *testing.T) {
	srv := redistest.Start(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"part": 8}})
	c := &cli{store: s, open: openRedis, flags: []string{"--redis", "redis://" + srv.Addr + "/0", "--redis-prefix", prefix}}
	if _, err := s.Enqueue(t.Context(), []*store.NewJob{{ID: "p1", Queue: "part", Kind: "send_email", Args: []byte{0x80}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		q := store.PartitionName("part", i)
		r := c.run(t, "jobs", "list", "--queue", q)
		wantCode(t, r, 0, "list "+q)
		if r.stderr != "" {
			t.Errorf("list %s: stderr %q, want none", q, r.stderr)
		}
	}
	r := c.run(t, "jobs", "list", "--queue", "typo~1")
	wantBadUsage(t, r, "list a partition of an unknown queue", "hopper jobs list: --queue: invalid queue name")
}
