package dashboard_test

import (
	"encoding/json"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// nextMessage returns the data of the next message named name, skipping
// the others.
func (s *sse) nextMessage(name string) string {
	s.t.Helper()
	var cur, data string
	for {
		line, ok := s.line()
		if !ok {
			s.t.Fatalf("the event stream ended before a %q message: %v", name, s.err)
		}
		switch {
		case line == "":
			if cur == name {
				return data
			}
			cur, data = "", ""
		case strings.HasPrefix(line, "event: "):
			cur = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		}
	}
}

// feedOfTwo serves s's dashboard and enqueues two jobs into "default"
// while a reader reads it (redisstore writes events while someone reads
// them); it returns the server, the first job and where the stream ends.
func feedOfTwo(t *testing.T, s hopper.Store) (*httptest.Server, *hopper.JobInfo, store.EventPos) {
	t.Helper()
	srv := httptest.NewServer(newHandler(s, nil))
	t.Cleanup(srv.Close)
	r := s.(store.EventReader)
	if _, _, _, err := r.ReadEvents(t.Context(), map[string]string{"default": hopper.FromNow}, 1, 0); err != nil {
		t.Fatal(err)
	}
	c := hopper.NewClient(s, nil)
	first, err := hopper.Enqueue(t.Context(), c, dashtest.EmailArgs{To: "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hopper.Enqueue(t.Context(), c, dashtest.EmailArgs{To: "b"}, nil); err != nil {
		t.Fatal(err)
	}
	_, next, _, err := r.ReadEvents(t.Context(), map[string]string{"default": hopper.FromStart}, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	end, err := store.ParseEventPos(next["default"])
	if err != nil || end.Entry == 0 {
		t.Fatalf("the stream's end %q: %v", next["default"], err)
	}
	return srv, first, end
}

// TestEventFeedFromPastTheEnd: a feed resumed from a position past the
// end of the queue's stream (the stream started over, after a Redis
// flush, or a hand-made position) says so in its "lost" message, naming
// the stream's last position, and goes on from the stream's oldest
// event, as a browser resuming after a flush needs: a 400 would close its
// EventSource, and the page would reopen it from the same position for
// ever. The message said "fell behind" for this as for a trimmed stream.
func TestEventFeedFromPastTheEnd(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		srv, first, end := feedOfTwo(t, s)
		past := strconv.FormatUint(end.Entry+1000, 10)

		for _, resume := range []struct{ what, query, lastID string }{
			{"from=", "&from=" + past, ""},
			{"Last-Event-ID", "", past},
		} {
			feed := openEvents(t, srv, "/api/events?queue=default"+resume.query, resume.lastID)
			var lost struct{ Reason, Message string }
			data := feed.nextMessage("lost")
			if err := json.Unmarshal([]byte(data), &lost); err != nil {
				t.Fatalf("%s: lost message %q: %v", resume.what, data, err)
			}
			want := "The position " + past + " is past the end of the queue's stream (it ends at " + end.String() + ")"
			if lost.Reason != "past_end" || !strings.HasPrefix(lost.Message, want) || !strings.Contains(lost.Message, "started over") {
				t.Errorf("%s: lost message %+v, want reason past_end and a message starting %q", resume.what, lost, want)
			}
			if ev := feed.next(); ev.data.ID != first.ID || ev.data.Type != "enqueued" {
				t.Errorf("%s: first event %+v, want the stream's oldest (%s enqueued)", resume.what, ev, first.ID)
			}
			feed.close()
		}
	})
}

// TestEventFeedFromAnEarlierStream: a feed resumed from a position of an
// earlier stream of the queue (another generation: Redis flushed, or the
// process of an in-memory store restarted), even one inside the present
// stream's numbers, says the stream started over (reason started_over)
// and goes on from the stream's oldest event.
func TestEventFeedFromAnEarlierStream(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		srv, first, end := feedOfTwo(t, s)
		if end.Gen == 0 {
			t.Fatalf("the stream's end %s has no generation", end)
		}
		earlier := store.EventPos{Gen: end.Gen - 1, Entry: 1, Whole: true}.String()
		feed := openEvents(t, srv, "/api/events?queue=default", earlier)
		var lost struct{ Reason, Message string }
		data := feed.nextMessage("lost")
		if err := json.Unmarshal([]byte(data), &lost); err != nil {
			t.Fatalf("lost message %q: %v", data, err)
		}
		if lost.Reason != "started_over" || !strings.Contains(lost.Message, "earlier stream") {
			t.Errorf("lost message %+v, want reason started_over naming an earlier stream", lost)
		}
		if ev := feed.next(); ev.data.ID != first.ID || ev.data.Type != "enqueued" {
			t.Errorf("first event %+v, want the stream's oldest (%s enqueued)", ev, first.ID)
		}
		feed.close()
	})
}

// TestEventFeedFromTrimmed: a feed resumed from a position the stream was
// trimmed past says the events were missed (reason "behind"), not that
// the stream started over.
func TestEventFeedFromTrimmed(t *testing.T) {
	s := memstore.New(nil)
	if err := s.SetQueueConfig(t.Context(), "default", store.QueueConfig{EventsMaxLen: 1}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(newHandler(s, nil))
	t.Cleanup(srv.Close)
	c := hopper.NewClient(s, nil)
	for _, to := range []string{"a", "b", "c"} {
		if _, err := hopper.Enqueue(t.Context(), c, dashtest.EmailArgs{To: to}, nil); err != nil {
			t.Fatal(err)
		}
	}
	feed := openEvents(t, srv, "/api/events?queue=default&from=0", "")
	var lost struct{ Reason, Message string }
	if err := json.Unmarshal([]byte(feed.nextMessage("lost")), &lost); err != nil {
		t.Fatal(err)
	}
	if lost.Reason != "behind" || !strings.Contains(lost.Message, "missed") || strings.Contains(lost.Message, "started over") {
		t.Errorf("lost message %+v, want reason behind", lost)
	}
}
