package main

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// TestEventsFromPastTheEnd: a --from past the end of the queue's stream
// (mistyped, or from before the stream started over) is refused, exit 2,
// with a line that names the stream's last position and the two causes.
// It said "events were lost: the subscription fell behind the stream"
// and printed the stream from its oldest event.
func TestEventsFromPastTheEnd(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		if _, _, _, err := c.store.(store.EventReader).ReadEvents(t.Context(), map[string]string{"default": hopper.FromNow}, 1, 0); err != nil {
			t.Fatal(err)
		}
		seed(t, c.store)
		evs, next, _, err := c.store.(store.EventReader).ReadEvents(t.Context(), map[string]string{"default": hopper.FromStart}, 1000, 0)
		if err != nil || len(evs) < 2 {
			t.Fatalf("ReadEvents: %d events, %v", len(evs), err)
		}
		end, err := store.ParseEventPos(next["default"])
		if err != nil || end.Entry < 2 {
			t.Fatalf("the stream's end %q: %v", next["default"], err)
		}
		past := strconv.FormatUint(end.Entry+1000, 10)
		r := c.run(t, "events", "--queue", "default", "--from", past, "--count", "1")
		if r.code != 2 {
			t.Errorf("events --from %s: exit code %d, want 2\n%s%s", past, r.code, r.stdout, r.stderr)
		}
		want := `hopper events: --from ` + past + ` is past the end of the stream of queue "default" (it ends at ` + end.String() + `): `
		if first, _, _ := strings.Cut(r.stderr, "\n"); !strings.HasPrefix(first, want) {
			t.Errorf("events --from %s: first line %q, want it to start %q", past, first, want)
		}
		wantOut(t, r.stderr, "events --from past the end", "mistyped", "started over", "--from start")
		if strings.Contains(r.stderr, "fell behind") || r.stdout != "" {
			t.Errorf("events --from %s: followed the stream:\n%s%s", past, r.stdout, r.stderr)
		}

		// The last position itself is no mistake: the stream is followed.
		r = c.run(t, "events", "--queue", "default", "--from", strconv.FormatUint(end.Entry-1, 10), "--count", "1")
		wantCode(t, r, 0, "events --from the position before the last")

		// A position of an earlier stream (another generation), even one
		// inside the present stream's numbers: the stream started over.
		earlier := store.EventPos{Gen: end.Gen + 1, Entry: 1, Whole: true}.String()
		r = c.run(t, "events", "--queue", "default", "--from", earlier, "--count", "1")
		if r.code != 2 || !strings.Contains(r.stderr, "--from "+earlier+` is of an earlier stream of queue "default", which started over since`) {
			t.Errorf("events --from %s (another generation): exit code %d\n%s%s", earlier, r.code, r.stdout, r.stderr)
		}

		// A queue whose stream has no event.
		r = c.run(t, "events", "--queue", "empty", "--from", "7", "--count", "1")
		if r.code != 2 || !strings.Contains(r.stderr, `--from 7 is past the end of the stream of queue "empty" (it is empty)`) {
			t.Errorf("events --from 7 of an empty queue: exit code %d\n%s", r.code, r.stderr)
		}
	})
}

// TestEventsLostSaysWhy: events lost while following (here, --from a
// position the stream was trimmed past) are reported with both causes,
// a trimmed stream or one that started over; the line said only that
// "the subscription fell behind the stream", wrong after a Redis flush.
func TestEventsLostSaysWhy(t *testing.T) {
	s := memstore.New(nil)
	if err := s.SetQueueConfig(t.Context(), "default", store.QueueConfig{EventsMaxLen: 1}); err != nil {
		t.Fatal(err)
	}
	seed(t, s)
	c := &cli{store: s, open: func(context.Context, *storeFlags) (hopper.Store, func(), error) { return s, func() {}, nil }}
	r := c.run(t, "events", "--queue", "default", "--from", "0", "--count", "1")
	wantCode(t, r, 0, "events --from a trimmed position")
	wantOut(t, r.stderr, "events --from a trimmed position",
		`hopper events: some events of queue "default" were lost: the stream no longer had them`, "or started over (Redis flushed)")
	if strings.Contains(r.stderr, "fell behind") {
		t.Errorf("events --from a trimmed position says fell behind:\n%s", r.stderr)
	}
}

// TestEventsFromTwoQueues: --from a position with two queues is bad
// usage (exit 2, with the usage), as the other flag mistakes; it exited 1.
func TestEventsFromTwoQueues(t *testing.T) {
	c := &cli{open: refusingOpener(t)}
	r := c.run(t, "events", "--queue", "a", "--queue", "b", "--from", "12")
	wantCode(t, r, 2, "events --from POS of two queues")
	wantOut(t, r.stderr, "events --from POS of two queues", "hopper events: --from with a position needs exactly one --queue (got 2)", "usage: hopper events")
}
