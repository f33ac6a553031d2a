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

// A queue nobody reads any more keeps its stream ten minutes, for a
// reader that comes back, and then none: the stream stayed for good (an
// outside soak: eleven streams of some 500 KB after their readers left).
// A reader back before then reads on; one back after is told it lost
// events, and reads what is written since.
func TestAStreamNobodyReadsExpires(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	cfg := &redisstore.Config{Prefix: prefix}
	ctx := context.Background()
	stream, marks := "{"+prefix+":mail}:ev", "{"+prefix+":mail}:m"
	s := redisstore.New(rdb, cfg)
	_, pos, _ := readAll(t, s, "mail", store.FromNow)
	mustEnqueue(t, s, job("mail", "a"))
	ids, pos, _ := readAll(t, s, "mail", pos)
	if !slices.Equal(ids, []string{"a"}) {
		t.Fatalf("first read: %v, want a", ids)
	}
	if ttl := rdb.PTTL(ctx, stream).Val(); ttl != -1 {
		t.Fatalf("the stream of a queue being read has TTL %v, want none", ttl)
	}
	// Nobody reads any more (the interest mark in the past); a step skips.
	if err := rdb.HSet(ctx, marks, "evr", "1").Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("mail", "b"))
	if ttl := rdb.PTTL(ctx, stream).Val(); ttl <= 0 || ttl > 10*time.Minute {
		t.Fatalf("the stream of a queue nobody reads has TTL %v, want at most ten minutes", ttl)
	}
	// A reader back in time keeps the stream, and is told of the gap.
	back := redisstore.New(rdb, cfg)
	readAll(t, back, "mail", pos)
	if ttl := rdb.PTTL(ctx, stream).Val(); ttl != -1 {
		t.Fatalf("the stream read again has TTL %v, want none", ttl)
	}
	mustEnqueue(t, s, job("mail", "b2"))
	ids, _, lost := readAll(t, back, "mail", pos)
	if !slices.Equal(lost, []string{"mail"}) || !slices.Equal(ids, []string{"b2"}) {
		t.Fatalf("the reader back in time: events of %v, lost %v; want b2, and mail lost (b was not written)", ids, lost)
	}
	// Nobody again, and the stream expires (deleted here, as its TTL
	// would); a reader back then is told it lost events, and reads on.
	if err := rdb.HSet(ctx, marks, "evr", "1").Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("mail", "c"))
	if err := rdb.Del(ctx, stream).Err(); err != nil {
		t.Fatal(err)
	}
	late := redisstore.New(rdb, cfg)
	_, next, lost := readAll(t, late, "mail", pos)
	if !slices.Equal(lost, []string{"mail"}) {
		t.Fatalf("the reader back after the stream expired: lost %v, want mail", lost)
	}
	mustEnqueue(t, s, job("mail", "d"))
	ids, _, lost = readAll(t, late, "mail", next)
	if !slices.Equal(ids, []string{"d"}) || len(lost) != 0 {
		t.Fatalf("after the stream expired: events of %v, lost %v; want d, none lost", ids, lost)
	}
}
