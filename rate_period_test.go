package hopper_test

import (
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// TestRatePeriodNeedsRateLimit: a RatePeriod (GroupRatePeriod) without a
// RateLimit (GroupRateLimit) is refused with ErrInvalidConfig saying so;
// it was accepted and did nothing. A period left by a limit a change
// removes is dropped, and one second (what Normalize writes) still passes.
func TestRatePeriodNeedsRateLimit(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		in := hopper.NewInspector(open())
		want := "hopper: invalid config: QueueConfig.RatePeriod 1m0s needs a RateLimit (the starts allowed per RatePeriod): set RateLimit too, or leave RatePeriod zero"
		for what, err := range map[string]error{
			"SetQueueConfig":    in.SetQueueConfig(ctx, "q", hopper.QueueConfig{RatePeriod: time.Minute}),
			"UpdateQueueConfig": in.UpdateQueueConfig(ctx, "q", func(c *hopper.QueueConfig) error { c.RatePeriod = time.Minute; return nil }),
		} {
			if !errors.Is(err, hopper.ErrInvalidConfig) || err.Error() != want {
				t.Errorf("%s with a RatePeriod and no RateLimit: %v, want %q", what, err, want)
			}
		}
		err := in.SetQueueConfig(ctx, "q", hopper.QueueConfig{GroupRatePeriod: time.Minute})
		if want := "hopper: invalid config: QueueConfig.GroupRatePeriod 1m0s needs a GroupRateLimit (the starts allowed per GroupRatePeriod): set GroupRateLimit too, or leave GroupRatePeriod zero"; !errors.Is(err, hopper.ErrInvalidConfig) || err.Error() != want {
			t.Errorf("SetQueueConfig with a GroupRatePeriod and no GroupRateLimit: %v, want %q", err, want)
		}
		if err := in.SetQueueConfig(ctx, "q", hopper.QueueConfig{RateLimit: 5, RatePeriod: time.Minute, GroupRateLimit: 1, GroupRatePeriod: time.Minute}); err != nil {
			t.Fatal(err)
		}
		if err := in.UpdateQueueConfig(ctx, "q", func(c *hopper.QueueConfig) error { c.RateLimit, c.GroupRateLimit = 0, 0; return nil }); err != nil {
			t.Errorf("UpdateQueueConfig removing the rate limits: %v, want them removed", err)
		}
		st, err := in.GetQueueStats(ctx, "q")
		if err != nil {
			t.Fatal(err)
		}
		if c := st.Config; c.RateLimit != 0 || c.RatePeriod != time.Second || c.GroupRateLimit != 0 || c.GroupRatePeriod != 0 {
			t.Errorf("after removing the limits: %+v, want no limits and the default periods", c)
		}
		if err := in.SetQueueConfig(ctx, "q", st.Config); err != nil {
			t.Errorf("SetQueueConfig of the settings GetQueueStats read: %v", err)
		}
		if err := in.PauseQueue(ctx, "q"); err != nil {
			t.Errorf("PauseQueue: %v", err)
		}
	})
}
