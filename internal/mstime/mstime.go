// Package mstime converts times and durations to the whole milliseconds
// (or, for due times, microseconds) stores keep, rounding up so that
// nothing falls due or expires before the time asked for.
package mstime

import "time"

// Ceil returns d in whole milliseconds, rounded up; zero for d <= 0.
func Ceil(d time.Duration) int64 { return ceilIn(d, time.Millisecond) }

// CeilMicro returns d in whole microseconds, rounded up; zero for d <= 0.
func CeilMicro(d time.Duration) int64 { return ceilIn(d, time.Microsecond) }

// CeilUnix returns t in Unix milliseconds, rounded up.
func CeilUnix(t time.Time) int64 { return t.UnixMilli() + partial(t, time.Millisecond) }

// CeilUnixMicro returns t in Unix microseconds, rounded up.
func CeilUnixMicro(t time.Time) int64 { return t.UnixMicro() + partial(t, time.Microsecond) }

// ceilIn returns d in whole units, rounded up; zero for d <= 0.
func ceilIn(d, unit time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	n := int64(d / unit) // no d+unit-1: it overflows near the largest durations
	if d%unit != 0 {
		n++
	}
	return n
}

// partial returns 1 when t is not a whole number of units (a unit under a
// second), else 0.
func partial(t time.Time, unit time.Duration) int64 {
	if t.Nanosecond()%int(unit) != 0 {
		return 1
	}
	return 0
}
