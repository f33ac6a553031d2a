package memstore

import (
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// rateLog is a queue's sliding rate-limit window: the claims the limit
// still counts, one entry per claim call, oldest first, and their total.
// An entry leaves once it is RatePeriod old, so the log never holds more
// entries than RateLimit.
type rateLog struct {
	entries []rateEntry
	used    int
}

// rateEntry is one claim call: when, in Unix ms, and how many jobs.
type rateEntry struct {
	ms int64
	n  int
}

// room returns how many claims a window of periodMs with limit allows at
// nowMs and, when the log is not empty, when its oldest entry leaves the
// window (Unix ms; zero when empty). Entries that left are dropped.
func (l *rateLog) room(nowMs, periodMs int64, limit int) (int, int64) {
	drop := 0
	for drop < len(l.entries) && l.entries[drop].ms+periodMs <= nowMs {
		l.used -= l.entries[drop].n
		drop++
	}
	l.entries = l.entries[drop:]
	var freeMs int64
	if len(l.entries) > 0 {
		freeMs = l.entries[0].ms + periodMs
	}
	return limit - l.used, freeMs
}

// count records a claim of n jobs at nowMs.
func (l *rateLog) count(nowMs int64, n int) {
	if k := len(l.entries); k > 0 && l.entries[k-1].ms == nowMs {
		l.entries[k-1].n += n
	} else {
		l.entries = append(l.entries, rateEntry{ms: nowMs, n: n})
	}
	l.used += n
}

// rateRoom returns how many claims the limit allows at nowMs and, when the
// log is not empty, when its oldest entry leaves the window (Unix ms; zero
// when empty). Entries that left are dropped. q.mu must be held.
func (q *queue) rateRoom(nowMs int64) (room int, freeMs int64) {
	return q.rate.room(nowMs, ratePeriodMs(q.cfg), q.cfg.RateLimit)
}

// rateCount records a claim of n jobs at nowMs. q.mu must be held.
func (q *queue) rateCount(nowMs int64, n int) { q.rate.count(nowMs, n) }

// rateRetryIn is how long a claim held back by the rate limit waits: until
// the oldest counted claim leaves the window, or, with none counted (a
// limit smaller than the claim), a whole period. q.mu must be held.
func (q *queue) rateRetryIn(nowMs, freeMs int64) time.Duration {
	if freeMs == 0 {
		return time.Duration(ratePeriodMs(q.cfg)) * time.Millisecond
	}
	return untilMs(nowMs, freeMs)
}

// groupRatePeriodMs is cfg's GroupRatePeriod in whole milliseconds,
// rounded up and at least 1; 0 when the queue has no GroupRateLimit.
func groupRatePeriodMs(cfg store.QueueConfig) int64 {
	if cfg.GroupRateLimit <= 0 {
		return 0
	}
	return max(mstime.Ceil(cfg.GroupRatePeriod), 1)
}

// ratePeriodMs is cfg's RatePeriod in whole milliseconds, rounded up; the
// default for a config set without the Inspector.
func ratePeriodMs(cfg store.QueueConfig) int64 {
	if p := mstime.Ceil(cfg.RatePeriod); p > 0 {
		return p
	}
	return store.DefaultRatePeriod.Milliseconds()
}
