package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// eventsFunc is an Events case: it drives jobs through s and reads their
// events through r, the same store as a store.EventReader; a is the store
// as a store.Admin, nil when it is not one.
type eventsFunc = func(t *testing.T, s store.Store, r store.EventReader, a store.Admin)

type eventsCase = testCase[eventsFunc]

// readMax is how many events a read of the suite asks for at most.
const readMax = 1000

// readEvents calls ReadEvents without blocking, or fails the test.
func readEvents(t *testing.T, r store.EventReader, from map[string]string, max int) ([]store.Event, map[string]string, []string) {
	t.Helper()
	evs, next, lost, err := r.ReadEvents(t.Context(), from, max, 0)
	if err != nil {
		t.Fatalf("ReadEvents(%v, max %d): unexpected error: %v", from, max, err)
	}
	if len(evs) > max {
		t.Fatalf("ReadEvents(%v, max %d) returned %d events", from, max, len(evs))
	}
	for q := range from {
		if _, ok := next[q]; !ok {
			t.Fatalf("ReadEvents(%v): next has no position for %q", from, q)
		}
	}
	return evs, next, lost
}

// reading starts reading the events of queues, as a subscriber does
// before it acts: a store may skip the events of a queue nobody reads
// (redisstore writes them while a reader has read in the last minute).
func reading(t *testing.T, r store.EventReader, queues ...string) {
	t.Helper()
	from := make(map[string]string, len(queues))
	for _, q := range queues {
		from[q] = store.FromNow
	}
	readEvents(t, r, from, 1)
}

// eventsAfter reads every event of queue q after pos, in reads of at most
// max, and returns them with the position after the last. It fails when
// the store reports events lost.
func eventsAfter(t *testing.T, r store.EventReader, q, pos string, max int) ([]store.Event, string) {
	t.Helper()
	var all []store.Event
	for {
		evs, next, lost := readEvents(t, r, map[string]string{q: pos}, max)
		if len(lost) > 0 {
			t.Fatalf("ReadEvents of %q after %q reported lost events %v, want none (nothing was trimmed)", q, pos, lost)
		}
		for _, ev := range evs {
			if ev.Queue != q {
				t.Fatalf("ReadEvents of %q returned an event of queue %q", q, ev.Queue)
			}
		}
		all = append(all, evs...)
		pos = next[q]
		if len(evs) == 0 {
			return all, pos
		}
	}
}

// allEvents returns every event kept for q, oldest first.
func allEvents(t *testing.T, r store.EventReader, q string) []store.Event {
	t.Helper()
	evs, _ := eventsAfter(t, r, q, store.FromStart, readMax)
	return evs
}

// describe renders events as "type id/attempt" for messages.
func describe(evs []store.Event) string {
	parts := make([]string, len(evs))
	for i, ev := range evs {
		parts[i] = fmt.Sprintf("%s %s/%d", ev.Type, ev.ID, ev.Attempt)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// want is one expected event: its type, job and attempt.
type want struct {
	typ     store.EventType
	id      string
	attempt int
}

// requireEvents fails unless evs are exactly want, in order, each of
// queue q and kind, at a time around the test's clock, with a position.
func requireEvents(t *testing.T, q string, evs []store.Event, wants ...want) {
	t.Helper()
	ok := len(evs) == len(wants)
	for i := 0; ok && i < len(wants); i++ {
		ok = evs[i].Type == wants[i].typ && evs[i].ID == wants[i].id && evs[i].Attempt == wants[i].attempt
	}
	if !ok {
		exp := make([]store.Event, len(wants))
		for i, w := range wants {
			exp[i] = store.Event{Type: w.typ, ID: w.id, Attempt: w.attempt}
		}
		t.Fatalf("events of %q: got %s, want %s", q, describe(evs), describe(exp))
	}
	now := time.Now()
	seen := map[string]bool{}
	for _, ev := range evs {
		if ev.Queue != q || ev.Kind != kind {
			t.Fatalf("event %s of %q: Queue %q, Kind %q; want %q, %q", ev.Type, ev.ID, ev.Queue, ev.Kind, q, kind)
		}
		requireNow(t, "event time", ev.At, now.Add(-time.Minute), now)
		if ev.Pos == "" || seen[ev.Pos] {
			t.Fatalf("event %s of %q: position %q, want one of its own", ev.Type, ev.ID, ev.Pos)
		}
		seen[ev.Pos] = true
	}
}

// newEvents returns the events of q after pos, and the position after them.
func newEvents(t *testing.T, r store.EventReader, q string, pos *string) []store.Event {
	t.Helper()
	evs, next := eventsAfter(t, r, q, *pos, readMax)
	*pos = next
	return evs
}

// startPos returns the position at the end of q's stream now.
func startPos(t *testing.T, r store.EventReader, q string) string {
	t.Helper()
	_, next, _ := readEvents(t, r, map[string]string{q: store.FromNow}, readMax)
	return next[q]
}

// needAdmin skips the test when the store has no store.Admin (a is nil).
func needAdmin(t *testing.T, a store.Admin) {
	t.Helper()
	if a == nil {
		t.Skip("the store does not implement store.Admin, which this case needs")
	}
}
