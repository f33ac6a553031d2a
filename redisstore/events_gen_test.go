package redisstore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// A reader that resumes from a position of a stream that started over
// (the server's data lost or restored, the stream's key deleted) is told
// it lost events and reads the new stream from its start, even once the
// new stream holds more entries than the position's number, which alone
// cannot tell. Before stream generations, it read on from its number and
// missed the new stream's first entries without a word.
func TestEventsOfAStreamThatStartedOverAreReportedLost(t *testing.T) {
	for _, c := range []struct {
		name string
		lose func(ctx context.Context, rdb *redis.Client, prefix string) error
	}{
		{"server's data lost", func(ctx context.Context, rdb *redis.Client, _ string) error {
			return rdb.FlushDB(ctx).Err()
		}},
		{"stream's key alone deleted", func(ctx context.Context, rdb *redis.Client, prefix string) error {
			return rdb.Del(ctx, "{"+prefix+":gen}:ev").Err()
		}},
	} {
		t.Run(c.name, func(t *testing.T) { testStreamStartedOver(t, c.lose) })
	}
}

func testStreamStartedOver(t *testing.T, lose func(context.Context, *redis.Client, string) error) {
	s, rdb, prefix := newPrefixedStore(t)
	ctx := t.Context()
	// The reader has its own store, as a subscriber's process would; one
	// that comes back after the loss is a new one.
	reader := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	read := func(from string) ([]store.Event, string, []string) {
		t.Helper()
		evs, next, lost, err := reader.ReadEvents(ctx, map[string]string{"gen": from}, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		return evs, next["gen"], lost
	}
	_, pos, _ := read(store.FromNow) // a reader: the queue's events are written
	for i := range 3 {
		mustEnqueue(t, s, job("gen", fmt.Sprintf("a%d", i)))
	}
	evs, pos, lost := read(pos)
	if len(evs) != 3 || len(lost) != 0 {
		t.Fatalf("first read: %d events, lost %v; want 3, none", len(evs), lost)
	}
	// The stream is lost; a reader comes back and the queue is used
	// again, past the old position's number.
	if err := lose(ctx, rdb, prefix); err != nil {
		t.Fatal(err)
	}
	reader = storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	read(store.FromNow)
	for i := range 10 {
		mustEnqueue(t, s, job("gen", fmt.Sprintf("b%d", i)))
	}
	evs, next, lost := read(pos)
	if len(lost) != 1 || lost[0] != "gen" {
		t.Fatalf("resuming from %s after the stream started over: lost %v, want [gen]", pos, lost)
	}
	if len(evs) != 10 || evs[0].ID != "b0" || evs[9].ID != "b9" {
		t.Fatalf("resuming after the stream started over: %d events, want the new stream's 10 from b0", len(evs))
	}
	mustEnqueue(t, s, job("gen", "c"))
	evs, _, lost = read(next)
	if len(lost) != 0 || len(evs) != 1 || evs[0].ID != "c" {
		t.Fatalf("reading on: %d events, lost %v; want c alone, none lost", len(evs), lost)
	}
}

// A position given out before generations (no "<gen>:") still reads: it
// is checked by its number alone, as before.
func TestEventPositionWithoutGenerationStillReads(t *testing.T) {
	s, _ := newStore(t, nil)
	ctx := t.Context()
	if _, _, _, err := s.ReadEvents(ctx, map[string]string{"old": store.FromNow}, 1, 0); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		mustEnqueue(t, s, job("old", fmt.Sprintf("j%d", i)))
	}
	all, _, _, err := s.ReadEvents(ctx, map[string]string{"old": store.FromStart}, 100, 0)
	if err != nil || len(all) != 3 {
		t.Fatalf("reading from the start: %d events, %v; want 3", len(all), err)
	}
	p, err := store.ParseEventPos(all[0].Pos)
	if err != nil || p.Gen == 0 {
		t.Fatalf("an event's position %q has no generation (%v)", all[0].Pos, err)
	}
	p.Gen = 0
	evs, _, lost, err := s.ReadEvents(ctx, map[string]string{"old": p.String()}, 100, 0)
	if err != nil || len(lost) != 0 || len(evs) != 2 || evs[0].ID != "j1" {
		t.Fatalf("reading after %s: %d events, lost %v, %v; want j1 and j2", p, len(evs), lost, err)
	}
}

// A read of several queues that fails on one of them returns positions no
// further than the events it returned (none): the positions of the
// queues read before the failure were moved past events it dropped, and
// hopper.Subscribe, which reads again from the positions of a failed
// read, would have skipped them.
func TestEventsReadFailingOnOneQueueMovesNoPosition(t *testing.T) {
	s, rdb, prefix := newPrefixedStore(t)
	ctx := t.Context()
	from := map[string]string{"okq": store.FromNow, "badq": store.FromNow}
	_, next, _, err := s.ReadEvents(ctx, from, 100, 0) // readers: the queues' events are written
	if err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("okq", "a"))
	// badq's stream is not a stream: its read fails, okq's goes through.
	if err := rdb.Set(ctx, "{"+prefix+":badq}:ev", "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	// The queues are read in map order: okq comes first in half the reads.
	for range 20 {
		_, failed, _, err := s.ReadEvents(ctx, next, 100, 0)
		if err == nil {
			t.Fatal("ReadEvents with one queue's stream broken: no error")
		}
		if p, ok := failed["okq"]; ok && p != next["okq"] {
			t.Fatalf("a failed read's position of okq: %q, want %q (not past the event it did not return)", p, next["okq"])
		}
	}
	if err := rdb.Del(ctx, "{"+prefix+":badq}:ev").Err(); err != nil {
		t.Fatal(err)
	}
	evs, _, _, err := s.ReadEvents(ctx, map[string]string{"okq": next["okq"]}, 100, 0)
	if err != nil || len(evs) == 0 || evs[0].ID != "a" {
		t.Fatalf("reading okq again: %v, %v; want a's events", evs, err)
	}
}
