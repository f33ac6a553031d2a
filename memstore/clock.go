package memstore

import "time"

// ceilMs returns d in milliseconds, rounded up; zero for d <= 0.
func ceilMs(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// unixMsCeil returns t in Unix milliseconds, rounded up, so that a due time
// never moves earlier than asked.
func unixMsCeil(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		ms++
	}
	return ms
}

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
