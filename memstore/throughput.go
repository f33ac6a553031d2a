package memstore

import (
	"context"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// throughputMinutes and throughputHours are how much throughput a queue
// keeps: store.ThroughputMinutes minutes and store.ThroughputHours hours.
const (
	throughputMinutes = store.ThroughputMinutes
	throughputHours   = store.ThroughputHours
)

// slotCount is one minute or one hour of throughput.
type slotCount struct {
	at           int64 // Unix minute or Unix hour
	done, failed int64
}

// throughput is a ring of per-minute counts indexed by Unix minute modulo
// its size, and a ring of per-hour counts that receives each minute when a
// newer minute takes its slot (so an hour holds only minutes the minute
// ring no longer has). About 52 KB per queue where an attempt ever ended.
type throughput struct {
	minutes [throughputMinutes]slotCount
	hours   [throughputHours]slotCount
}

// unixMinute returns the Unix minute holding the Unix ms ms.
func unixMinute(ms int64) int64 {
	m := ms / 60000
	if ms < 0 && ms%60000 != 0 {
		m--
	}
	return m
}

// hourOf returns the Unix hour holding Unix minute m.
func hourOf(m int64) int64 {
	h := m / 60
	if m < 0 && m%60 != 0 {
		h--
	}
	return h
}

// add counts done and failed attempts in the minute of nowMs, in *tp
// (allocated on the first count).
func addThroughput(tp **throughput, nowMs int64, done, failed int64) {
	if *tp == nil {
		*tp = new(throughput)
	}
	(*tp).add(nowMs, done, failed)
}

// add counts done and failed attempts in the minute of nowMs.
func (t *throughput) add(nowMs int64, done, failed int64) {
	m := unixMinute(nowMs)
	c := &t.minutes[uint64(m)%throughputMinutes]
	if c.at != m {
		t.rollUp(*c)
		*c = slotCount{at: m}
	}
	c.done += done
	c.failed += failed
}

// rollUp adds minute c to its hour.
func (t *throughput) rollUp(c slotCount) {
	if c.done+c.failed == 0 {
		return
	}
	h := hourOf(c.at)
	s := &t.hours[uint64(h)%throughputHours]
	if s.at != h {
		*s = slotCount{at: h}
	}
	s.done += c.done
	s.failed += c.failed
}

// Throughput reports the attempts of queue that ended from since until
// now, oldest first: one point per minute with any for the last
// store.ThroughputMinutes minutes, one per hour with any for the
// store.ThroughputHours hours before. Intervals start on whole Unix
// minutes and hours of the store's clock. Done counts acks; Failed counts
// attempts that ended in retry or garbage, cancellations and expired
// leases included. A queue never seen has no points.
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
	first := cur - throughputMinutes + 1 // the oldest minute the minutes show
	from := unixMinute(since.UnixMilli())
	hours := map[int64]*slotCount{}
	addHour := func(c slotCount, h int64) {
		if h < hourOf(from) || h < hourOf(cur)-throughputHours {
			return
		}
		p := hours[h]
		if p == nil {
			p = &slotCount{at: h}
			hours[h] = p
		}
		p.done += c.done
		p.failed += c.failed
	}
	var pts []store.ThroughputPoint
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.tput == nil {
		return nil, nil
	}
	for _, c := range q.tput.minutes {
		switch {
		case c.done+c.failed == 0 || c.at > cur:
		case c.at >= first:
			if c.at >= from {
				pts = append(pts, store.ThroughputPoint{Minute: atMs(now, nowMs, c.at*60000), Span: time.Minute, Done: c.done, Failed: c.failed})
			}
		default: // a minute not rolled up yet, older than the minutes show
			addHour(c, hourOf(c.at))
		}
	}
	for _, c := range q.tput.hours {
		if c.done+c.failed > 0 {
			addHour(c, c.at)
		}
	}
	for h, c := range hours {
		pts = append(pts, store.ThroughputPoint{Minute: atMs(now, nowMs, h*3600000), Span: time.Hour, Done: c.done, Failed: c.failed})
	}
	slices.SortFunc(pts, func(a, b store.ThroughputPoint) int { return a.Minute.Compare(b.Minute) })
	return pts, nil
}
