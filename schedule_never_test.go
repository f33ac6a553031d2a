package hopper_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// TestScheduleThatNeverFiresIsRefused: a cron expression whose dates
// never occur (30 February, 31 April) is refused wherever a spec is
// checked; it passed, and a Scheduler running it spun a core and never
// returned.
func TestScheduleThatNeverFiresIsRefused(t *testing.T) {
	ctx := t.Context()
	for _, spec := range []string{"0 0 30 2 *", "0 0 31 4 *", "0 0 0 31 11 *"} {
		if next, err := hopper.NextTick(spec, time.Now()); err == nil || !strings.Contains(err.Error(), "never fires") {
			t.Errorf("NextTick(%q): %v, %v; want an error saying it never fires", spec, next, err)
		}
		ins := hopper.NewInspector(newStore())
		err := ins.SetSchedule(ctx, hopper.Schedule{Name: "never", Spec: spec, Args: Echo{}})
		if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), "never fires") {
			t.Errorf("SetSchedule(%q): %v; want ErrInvalidConfig saying it never fires", spec, err)
		}
		cfg := hopper.SchedulerConfig{Schedules: []hopper.Schedule{{Name: "never", Spec: spec, Args: Echo{}}}}
		if err := cfg.Validate(); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Errorf("SchedulerConfig.Validate with %q: %v; want ErrInvalidConfig", spec, err)
		}
	}
	// Dates that occur only some years still fire.
	if _, err := hopper.NextTick("0 0 29 2 *", time.Now()); err != nil {
		t.Errorf("29 February: %v, want its next tick", err)
	}
}
