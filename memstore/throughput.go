package memstore

import (
	"context"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// throughputMinutes is how many minutes of throughput a queue keeps: more
// than the hour the Store contract asks for.
const throughputMinutes = 128

// minuteCount is one minute of throughput.
type minuteCount struct {
	minute       int64 // Unix minute
	done, failed int64
}

// throughput is a ring of per-minute counts indexed by Unix minute modulo its
// size; a slot is reset when a new minute reaches it.
type throughput [throughputMinutes]minuteCount

// unixMinute returns the Unix minute holding the Unix ms ms.
func unixMinute(ms int64) int64 {
	m := ms / 60000
	if ms < 0 && ms%60000 != 0 {
		m--
	}
	return m
}

// add counts done and failed attempts in the minute of nowMs.
func (t *throughput) add(nowMs int64, done, failed int64) {
	m := unixMinute(nowMs)
	c := &t[uint64(m)%throughputMinutes]
	if c.minute != m {
		*c = minuteCount{minute: m}
	}
	c.done += done
	c.failed += failed
}

// Throughput reports the attempts of queue that ended in each minute from
// the one holding since until the current one, oldest first, one point per
// minute with any. Minutes start on whole Unix minutes of the store's
// clock; the store keeps the last 128. Done counts acks; Failed counts
// attempts that ended in retry or garbage, cancellations and expired leases
// included. A queue never seen has no points.
func (s *Store) Throughput(ctx context.Context, queue string, since time.Time) ([]store.ThroughputPoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := s.lookup(queue)
	if q == nil {
		return nil, nil
	}
	now, nowMs := s.now()
	cur := unixMinute(nowMs)
	from := max(unixMinute(since.UnixMilli()), cur-throughputMinutes+1)
	var pts []store.ThroughputPoint
	q.mu.Lock()
	for _, c := range q.tput {
		if c.minute >= from && c.minute <= cur && c.done+c.failed > 0 {
			pts = append(pts, store.ThroughputPoint{
				Minute: atMs(now, nowMs, c.minute*60000),
				Done:   c.done,
				Failed: c.failed,
			})
		}
	}
	q.mu.Unlock()
	slices.SortFunc(pts, func(a, b store.ThroughputPoint) int { return a.Minute.Compare(b.Minute) })
	return pts, nil
}
