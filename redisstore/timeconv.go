package redisstore

import "time"

// ceilMs returns d in whole milliseconds, rounded up so that nothing falls
// due or expires before the time asked for; zero for d <= 0.
func ceilMs(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}

// unixMsCeil returns t in Unix milliseconds, rounded up.
func unixMsCeil(t time.Time) int64 {
	ms := t.UnixMilli()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		ms++
	}
	return ms
}

// msTime returns the time of Unix milliseconds ms; zero for ms <= 0.
func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// msDur returns ms milliseconds as a duration.
func msDur(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
