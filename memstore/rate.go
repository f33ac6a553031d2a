package memstore

import (
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// rateLog is a rate limit's state (a queue's, or a group's), by the terms
// store.RateTerms gives. In a sliding window: the claims the limit still
// counts, one entry per claim call, oldest first, and their total; an
// entry leaves once it is Window old, so the log never holds more entries
// than the limit. In the smooth mode: tatUs, the pace's next slot (a
// GCRA's theoretical arrival time, Unix µs): a job may start Tolerance
// before its slot, and be claimed Lead before that.
type rateLog struct {
	entries []rateEntry
	used    int
	tatUs   int64
}

// rateEntry is one claim call: when, in Unix ms, and how many jobs.
type rateEntry struct {
	ms int64
	n  int
}

// room returns how many claims t allows at nowUs and, when it allows
// fewer than a claim may want, when trying again may give more (Unix µs;
// zero when unknown: a sliding window with nothing counted). Entries that
// left the window are dropped.
func (l *rateLog) room(nowUs int64, t store.RateTerms) (int, int64) {
	if t.Smooth() {
		iv, early := t.Interval.Microseconds(), (t.Tolerance + t.Lead).Microseconds()
		tat := max(l.tatUs, nowUs)
		if ahead := tat - nowUs; ahead <= early {
			k := int((early-ahead)/iv) + 1
			return k, tat + int64(k)*iv - early
		}
		return 0, tat - early
	}
	nowMs, windowMs := nowUs/1000, mstime.Ceil(t.Window)
	drop := 0
	for drop < len(l.entries) && l.entries[drop].ms+windowMs <= nowMs {
		l.used -= l.entries[drop].n
		drop++
	}
	l.entries = l.entries[drop:]
	var freeUs int64
	if len(l.entries) > 0 {
		freeUs = (l.entries[0].ms + windowMs) * 1000
	}
	return t.Limit - l.used, freeUs
}

// count records a claim of n jobs at nowUs. In the smooth mode it returns
// when the first of them may start (Unix µs; the others follow an
// Interval apart: see startAfter); zero otherwise.
func (l *rateLog) count(nowUs int64, n int, t store.RateTerms) int64 {
	if t.Smooth() {
		tat := max(l.tatUs, nowUs)
		l.tatUs = tat + int64(n)*t.Interval.Microseconds()
		return tat - t.Tolerance.Microseconds()
	}
	nowMs := nowUs / 1000
	if k := len(l.entries); k > 0 && l.entries[k-1].ms == nowMs {
		l.entries[k-1].n += n
	} else {
		l.entries = append(l.entries, rateEntry{ms: nowMs, n: n})
	}
	l.used += n
	return 0
}

// startAfter is how long after nowUs job i of a paced claim whose first
// job may start at firstUs waits (store.ClaimResult.StartAfter), in µs.
func startAfter(nowUs, firstUs int64, i int, t store.RateTerms) int64 {
	return max(firstUs+int64(i)*t.Interval.Microseconds()-nowUs, 0)
}

// inUse is what the limit counts at nowUs (QueueStats.RateUsed): the
// claims in the window, or in the smooth mode the claims the pace is
// ahead by.
func (l *rateLog) inUse(nowUs int64, t store.RateTerms) int {
	if t.Smooth() {
		if ahead := l.tatUs - nowUs; ahead > 0 {
			iv := t.Interval.Microseconds()
			return int((ahead + iv - 1) / iv)
		}
		return 0
	}
	l.room(nowUs, t)
	return l.used
}

// idle reports whether the log counts nothing at nowUs (trimmed first).
func (l *rateLog) idle(nowUs int64, t store.RateTerms) bool {
	if t.Limit == 0 {
		*l = rateLog{}
		return true
	}
	if l.tatUs <= nowUs {
		l.tatUs = 0
	}
	l.room(nowUs, t)
	return len(l.entries) == 0 && l.tatUs == 0
}

// rateRetryIn is how long a claim held back by a rate limit waits: until
// freeUs, or, when unknown (a limit smaller than the claim with nothing
// counted), a whole window.
func rateRetryIn(nowUs, freeUs int64, t store.RateTerms) time.Duration {
	if freeUs == 0 {
		return t.Window
	}
	return max(time.Duration(freeUs-nowUs)*time.Microsecond, time.Millisecond)
}
