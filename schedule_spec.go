package hopper

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Every returns the spec "@every <d>": a schedule that ticks every d, at
// multiples of d counted from 1 January of year 1, UTC (as
// time.Time.Truncate counts), so every process agrees on the ticks; an
// interval that divides a day falls on its boundaries (Every(time.Hour)
// ticks on the hour in UTC), and a week's on Mondays. It panics if d is
// less than a millisecond.
func Every(d time.Duration) string {
	if d < time.Millisecond {
		panic(fmt.Sprintf("hopper: Every(%v): interval must be at least 1ms", d))
	}
	return "@every " + d.String()
}

// NextTick returns the first tick of spec strictly after after, or an
// error that says what is wrong with spec. A spec is:
//
//   - "@every <duration>", as Every: "@every 10s", "@every 1h30m";
//   - a cron expression, with five fields (minute hour day-of-month month
//     day-of-week) or six (seconds first): "*/5 * * * *", "0 30 9 * * MON-FRI";
//   - a descriptor: @yearly, @monthly, @weekly, @daily (or @midnight), @hourly.
//
// Cron expressions and descriptors are in UTC unless prefixed with a time
// zone, "CRON_TZ=Europe/Paris 0 9 * * *" (or "TZ="); @every takes none. In
// a zone with daylight saving time, a local time the clock skips has no
// tick that day and one it passes twice has two. Every process computes
// the same ticks from the same spec, so that each tick is enqueued once.
func NextTick(spec string, after time.Time) (time.Time, error) {
	next, err := parseSpec(spec)
	if err != nil {
		return time.Time{}, fmt.Errorf("hopper: schedule %w", err)
	}
	return next(after), nil
}

// cronParser accepts 5 fields, or 6 with seconds first, and descriptors.
var cronParser = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// parseSpec parses a schedule's spec (see NextTick) into its next-tick
// function. Its error says `spec "<spec>": <why>`, or that a spec is
// required, without a prefix: the callers say whose spec it is.
func parseSpec(spec string) (func(time.Time) time.Time, error) {
	s := strings.TrimSpace(spec)
	if s == "" {
		return nil, errors.New(`spec is required: "@every 1m" (Every(time.Minute)), a cron expression such as "*/5 * * * *", or a descriptor such as "@daily"`)
	}
	if rest, ok := strings.CutPrefix(s, "@every "); ok {
		d, err := time.ParseDuration(strings.TrimSpace(rest))
		if err != nil {
			return nil, fmt.Errorf("spec %q: %w", spec, err)
		}
		if d < time.Millisecond {
			return nil, fmt.Errorf("spec %q: interval must be at least 1ms", spec)
		}
		return func(t time.Time) time.Time { return t.Truncate(d).Add(d) }, nil
	}
	zone, expr, err := specZone(spec, s)
	if err != nil {
		return nil, err
	}
	cs, err := cronParser.Parse("CRON_TZ=" + zone + " " + expr)
	if err != nil {
		return nil, fmt.Errorf("spec %q: %w", spec, err)
	}
	// A valid expression whose days and months never meet ("0 0 30 2 *",
	// 30 February) has no tick: the parser's Next finds none within five
	// years and says so with the zero time.
	if cs.Next(time.Now()).IsZero() {
		return nil, fmt.Errorf("spec %q never fires: no date has that day of the month in those months", spec)
	}
	return cs.Next, nil
}

// specZone splits s, spec trimmed, into its time zone (UTC when it has no
// CRON_TZ= or TZ= prefix) and the cron expression or descriptor after it.
// The parser panicked on a prefix with nothing after it ("CRON_TZ=UTC ");
// and took "CRON_TZ=UTC @every 10s" for an interval counted from each
// process's own start, so that every process enqueued its own ticks.
func specZone(spec, s string) (zone, expr string, err error) {
	rest, ok := strings.CutPrefix(s, "CRON_TZ=")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "TZ="); !ok {
			return "UTC", s, nil
		}
	}
	zone, expr, _ = strings.Cut(rest, " ")
	zone, expr = strings.TrimSpace(zone), strings.TrimSpace(expr)
	switch {
	case zone == "":
		return "", "", fmt.Errorf("spec %q names no time zone after its prefix: CRON_TZ=Europe/Paris 0 9 * * *", spec)
	case expr == "":
		return "", "", fmt.Errorf("spec %q has a time zone and no cron expression after it: CRON_TZ=%s 0 9 * * *", spec, zone)
	case strings.HasPrefix(expr, "@every"):
		return "", "", fmt.Errorf("spec %q: @every ticks at multiples of its interval whatever the time zone: leave the time zone out", spec)
	}
	if _, err := time.LoadLocation(zone); err != nil {
		return "", "", fmt.Errorf("spec %q: unknown time zone %q", spec, zone)
	}
	return zone, expr, nil
}
