package browsertest_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// feedGate serves the dashboard and watches its event feed: it counts the
// feed's requests inside the dashboard, says when each one ends, and,
// once shut, holds new ones at the door until opened again (as a network
// that lost the browser's reconnect for a while). While refuse is set it
// answers them 503 instead, as a proxy whose dashboard went away.
type feedGate struct {
	next    http.Handler
	ended   chan struct{} // receives when a feed request ends
	refused chan struct{} // receives when one is refused
	refuse  atomic.Bool
	mu      sync.Mutex
	hold    chan struct{} // non-nil while shut: closed when opened
	open    int           // feed requests inside next
}

func (g *feedGate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/api/events") {
		g.next.ServeHTTP(w, r)
		return
	}
	if g.refuse.Load() {
		http.Error(w, "refused for the test", http.StatusServiceUnavailable)
		select {
		case g.refused <- struct{}{}:
		default: // nobody counts any more
		}
		return
	}
	g.mu.Lock()
	hold := g.hold
	if hold == nil {
		g.open++
	}
	g.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
		g.mu.Lock()
		g.open++
		g.mu.Unlock()
	}
	defer func() {
		g.mu.Lock()
		g.open--
		g.mu.Unlock()
		select {
		case g.ended <- struct{}{}:
		default: // nobody counts any more
		}
	}()
	g.next.ServeHTTP(w, r)
}

// shut holds the feed's new requests from now on and returns how many are
// inside the dashboard.
func (g *feedGate) shut() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold == nil {
		g.hold = make(chan struct{})
	}
	return g.open
}

// reopen lets the held requests and new ones through.
func (g *feedGate) reopen() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hold != nil {
		close(g.hold)
		g.hold = nil
	}
}

// gatedSite serves the dashboard of st behind a feedGate, with fast live
// updates.
func gatedSite(t *testing.T, st hopper.Store) (*site, *feedGate) {
	gate := &feedGate{next: liveDashboard(st), ended: make(chan struct{}, 256), refused: make(chan struct{}, 256)}
	web := httptest.NewServer(gate)
	t.Cleanup(web.Close)
	t.Cleanup(gate.reopen) // before web.Close, which waits for held requests
	return &site{srv: web, st: st}, gate
}

// waitStaleStream checks that a page whose event stream is down says
// stale while its other updates succeed (two refreshes of its regions,
// the second sent after whatever failed before).
func waitStaleStream(t *testing.T, tab context.Context, path string) {
	t.Helper()
	n, err := strconv.Atoi(counter(t, tab, "data-region-updates"))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, "Number(document.body.getAttribute('data-region-updates')) >= "+strconv.Itoa(n+2), path+": two refreshes of its regions")
	if got := textOf(t, tab, "#live-status .live-text"); got != "stale" {
		t.Errorf("%s says %q while its event stream is down, want stale", path, got)
	}
	if got := counter(t, tab, "data-events-received"); got != "0" {
		t.Fatalf("%s received %s stream messages while its stream was down", path, got)
	}
}

// A page whose event stream failed while Redis was frozen follows the
// store again once Redis answers, without a reload, and receives the
// events that happened while its stream was down; until its stream is
// back it does not say live. The page's stream had received no event, so
// the browser reconnected without a Last-Event-ID: that request's first
// read of the frozen store failed and was answered 503, which closes an
// EventSource for good (the page then said live on its polling and never
// heard of the job again).
func TestLiveStreamAfterFrozenRedis(t *testing.T) {
	browser := startBrowser(t)
	pages := []struct {
		name string
		path func(job string) string
		css  string
	}{
		{"JobPage", func(job string) string { return "/jobs/default/" + job }, "#live-status"},
		{"QueuePage", func(string) string { return "/queues/default/unack" }, "#jobs-region table"},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			srv := redistest.Start(t, redistest.Private())
			// Reads of a frozen Redis fail after a second, without retries.
			rdb := srv.Client(t, func(o *redis.Options) {
				o.ReadTimeout = time.Second
				o.MaxRetries = -1
			})
			st := redisstore.New(rdb, nil)
			if _, err := hopper.Enqueue(ctx, hopper.NewClient(st, nil), dashtest.EmailArgs{To: "stream"}, nil); err != nil {
				t.Fatal(err)
			}
			res, err := st.Claim(ctx, store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Hour, WorkerID: "w"})
			if err != nil || len(res.Jobs) != 1 {
				t.Fatalf("claim: %v, %v", res, err)
			}
			job := res.Jobs[0]
			progress := func(percent float64) {
				t.Helper()
				ref := store.LeaseRef{Queue: job.Queue, ID: job.ID, Token: job.Token, Progress: &store.Progress{Percent: percent}}
				if _, err := st.Extend(ctx, []store.LeaseRef{ref}, time.Hour); err != nil {
					t.Fatal(err)
				}
			}

			s, gate := gatedSite(t, st)
			tab := newTab(t, browser, nil)
			path := p.path(job.ID)
			nav(t, tab, s, path, p.css)
			markNoReload(t, tab)
			waitFor(t, tab, "Number(document.body.getAttribute('data-events-alive')) >= 1", path+": the stream's first alive message")
			waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent === 'live'", path+" to say live")
			endOfFeed := func(what string) {
				t.Helper()
				select {
				case <-gate.ended:
				case <-tab.Done():
					t.Fatalf("%s: %s did not come", path, what)
				}
			}

			// Frozen: the stream's read fails (the read timeout), the
			// browser reconnects, and that request's read fails too.
			thaw := srv.Freeze(t)
			endOfFeed("the stream's end with Redis frozen")
			endOfFeed("the end of the browser's reconnect with Redis frozen")
			// From now on the feed is down: what comes is held, and what
			// is inside fails while Redis is still frozen.
			for range gate.shut() {
				endOfFeed("the end of a feed request with Redis frozen")
			}
			thaw()

			// An event while the page's stream is down; the page's other
			// updates succeed again, but it does not call itself live.
			progress(40)
			waitStaleStream(t, tab, path)

			// The feed is up again: the page's stream comes back by itself,
			// with the event it missed, and then follows the store.
			gate.reopen()
			waitFor(t, tab, "Number(document.body.getAttribute('data-events-received')) >= 1", path+": the event reported while its stream was down")
			waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent === 'live'", path+" to say live with its stream back")
			progress(70)
			waitFor(t, tab, "Number(document.body.getAttribute('data-events-received')) >= 2", path+": an event after its stream came back")
			if got := counter(t, tab, "data-events-received"); got != "2" {
				t.Errorf("%s received %s stream messages, want the 2 events", path, got)
			}
			requireNoReload(t, tab)
		})
	}
}

// A page whose event stream was answered other than 200 (here a proxy's
// 503 while the dashboard is away), which closes an EventSource for good,
// opens a new one once the feed answers again, from the last position it
// heard: the events that came meanwhile reach it. Until then it does not
// say live.
func TestLiveStreamReopens(t *testing.T) {
	browser := startBrowser(t)
	ctx := context.Background()
	st := memstore.New(nil)
	c := hopper.NewClient(st, nil)
	enqueue := func(to string) {
		t.Helper()
		if _, err := hopper.Enqueue(ctx, c, dashtest.EmailArgs{To: to}, nil); err != nil {
			t.Fatal(err)
		}
	}
	enqueue("first")
	s, gate := gatedSite(t, st)
	tab := newTab(t, browser, nil)
	const path = "/queues/default/ready"
	nav(t, tab, s, path, "#jobs-region table")
	markNoReload(t, tab)
	waitFor(t, tab, "Number(document.body.getAttribute('data-events-alive')) >= 1", "the stream's first alive message")
	waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent === 'live'", "the page to say live")

	// The stream's connection ends; the browser's reconnect is refused.
	gate.refuse.Store(true)
	s.srv.CloseClientConnections()
	select {
	case <-gate.refused:
	case <-tab.Done():
		t.Fatal("the browser did not reconnect to the event feed")
	}
	enqueue("while refused")
	waitStaleStream(t, tab, path)

	gate.refuse.Store(false)
	waitFor(t, tab, "Number(document.body.getAttribute('data-events-received')) >= 1", "the event that came while the feed was refused")
	waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent === 'live'", "the page to say live with its stream back")
	enqueue("after")
	waitFor(t, tab, "Number(document.body.getAttribute('data-events-received')) >= 2", "an event after the stream came back")
	if got := counter(t, tab, "data-events-received"); got != "2" {
		t.Errorf("the page received %s stream messages, want the 2 events", got)
	}
	requireNoReload(t, tab)
}

// A page whose first event stream was refused has no position to resume
// from: the stream it opens later follows the queue from then on, and the
// activity feed says that events before may be missing.
func TestLiveStreamOpensLate(t *testing.T) {
	browser := startBrowser(t)
	st := memstore.New(nil)
	if _, err := hopper.Enqueue(context.Background(), hopper.NewClient(st, nil), dashtest.EmailArgs{To: "first"}, nil); err != nil {
		t.Fatal(err)
	}
	s, gate := gatedSite(t, st)
	gate.refuse.Store(true)
	tab := newTab(t, browser, nil)
	const path = "/queues/default/ready"
	nav(t, tab, s, path, "#jobs-region table")
	select {
	case <-gate.refused:
	case <-tab.Done():
		t.Fatal("the page did not open its event stream")
	}
	waitStaleStream(t, tab, path)
	gate.refuse.Store(false)
	waitFor(t, tab, "Number(document.body.getAttribute('data-events-alive')) >= 1", "the stream's first alive message")
	waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent === 'live'", "the page to say live")
	if got := textOf(t, tab, "#activity-list .ev-lost"); !strings.Contains(got, "events before the feed reopened may be missing") {
		t.Errorf("activity feed after a late stream: %q, want it to say events may be missing", got)
	}
}
