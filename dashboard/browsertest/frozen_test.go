package browsertest_test

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// staleWatchJS installs a watcher that records, in window.__frozenLive,
// whether the status said "live" again at any moment after it said stale
// once window.__frozen was set (checked every 20 ms, more often than the page renders it).
const staleWatchJS = `(function () {
  window.__frozenLive = false;
  window.__staleSince = 0;
  setInterval(function () {
    var t = document.querySelector('#live-status .live-text');
    var s = t ? t.textContent : '';
    if (window.__frozen && s === 'stale') window.__wentStale = true;
    if (window.__wentStale && s === 'live' && Date.now() < window.__frozenUntil) window.__frozenLive = true;
    if (s === 'stale' && !window.__staleSince) window.__staleSince = Date.now();
    if (s !== 'stale') window.__staleSince = 0;
  }, 20);
})()`

// Finding 6 of issue 36: with Redis frozen by CLIENT PAUSE, every page
// showing the live status turns stale within a few refresh periods, stays
// stale while Redis is frozen — even when its event stream reconnects —
// and turns live once Redis answers again.
func TestLiveFrozenRedis(t *testing.T) {
	browser := startBrowser(t)
	srv := redistest.Start(t, redistest.Private())
	// A short read timeout, so that the event feed's stuck read fails and
	// the browser reconnects while Redis is still frozen (the path that
	// used to turn the page live again).
	rdb := srv.Client(t, func(o *redis.Options) { o.ReadTimeout = time.Second })
	st := redisstore.New(rdb, nil)
	f := dashtest.Seed(t, st)
	wf := dashtest.SeedWorkflows(t, st)
	web := httptest.NewServer(liveDashboard(st))
	t.Cleanup(web.Close)
	s := &site{srv: web, st: st, f: f}

	pages := []struct{ path, css string }{
		{"/", "#live-status"},
		{"/queues/default/ready", "#jobs-region table"},
		{"/jobs/default/" + f.Ready[0], "#live-status"},
		{"/queues/default/errors", "#live-status"},
		{"/workers", "#live-status"},
		{"/schedules", "#live-status"},
		{"/workflows", "#live-status"},
		{"/workflows/" + wf.Running, "#live-status"},
	}
	tabs := make([]context.Context, len(pages))
	for i, p := range pages {
		tabs[i] = longTab(t, browser)
		nav(t, tabs[i], s, p.path, p.css)
		waitFor(t, tabs[i], "document.querySelector('#live-status .live-text').textContent === 'live'", p.path+" to say live")
		if err := runJS(tabs[i], staleWatchJS); err != nil {
			t.Fatal(err)
		}
	}

	// An event, so that the queue page's feed resumes from it when it
	// reconnects (Last-Event-ID): the server then opened the stream at
	// once, without reading Redis, and the page called that live.
	if _, err := hopper.Enqueue(context.Background(), hopper.NewClient(st, nil), dashtest.EmailArgs{To: "frozen"}, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tabs[1], "Number(document.body.getAttribute('data-events-received')) >= 1", "the queue page's first event")

	// Redis 7.0 holds even CLIENT UNPAUSE from another client during a
	// pause, so the pause ends by itself, after frozenFor: longer than the
	// feed's old 15 s wait plus the read timeout, twice, so that the feed
	// reconnects while Redis is frozen whatever its wait.
	const frozenFor = 35 * time.Second
	start := time.Now()
	if err := srv.Client(t).Do(context.Background(), "CLIENT", "PAUSE", strconv.Itoa(int(frozenFor.Milliseconds())), "ALL").Err(); err != nil {
		t.Fatal(err)
	}
	until := strconv.FormatInt(start.Add(frozenFor).UnixMilli(), 10) // at or before the pause's end
	for i := range pages {
		if err := runJS(tabs[i], "window.__frozen = true; window.__frozenUntil = "+until); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range pages {
		// Stale within a few refresh periods (the pages' bound is 3
		// periods + 2 s), well before the pause ends.
		waitFor(t, tabs[i], "document.querySelector('#live-status .live-text').textContent === 'stale'", p.path+" to say stale with Redis frozen")
		if textOfJS(t, tabs[i], "String(Date.now() < window.__frozenUntil)") != "true" {
			t.Fatalf("%s said stale only after Redis was frozen %v", p.path, frozenFor)
		}
	}
	// Stale until the pause ends, through the feed's read timing out and
	// the browser reconnecting (2 s later), which used to say live again.
	// The pause's end: Redis answers again.
	probe := srv.Client(t)
	for probe.Ping(context.Background()).Err() != nil {
	}
	for i, p := range pages {
		if textOfJS(t, tabs[i], "String(window.__frozenLive)") != "false" {
			t.Errorf("%s said live again while Redis was frozen", p.path)
		}
	}
	for i, p := range pages {
		waitFor(t, tabs[i], "document.querySelector('#live-status .live-text').textContent === 'live'", p.path+" to say live after Redis answers")
	}
}

// runJS evaluates expr in tab, ignoring its value.
func runJS(tab context.Context, expr string) error {
	return chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](expr))
}

// longTab opens a tab for a test that outlasts browserTimeout (Redis is
// frozen for most of it), closed when t ends.
func longTab(t *testing.T, browser context.Context) context.Context {
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*browserTimeout)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx
}
