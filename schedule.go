package hopper

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Schedule says when a periodic job is due. Every process that runs the same
// schedule must compute the same ticks, so that each tick is enqueued once:
// Next must depend only on its argument.
type Schedule interface {
	// Next returns the first tick strictly after t.
	Next(t time.Time) time.Time
	// String returns the schedule as ParseSchedule accepts it.
	String() string
}

// Every returns a schedule that ticks every d, at multiples of d since the
// Unix epoch (so every process agrees on the ticks: Every(time.Hour) ticks on
// the hour in UTC). It panics if d is less than a millisecond.
func Every(d time.Duration) Schedule {
	if d < time.Millisecond {
		panic(fmt.Sprintf("hopper: Every(%v): interval must be at least 1ms", d))
	}
	return every(d)
}

type every time.Duration

func (e every) Next(t time.Time) time.Time {
	d := time.Duration(e)
	return t.Truncate(d).Add(d)
}

func (e every) String() string { return "@every " + time.Duration(e).String() }

// cronParser accepts 5 fields, or 6 with seconds first, and descriptors.
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

type cronSchedule struct {
	spec string
	s    cron.Schedule
}

func (c cronSchedule) Next(t time.Time) time.Time { return c.s.Next(t) }
func (c cronSchedule) String() string             { return c.spec }

// ParseSchedule parses a schedule:
//
//   - a cron expression, with five fields (minute hour day-of-month month
//     day-of-week) or six (seconds first): "*/5 * * * *", "0 30 9 * * MON-FRI";
//   - a descriptor: @yearly, @monthly, @weekly, @daily (or @midnight), @hourly;
//   - "@every <duration>", as Every: "@every 10s", "@every 1h30m".
//
// Cron expressions and descriptors are in UTC unless prefixed with a time
// zone, "CRON_TZ=Europe/Paris 0 9 * * *". It returns an error that says what
// is wrong.
func ParseSchedule(spec string) (Schedule, error) {
	s := strings.TrimSpace(spec)
	if rest, ok := strings.CutPrefix(s, "@every "); ok {
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil {
			return nil, fmt.Errorf("hopper: schedule %q: %w", spec, err)
		}
		if d < time.Millisecond {
			return nil, fmt.Errorf("hopper: schedule %q: interval must be at least 1ms", spec)
		}
		return every(d), nil
	}
	if !strings.HasPrefix(s, "CRON_TZ=") && !strings.HasPrefix(s, "TZ=") {
		s = "CRON_TZ=UTC " + s
	}
	cs, err := cronParser.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("hopper: schedule %q: %w", spec, err)
	}
	return cronSchedule{spec: strings.TrimSpace(spec), s: cs}, nil
}
