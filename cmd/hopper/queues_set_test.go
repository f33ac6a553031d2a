package main

import (
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// queues set changes the settings named by the flags given, a zero
// included, and keeps every other one.
func TestQueuesSetChangesOnlyTheFlagsGiven(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ctx := t.Context()
		ins := hopper.NewInspector(c.store)
		start := hopper.QueueConfig{Paused: true, MaxRunning: 3, RateLimit: 50, RatePeriod: time.Second, Retention: time.Hour}
		if err := ins.SetQueueConfig(ctx, "default", start); err != nil {
			t.Fatal(err)
		}
		config := func() hopper.QueueConfig {
			st, err := ins.GetQueueStats(ctx, "default")
			if err != nil {
				t.Fatal(err)
			}
			return st.Config
		}

		r := c.run(t, "queues", "set", "--group-max-running", "2", "default")
		wantCode(t, r, 0, "set one setting")
		wantOut(t, r.stdout, "set one setting", "set group-max-running of default")
		want := start
		want.GroupMaxRunning = 2
		if got := config(); got != want {
			t.Errorf("after queues set --group-max-running 2: %+v, want %+v", got, want)
		}

		wantCode(t, c.run(t, "queues", "set", "--max-running", "0", "--rate-period", "2s", "default"), 0, "set two settings")
		want.MaxRunning, want.RatePeriod = 0, 2*time.Second
		if got := config(); got != want {
			t.Errorf("after queues set --max-running 0 --rate-period 2s: %+v, want %+v", got, want)
		}

		wantCode(t, c.run(t, "queues", "set", "default"), 2, "set without a setting")
		wantBadUsage(t, c.run(t, "queues", "set", "--max-running", "-1", "default"), "a negative cap", "hopper queues set: --max-running -1 is negative")
		wantBadUsage(t, c.run(t, "queues", "set", "--max-running", "1", "bad name"), "a bad queue name", `hopper queues set: invalid queue name: "bad name"`)
		if got := config(); got != want {
			t.Errorf("after refused sets: %+v, want it unchanged, %+v", got, want)
		}
	})
}
