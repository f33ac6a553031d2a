package memstore

import (
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// A day of minutes, then hours for a month: a job acked two days ago
// shows in its hour, one acked now in its minute, and nothing counts
// twice.
func TestThroughputMinutesThenHours(t *testing.T) {
	s, clock := newClocked()
	ack := func(id string) {
		t.Helper()
		mustEnqueue(t, s, newJob(id))
		c := claim(t, s, 1, time.Minute).Jobs[0]
		if _, err := s.Finish(t.Context(), []store.AttemptEnd{{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: store.OutcomeAck}}); err != nil {
			t.Fatal(err)
		}
	}
	start := t0.Truncate(time.Hour)
	clock.Set(start.Add(5 * time.Minute))
	ack("old-1")
	ack("old-2")
	clock.Set(start.Add(20 * time.Minute))
	ack("old-3") // its slot stays: it counts in its hour without a roll-up
	clock.Set(start.Add(48*time.Hour + 5*time.Minute))
	ack("new-1") // the slot of old-1 and old-2's minute: they roll up
	pts, err := s.GetThroughput(t.Context(), testQueue, start.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 {
		t.Fatalf("Throughput = %+v, want an hour and a minute", pts)
	}
	if h := pts[0]; !h.Minute.Equal(start) || h.Span != time.Hour || h.Done != 3 {
		t.Errorf("first point %+v, want the hour %v with 3 acks", h, start)
	}
	if m := pts[1]; !m.Minute.Equal(start.Add(48*time.Hour+5*time.Minute)) || m.Span != time.Minute || m.Done != 1 {
		t.Errorf("second point %+v, want the current minute with 1 ack", m)
	}
	// A month later the hour is gone too.
	clock.Set(start.Add(32 * 24 * time.Hour))
	ack("later")
	pts, err = s.GetThroughput(t.Context(), testQueue, start.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if p.Minute.Before(start.Add(24 * time.Hour)) {
			t.Errorf("a point from %v is older than the month kept", p.Minute)
		}
	}
}
