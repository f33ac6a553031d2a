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

// slotCount is one minute or one hour of throughput, and the queue's
// depth sampled in it (the largest sample for an hour).
type slotCount struct {
	at           int64 // Unix minute or Unix hour
	done, failed int64
	sampled      bool
	ready        int64
	latency      time.Duration
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
	c := t.minute(nowMs)
	c.done += done
	c.failed += failed
}

// sample records the queue's depth in the minute of nowMs, unless that
// minute has a sample already.
func (t *throughput) sample(nowMs int64, ready int64, latency time.Duration) {
	c := t.minute(nowMs)
	if !c.sampled {
		c.sampled, c.ready, c.latency = true, ready, latency
	}
}

// minute returns the slot of the minute of nowMs, rolling up the minute it
// held before.
func (t *throughput) minute(nowMs int64) *slotCount {
	m := unixMinute(nowMs)
	c := &t.minutes[uint64(m)%throughputMinutes]
	if c.at != m {
		t.rollUp(*c)
		*c = slotCount{at: m}
	}
	return c
}

// rollUp adds minute c to its hour.
func (t *throughput) rollUp(c slotCount) {
	if c.done+c.failed == 0 && !c.sampled {
		return
	}
	h := hourOf(c.at)
	s := &t.hours[uint64(h)%throughputHours]
	if s.at != h {
		*s = slotCount{at: h}
	}
	s.merge(c)
}

// merge adds c's counts to s and keeps the larger of their samples.
func (s *slotCount) merge(c slotCount) {
	s.done += c.done
	s.failed += c.failed
	if c.sampled {
		s.sampled = true
		s.ready = max(s.ready, c.ready)
		s.latency = max(s.latency, c.latency)
	}
}

// GetThroughput reports the attempts of queue that ended from since until
// now, oldest first: one point per minute with any for the last
// store.ThroughputMinutes minutes, one per hour with any for the
// store.ThroughputHours hours before. Intervals start on whole Unix
// minutes and hours of the store's clock. Done counts acks; Failed counts
// attempts that ended in retry or garbage, cancellations and expired
// leases included. A queue never seen has no points.
func (s *Store) GetThroughput(ctx context.Context, queue string, since time.Time) ([]store.ThroughputPoint, error) {
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
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
		p.merge(c)
	}
	point := func(c slotCount, startMs int64, span time.Duration) store.ThroughputPoint {
		return store.ThroughputPoint{Minute: atMs(now, nowMs, startMs), Span: span, Done: c.done, Failed: c.failed,
			Sampled: c.sampled, Ready: c.ready, Latency: c.latency}
	}
	var pts []store.ThroughputPoint
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.tput == nil {
		return nil, nil
	}
	for _, c := range q.tput.minutes {
		switch {
		case c.done+c.failed == 0 && !c.sampled || c.at > cur:
		case c.at >= first:
			if c.at >= from {
				pts = append(pts, point(c, c.at*60000, time.Minute))
			}
		default: // a minute not rolled up yet, older than the minutes show
			addHour(c, hourOf(c.at))
		}
	}
	for _, c := range q.tput.hours {
		if c.done+c.failed > 0 || c.sampled {
			addHour(c, c.at)
		}
	}
	for h, c := range hours {
		pts = append(pts, point(*c, h*3600000, time.Hour))
	}
	slices.SortFunc(pts, func(a, b store.ThroughputPoint) int { return a.Minute.Compare(b.Minute) })
	return pts, nil
}
