package hopper_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// idleRatePeriods is what older versions could store: rate periods
// without their limits, which do nothing.
var idleRatePeriods = store.QueueConfig{MaxRunning: 1, RatePeriod: 5 * time.Second, GroupRatePeriod: 7 * time.Second}

// TestUpdateQueueConfigIdleRatePeriod: on a queue whose stored settings
// hold a RatePeriod (GroupRatePeriod) without a RateLimit
// (GroupRateLimit), UpdateQueueConfig changes an unrelated setting; a
// limit set alone gets the default period, as on a queue that never had
// one (it got the idle period back: 10 per 5s); and a period the change
// sets without a limit is refused, as on any queue (it was dropped without
// a word when it equalled the idle one).
func TestUpdateQueueConfigIdleRatePeriod(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		ins := hopper.NewInspector(st)
		a, ok := store.As[store.Admin](st)
		if !ok {
			t.Fatalf("%T has no Admin: both stores have one", st)
		}
		config := func(q string) hopper.QueueConfig {
			t.Helper()
			qs, err := ins.GetQueueStats(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			return qs.Config
		}
		for _, q := range []string{"max", "limit", "period"} {
			if err := a.SetQueueConfig(ctx, q, idleRatePeriods); err != nil {
				t.Fatal(err)
			}
		}

		if err := ins.UpdateQueueConfig(ctx, "max", func(c *hopper.QueueConfig) error { c.MaxRunning = 2; return nil }); err != nil {
			t.Errorf("UpdateQueueConfig of MaxRunning: %v, want it changed", err)
		}
		if c := config("max"); c.MaxRunning != 2 || c.RateLimit != 0 || c.GroupRateLimit != 0 {
			t.Errorf("after changing MaxRunning: %+v, want MaxRunning 2 and no rate limits", c)
		}

		if err := ins.UpdateQueueConfig(ctx, "limit", func(c *hopper.QueueConfig) error { c.RateLimit, c.GroupRateLimit = 10, 3; return nil }); err != nil {
			t.Fatalf("UpdateQueueConfig of the limits: %v", err)
		}
		if c := config("limit"); c.RateLimit != 10 || c.RatePeriod != time.Second || c.GroupRateLimit != 3 || c.GroupRatePeriod != time.Second {
			t.Errorf("after setting the limits alone: %d per %v, %d per %v per group; want 10 per 1s, 3 per 1s (the default periods)",
				c.RateLimit, c.RatePeriod, c.GroupRateLimit, c.GroupRatePeriod)
		}

		for _, change := range []func(c *hopper.QueueConfig){
			func(c *hopper.QueueConfig) { c.RatePeriod = 5 * time.Second },
			func(c *hopper.QueueConfig) { c.GroupRatePeriod = 7 * time.Second },
		} {
			err := ins.UpdateQueueConfig(ctx, "period", func(c *hopper.QueueConfig) error { change(c); return nil })
			if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), "RatePeriod") || !strings.Contains(err.Error(), "needs a") {
				t.Errorf("UpdateQueueConfig setting a period without a limit: %v, want ErrInvalidConfig saying it needs a limit", err)
			}
		}
		if c := config("period"); c != idleRatePeriods {
			t.Errorf("after refused changes: %+v, want the stored settings unchanged, %+v", c, idleRatePeriods)
		}
	})
}
