package dashboard_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// A stream that saw no event yet resumes too: its "alive" messages carry
// the position, so a browser that reconnects after its stream ended (as
// it does when a read fails) gets the events that came while it was
// away, a job's feed without the other jobs' events. A resumed stream's
// first read does not wait: with nothing new it says alive at once.
func TestEventFeedResumesFromAlive(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		// Reads wait eventsBlock (15 s, the refresh interval is longer),
		// more than feedWait: an alive message that comes within
		// feedWait of a resume was sent by a read that did not wait.
		srv := httptest.NewServer(newHandler(s, &dashboard.Config{RefreshInterval: time.Hour}))
		t.Cleanup(srv.Close)
		c := hopper.NewClient(s, nil)
		a, err := hopper.Enqueue(t.Context(), c, dashtest.EmailArgs{To: "a"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		feed := openEvents(t, srv, "/api/events?queue=default", "")
		jobFeed := openEvents(t, srv, "/api/events?queue=default&job="+a.ID, "")
		pos, jobPos := feed.nextAlive(), jobFeed.nextAlive()
		if pos == "" || jobPos == "" {
			t.Fatalf("first alive messages with IDs %q and %q, want a position each", pos, jobPos)
		}
		feed.close()
		jobFeed.close()

		// While no stream is open: b is enqueued, then a starts.
		b, err := hopper.Enqueue(t.Context(), c, dashtest.EmailArgs{To: "b"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != a.ID {
			t.Fatalf("claim: %v, %v, want a", res, err)
		}

		again := openEvents(t, srv, "/api/events?queue=default", pos)
		if ev := again.next(); ev.data.Type != "enqueued" || ev.data.ID != b.ID {
			t.Fatalf("resumed queue feed: %+v, want b's enqueue", ev)
		}
		if ev := again.next(); ev.data.Type != "started" || ev.data.ID != a.ID {
			t.Fatalf("resumed queue feed: %+v, want a's start", ev)
		}
		jobAgain := openEvents(t, srv, "/api/events?queue=default&job="+a.ID, jobPos)
		if ev := jobAgain.next(); ev.data.Type != "started" || ev.data.ID != a.ID {
			t.Fatalf("resumed job feed: %+v, want a's start (b's enqueue left out)", ev)
		}
		last := jobAgain.nextAlive()
		jobAgain.close()

		// Nothing new: alive at once, and the position stays.
		idle := openEvents(t, srv, "/api/events?queue=default&job="+a.ID, last)
		if got := idle.nextAlive(); got != last {
			t.Errorf("idle resumed feed: alive with ID %q, want %q", got, last)
		}
	})
}
