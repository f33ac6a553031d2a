package memstore

import (
	"fmt"
	"testing"

	"github.com/hopperq/hopper/store"
)

// A position kept across a restart of the process (a memstore starts its
// streams anew) is told it lost events when the new stream has grown past
// its number, which alone cannot tell; before stream generations, the
// reader read on from its number and missed the new stream's first entries
// without a word. It is told once, and reads on from there.
func TestEventPositionOfAnEarlierProcessIsReportedLost(t *testing.T) {
	ctx := t.Context()
	read := func(s *Store, from string) ([]store.Event, string, []string) {
		t.Helper()
		evs, next, lost, err := s.ReadEvents(ctx, map[string]string{testQueue: from}, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		return evs, next[testQueue], lost
	}
	before := New(nil)
	for i := range 3 {
		mustEnqueue(t, before, newJob(fmt.Sprintf("a%d", i)))
	}
	_, pos, _ := read(before, store.FromStart)
	after := New(nil) // the process restarted
	for i := range 10 {
		mustEnqueue(t, after, newJob(fmt.Sprintf("b%d", i)))
	}
	evs, next, lost := read(after, pos)
	if len(lost) != 1 || len(evs) != 10 || evs[0].ID != "b0" {
		t.Fatalf("resuming from %s in a new process: %d events, lost %v; want the new stream's 10 from b0, lost [%s]", pos, len(evs), lost, testQueue)
	}
	mustEnqueue(t, after, newJob("c"))
	evs, next, lost = read(after, next)
	if len(lost) != 0 || len(evs) != 1 || evs[0].ID != "c" {
		t.Fatalf("reading on: %d events, lost %v; want c alone, none lost", len(evs), lost)
	}
	// A position past the end of a queue's stream that keeps no entry
	// (its events off) is told once too, not at every read.
	quiet := New(nil)
	if err := quiet.SetQueueConfig(ctx, testQueue, store.QueueConfig{EventsMaxLen: -1}); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, quiet, newJob("d"))
	_, next, lost = read(quiet, "5")
	if _, _, again := read(quiet, next); len(lost) != 1 || len(again) != 0 {
		t.Fatalf("a position past the end of a stream without entries: lost %v, then %v; want [%s], then none", lost, again, testQueue)
	}
}
