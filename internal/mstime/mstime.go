// Package mstime converts times and durations to the whole milliseconds
// (or, for due times, microseconds) stores keep, rounding up so that
// nothing falls due or expires before the time asked for.
package mstime

import "time"

// Ceil returns d in whole milliseconds, rounded up; zero for d <= 0.
func Ceil(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	ms := int64(d / time.Millisecond) // no d+999999: it overflows near the largest durations
	if d%time.Millisecond != 0 {
		ms++
	}
	return ms
}

// CeilUnix returns t in Unix milliseconds, rounded up.
func CeilUnix(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		ms++
	}
	return ms
}

// CeilMicro returns d in whole microseconds, rounded up; zero for d <= 0.
func CeilMicro(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	us := int64(d / time.Microsecond)
	if d%time.Microsecond != 0 {
		us++
	}
	return us
}

// CeilUnixMicro returns t in Unix microseconds, rounded up.
func CeilUnixMicro(t time.Time) int64 {
	us := t.UnixMicro()
	if t.Nanosecond()%int(time.Microsecond) != 0 {
		us++
	}
	return us
}
