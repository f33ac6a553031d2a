package memstore

import (
	"math"
	"time"
)

// atMs returns the time ms (Unix milliseconds) in now's location, given that
// now is nowMs.
func atMs(now time.Time, nowMs, ms int64) time.Time {
	if d := ms - nowMs; d > math.MaxInt64/int64(time.Millisecond) || d < math.MinInt64/int64(time.Millisecond) {
		return time.UnixMilli(ms).In(now.Location()) // beyond a Duration (292 years) from now
	}
	return now.Add(time.Duration(ms-nowMs) * time.Millisecond)
}

// untilMs returns how long from nowMs until ms, at least zero.
func untilMs(nowMs, ms int64) time.Duration {
	if ms <= nowMs {
		return 0
	}
	if ms-nowMs > math.MaxInt64/int64(time.Millisecond) {
		return math.MaxInt64
	}
	return time.Duration(ms-nowMs) * time.Millisecond
}
