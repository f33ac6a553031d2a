package memstore

import "time"

// atMs returns the time ms (Unix milliseconds) in now's location, given that
// now is nowMs.
func atMs(now time.Time, nowMs, ms int64) time.Time {
	return now.Add(time.Duration(ms-nowMs) * time.Millisecond)
}

// untilMs returns how long from nowMs until ms, at least zero.
func untilMs(nowMs, ms int64) time.Duration {
	if ms <= nowMs {
		return 0
	}
	return time.Duration(ms-nowMs) * time.Millisecond
}
