package redisstore

import (
	"strconv"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// msTime returns the time of Unix milliseconds ms; zero for ms <= 0.
func msTime(ms int64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// msDur returns ms milliseconds as a duration.
func msDur(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// dueArg is the due argument of job j for the scripts that place it
// (place.lua): "" now, "+ms" after the server takes the call, or absolute
// Unix "ms"; with the microseconds as three decimals when there are any,
// rounded up, so that a job never falls due before the time asked for.
func dueArg(j *store.NewJob) string {
	switch {
	case !j.RunAt.IsZero():
		return msArg(mstime.CeilUnixMicro(j.RunAt))
	case j.Delay > 0:
		return "+" + msArg(mstime.CeilMicro(j.Delay))
	}
	return ""
}

// msArg formats us microseconds as milliseconds, with three decimals when
// they are not whole ("1500" for 1.5 s, "1.234" for 1,234 µs); "0" for
// us <= 0.
func msArg(us int64) string {
	if us <= 0 {
		return "0"
	}
	b := strconv.AppendInt(make([]byte, 0, 20), us/1000, 10)
	if r := us % 1000; r != 0 {
		b = append(b, '.', byte('0'+r/100), byte('0'+r/10%10), byte('0'+r%10))
	}
	return string(b)
}
