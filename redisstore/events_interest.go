package redisstore

import (
	"context"
	"time"
)

// Events are written only while someone reads them. Every ReadEvents
// moves the queue's mark evr (events_arm.lua) to eventsInterest ahead,
// at most once per eventsInterest/3 per queue and Store, so a reader that
// reads at least every few seconds, or waits blocked, keeps every event
// written. While the mark is past, scripts skip their stream entry; the
// next reader to want the queue marks a hole in the entry numbers, which
// tells a reader positioned before it that it lost events (as a trimmed
// stream does).
//
// eventsInterest is a variable for the tests.
var eventsInterest = time.Minute

// wantEvents keeps the events of queues written for eventsInterest, in
// one round trip for the queues whose mark this Store has not moved in
// the last third of it.
func (s *Store) wantEvents(ctx context.Context, queues []string) error {
	now := time.Now()
	var due []string
	for _, q := range queues {
		if t, ok := s.wanted.Load(q); ok && now.Sub(t.(time.Time)) < eventsInterest/3 {
			continue
		}
		due = append(due, q)
	}
	if len(due) == 0 {
		return nil
	}
	if err := s.armEvents(ctx, due, 0); err != nil {
		return err
	}
	for _, q := range due {
		s.wanted.Store(q, now)
	}
	return nil
}
