package hopper_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// TestScheduleZonePrefixErrors: a spec whose time zone prefix has nothing
// usable after it is refused with an error that says why, everywhere a
// spec is taken (the parser panicked on "CRON_TZ=UTC ", which crashed the
// caller, the CLI and the dashboard's handler), and "CRON_TZ=UTC @every
// 10s" is refused: it ticked from each process's own clock, so that every
// process enqueued its own ticks.
func TestScheduleZonePrefixErrors(t *testing.T) {
	ctx := t.Context()
	ins := hopper.NewInspector(newStore())
	for spec, want := range map[string]string{
		"CRON_TZ=America/New_York":    "no cron expression",
		"CRON_TZ=UTC ":                "no cron expression",
		"TZ=UTC ":                     "no cron expression",
		"CRON_TZ=":                    "names no time zone",
		"TZ= 0 9 * * *":               "names no time zone",
		"CRON_TZ=Mars/Base 0 9 * * *": `unknown time zone "Mars/Base"`,
		"CRON_TZ=UTC @every 10s":      "leave the time zone out",
		"TZ=Europe/Paris @every 1h":   "leave the time zone out",
	} {
		if _, err := hopper.NextTick(spec, time.Now()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NextTick(%q): %v, want an error saying %q", spec, err, want)
		}
		err := ins.SetSchedule(ctx, hopper.Schedule{Name: "s", Spec: spec, Args: Echo{}})
		if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("SetSchedule(%q): %v, want ErrInvalidConfig saying %q", spec, err, want)
		}
		err = hopper.SchedulerConfig{Schedules: []hopper.Schedule{{Name: "s", Spec: spec, Args: Echo{}}}}.Validate()
		if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), want) {
			t.Errorf("SchedulerConfig.Validate of %q: %v, want ErrInvalidConfig saying %q", spec, err, want)
		}
	}
}

// TestScheduleZonePrefix: a zone prefix moves a cron expression's ticks
// into that zone, with either spelling.
func TestScheduleZonePrefix(t *testing.T) {
	after := time.Date(2027, 1, 10, 12, 0, 0, 0, time.UTC)
	for spec, want := range map[string]time.Time{
		"0 9 * * *":                      time.Date(2027, 1, 11, 9, 0, 0, 0, time.UTC),
		"CRON_TZ=Europe/Paris 0 9 * * *": time.Date(2027, 1, 11, 8, 0, 0, 0, time.UTC),
		"TZ=Europe/Paris  0 9 * * *":     time.Date(2027, 1, 11, 8, 0, 0, 0, time.UTC),
		"CRON_TZ=Asia/Tokyo @daily":      time.Date(2027, 1, 10, 15, 0, 0, 0, time.UTC),
	} {
		got, err := hopper.NextTick(spec, after)
		if err != nil || !got.Equal(want) {
			t.Errorf("NextTick(%q, %v) = %v, %v; want %v", spec, after, got, err, want)
		}
	}
}
