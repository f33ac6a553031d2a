package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// TestQueuesSetAllOrNone: queues set checks what its flags make of every
// queue's settings before it writes any: a value that only a later
// queue's stored settings refuse is bad usage naming that queue, and no
// queue changes. "queues set --rate-burst 5 a b", with a's rate smooth
// and b's not, set a's burst and then refused b.
func TestQueuesSetAllOrNone(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ctx := t.Context()
		ins := hopper.NewInspector(c.store)
		smooth := hopper.QueueConfig{RateLimit: 10, RateSmooth: true}
		for q, cfg := range map[string]hopper.QueueConfig{"a": smooth, "b": {RateLimit: 10}, "c": smooth} {
			if err := ins.SetQueueConfig(ctx, q, cfg); err != nil {
				t.Fatal(err)
			}
		}
		burst := func(q string) int {
			st, err := ins.GetQueueStats(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return st.Config.RateBurst
		}

		r := c.run(t, "queues", "set", "--rate-burst", "5", "a", "b", "c")
		wantBadUsage(t, r, "a burst b refuses", "hopper queues set: queue b: --rate-burst 5 needs --rate-smooth; no queue was changed")
		for _, q := range []string{"a", "b", "c"} {
			if n := burst(q); n != 0 {
				t.Errorf("after a refused queues set: queue %s has RateBurst %d, want 0 (unchanged)", q, n)
			}
		}

		// A value every queue refuses is wrong by itself: no queue named.
		r = c.run(t, "queues", "set", "--max-running", "-1", "a", "b")
		wantBadUsage(t, r, "a negative cap", "hopper queues set: --max-running -1 is negative; no queue was changed")
		if line, _, _ := strings.Cut(r.stderr, "\n"); strings.Contains(line, "queue a") {
			t.Errorf("a value every queue refuses names a queue: %q", line)
		}

		// A rate period without a rate limit is refused as the Inspector
		// refuses it (QueueConfig.NormalizeChange), before anything is
		// written: d has no limit, so a's period does not change either.
		if err := ins.SetQueueConfig(ctx, "d", hopper.QueueConfig{MaxRunning: 3}); err != nil {
			t.Fatal(err)
		}
		r = c.run(t, "queues", "set", "--rate-period", "1m", "a", "d")
		wantBadUsage(t, r, "a period d has no limit for", "hopper queues set: queue d: ")
		if st, err := ins.GetQueueStats(ctx, "a"); err != nil || st.Config.RatePeriod == time.Minute {
			t.Errorf("after a refused queues set --rate-period: queue a's period %v (%v), want unchanged", st.Config.RatePeriod, err)
		}

		r = c.run(t, "queues", "set", "--rate-burst", "5", "a", "c")
		wantCode(t, r, 0, "a burst both take")
		wantOut(t, r.stdout, "a burst both take", "set rate-burst of a", "set rate-burst of c")
		if burst("a") != 5 || burst("c") != 5 {
			t.Errorf("after queues set --rate-burst 5 a c: bursts %d and %d, want 5", burst("a"), burst("c"))
		}
	})
}
