package main

import (
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestQueuesSetIdleRatePeriod: on a queue whose stored settings hold a
// rate period without its limit (older versions stored them; they do
// nothing), queues set changes an unrelated setting, a --rate-limit given
// alone gets the default period (it got the idle one back: 10 per 5s), and
// a --rate-period given without a limit is refused before any queue is
// written, as on any queue (it was dropped while queues set said it set
// it, or refused after the queues before were written).
func TestQueuesSetIdleRatePeriod(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ctx := t.Context()
		ins := hopper.NewInspector(c.store)
		a, ok := store.As[store.Admin](c.store)
		if !ok {
			t.Fatalf("%T has no Admin", c.store)
		}
		idle := store.QueueConfig{MaxRunning: 1, RatePeriod: 5 * time.Second, GroupRatePeriod: 7 * time.Second}
		for _, q := range []string{"max", "limit", "period"} {
			if err := a.SetQueueConfig(ctx, q, idle); err != nil {
				t.Fatal(err)
			}
		}
		limited := hopper.QueueConfig{RateLimit: 10}
		if err := ins.SetQueueConfig(ctx, "limited", limited); err != nil {
			t.Fatal(err)
		}
		config := func(q string) hopper.QueueConfig {
			t.Helper()
			st, err := ins.GetQueueStats(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return st.Config
		}

		r := c.run(t, "queues", "set", "--max-running", "2", "max")
		wantCode(t, r, 0, "an unrelated setting")
		if got := config("max"); got.MaxRunning != 2 || got.RateLimit != 0 || got.GroupRateLimit != 0 {
			t.Errorf("after queues set --max-running 2: %+v, want MaxRunning 2 and no rate limits", got)
		}

		r = c.run(t, "queues", "set", "--rate-limit", "10", "--group-rate-limit", "3", "limit")
		wantCode(t, r, 0, "the limits alone")
		if got := config("limit"); got.RateLimit != 10 || got.RatePeriod != time.Second || got.GroupRateLimit != 3 || got.GroupRatePeriod != time.Second {
			t.Errorf("after queues set --rate-limit 10 --group-rate-limit 3: %d per %v, %d per %v per group; want 10 per 1s, 3 per 1s",
				got.RateLimit, got.RatePeriod, got.GroupRateLimit, got.GroupRatePeriod)
		}

		r = c.run(t, "queues", "set", "--rate-period", "5s", "limited", "period")
		wantBadUsage(t, r, "a period without a limit", "hopper queues set: queue period: --rate-period 5s needs a --rate-limit")
		wantOut(t, r.stderr, "a period without a limit", "no queue was changed")
		if got := config("period"); got != idle {
			t.Errorf("after a refused queues set: queue period has %+v, want %+v (unchanged)", got, idle)
		}
		if got := config("limited"); got.RatePeriod != time.Second {
			t.Errorf("after a refused queues set: queue limited has RatePeriod %v, want 1s (unchanged)", got.RatePeriod)
		}
	})
}
