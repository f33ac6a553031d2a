package redisstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// readAll reads the events of q after pos without blocking and returns
// their job IDs, the next position and the queues reported lost.
func readAll(t *testing.T, s *redisstore.Store, q, pos string) ([]string, string, []string) {
	t.Helper()
	evs, next, lost, err := s.ReadEvents(context.Background(), map[string]string{q: pos}, 100, 0)
	if err != nil {
		t.Fatalf("ReadEvents(%s after %q): %v", q, pos, err)
	}
	ids := make([]string, len(evs))
	for i, ev := range evs {
		ids[i] = ev.ID
	}
	return ids, next[q], lost
}

// A queue that nobody reads gets no event stream at all; once a reader
// reads it, what happens next is written, and a reader that starts then
// is not told of what nobody read before.
func TestEventsOfAnUnreadQueueAreNotWritten(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
	ctx := context.Background()
	mustEnqueue(t, s, job("mail", "a"))
	mustEnqueue(t, s, job("mail", "b"), job("mail", "c"), &store.NewJob{ID: "d", Queue: "mail", Kind: "test", Delay: time.Hour})
	if n := rdb.Exists(ctx, "{"+prefix+":mail}:ev").Val(); n != 0 {
		t.Fatalf("the event stream of a queue nobody reads exists after four enqueues, want none")
	}

	_, pos, lost := readAll(t, s, "mail", store.FromNow)
	if len(lost) != 0 {
		t.Fatalf("a reader starting now was told it lost events %v", lost)
	}
	mustEnqueue(t, s, job("mail", "e"))
	ids, _, lost := readAll(t, s, "mail", pos)
	if !slices.Equal(ids, []string{"e"}) || len(lost) != 0 {
		t.Fatalf("after the reader started: events of %v, lost %v; want e, none lost", ids, lost)
	}
}

// A reader that comes back after nobody read the queue for a while is
// told it lost events, and gets those written since the queue is read
// again; a reader that starts then is not told anything was lost.
func TestEventsSkippedWhileUnreadAreReportedLost(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	cfg := &redisstore.Config{Prefix: prefix}
	ctx := context.Background()
	away := redisstore.New(rdb, cfg)
	_, pos, _ := readAll(t, away, "mail", store.FromNow)
	mustEnqueue(t, away, job("mail", "a"))
	ids, pos, _ := readAll(t, away, "mail", pos)
	if !slices.Equal(ids, []string{"a"}) {
		t.Fatalf("first read: %v, want a", ids)
	}

	// The reader goes away for longer than its interest lasts (the mark
	// says until when the queue's events are wanted: now in the past).
	if err := rdb.HSet(ctx, "{"+prefix+":mail}:m", "evr", "1").Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, away, job("mail", "b"))
	mustEnqueue(t, away, job("mail", "c"))

	// A reader of another process starts now, then the queue moves on.
	fresh := redisstore.New(rdb, cfg)
	_, fpos, _ := readAll(t, fresh, "mail", store.FromNow)
	mustEnqueue(t, fresh, job("mail", "d"))
	ids, _, lost := readAll(t, fresh, "mail", fpos)
	if !slices.Equal(ids, []string{"d"}) || len(lost) != 0 {
		t.Fatalf("the reader that started after the gap: %v, lost %v; want d, none lost", ids, lost)
	}

	// The reader that was away, back in a new process at its position.
	back := redisstore.New(rdb, cfg)
	ids, _, lost = readAll(t, back, "mail", pos)
	if !slices.Equal(lost, []string{"mail"}) {
		t.Fatalf("the reader back after the gap: lost %v, want mail (b and c were not written)", lost)
	}
	if !slices.Equal(ids, []string{"d"}) {
		t.Fatalf("the reader back after the gap: events of %v, want d", ids)
	}
}
