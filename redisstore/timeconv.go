package redisstore

import "time"

// msTime returns the time of Unix milliseconds ms; zero for ms <= 0.
func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// msDur returns ms milliseconds as a duration.
func msDur(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
