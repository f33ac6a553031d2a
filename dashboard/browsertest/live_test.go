package browsertest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// The live pages: lists, a job, the workers and the schedules follow the
// store without a reload; live updates can be paused; a page that stops
// following says so.

// markNoReload sets a mark in the tab's JavaScript state, which a reload
// would lose; requireNoReload checks it is still there.
func markNoReload(t *testing.T, tab context.Context) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void]("window.__noReload = 'still here'")); err != nil {
		t.Fatal(err)
	}
}

func requireNoReload(t *testing.T, tab context.Context) {
	t.Helper()
	if v := textOfJS(t, tab, "String(window.__noReload)"); v != "still here" {
		t.Errorf("the page was reloaded (mark is %q)", v)
	}
}

// rowJS is a JavaScript test that the jobs list has a row for id.
func rowJS(id string) string {
	return "!!document.querySelector('[data-job-row=" + jsString(id) + "]')"
}

// counter returns the value of a counter the page keeps on its body.
func counter(t *testing.T, tab context.Context, attr string) string {
	return textOfJS(t, tab, "String(document.body.getAttribute("+jsString(attr)+") || 0)")
}

func TestLive(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)
	ctx := context.Background()

	t.Run("ListFollowsTheStore", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/queues/default/ready", "#jobs-region table")
		markNoReload(t, tab)
		c := hopper.NewClient(s.st, nil)
		info, err := hopper.Enqueue(ctx, c, dashtest.ReportArgs{Month: "live"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, rowJS(info.ID), "the new job's row")
		waitFor(t, tab, "document.querySelector('#jobs-region .toolbar-info').textContent.includes('of 4')", "the total to say 4")

		// A job that leaves ready leaves the list.
		res, err := s.st.Claim(ctx, store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Minute, WorkerID: "test"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatal(res, err)
		}
		waitFor(t, tab, "!"+rowJS(res.Jobs[0].ID), "the claimed job's row to go")

		// While jobs are ticked the list is held, so that no row moves under
		// the operator's hand; unticked, it catches up.
		click(t, tab, "#jobs-region input[name=id]")
		second, err := hopper.Enqueue(ctx, c, dashtest.ReportArgs{Month: "held"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "document.body.classList.contains('is-held')", "the list to be held")
		if textOfJS(t, tab, "String("+rowJS(second.ID)+")") != "false" {
			t.Error("a job enqueued while a box was ticked showed up in the held list")
		}
		click(t, tab, "#jobs-region input[name=id]")
		waitFor(t, tab, rowJS(second.ID), "the held list to catch up once the box was unticked")
		requireNoReload(t, tab)
		screenshot(t, tab, shots, "40-live-list")
	})

	// A keyboard user's focus stays on the control it was on when the
	// region it is in is swapped for a fresh copy: it fell to the page's
	// start with every swap.
	t.Run("FocusStaysOnSwap", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/queues/default/ready", "#jobs-region table")
		const link = "document.querySelector('#jobs-region a[href*=\"/jobs/\"]')"
		href := textOfJS(t, tab, "(function(){var a = "+link+"; a.focus(); return a.getAttribute('href');})()")
		swaps := counter(t, tab, "data-region-swaps")
		if _, err := hopper.Enqueue(ctx, hopper.NewClient(s.st, nil), dashtest.ReportArgs{Month: "focus"}, nil); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "Number(document.body.getAttribute('data-region-swaps')) > "+swaps, "the list to be swapped")
		if got := textOfJS(t, tab, "String(document.activeElement && document.activeElement.getAttribute('href'))"); got != href {
			t.Errorf("after the swap the focus is on %q, want the link it was on, %q", got, href)
		}
	})

	t.Run("PauseAndStale", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/queues/default/ready", "#jobs-region table")
		waitFor(t, tab, "!document.getElementById('live-pause').hidden", "the pause button")
		click(t, tab, "#live-pause")
		if got := textOf(t, tab, "#live-status .live-text"); got != "paused" {
			t.Errorf("after Pause the status says %q, want paused", got)
		}
		skips := counter(t, tab, "data-live-skips")
		info, err := hopper.Enqueue(ctx, hopper.NewClient(s.st, nil), dashtest.ReportArgs{Month: "paused"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Two refreshes skipped since the job came: it is not shown.
		waitFor(t, tab, "Number(document.body.getAttribute('data-live-skips')) >= "+skips+" + 2", "two skipped refreshes")
		if textOfJS(t, tab, "String("+rowJS(info.ID)+")") != "false" {
			t.Error("a paused list showed a new job")
		}
		click(t, tab, "#live-pause")
		waitFor(t, tab, rowJS(info.ID), "the list to catch up after Resume")

		// The server goes away: the page says it is stale, and recovers.
		markNoReload(t, tab)
		s.down.Store(true)
		waitFor(t, tab, "!document.getElementById('live-stale').hidden", "the stale banner")
		// The status follows the banner within a refresh (an event already
		// on its way may still say alive first).
		waitFor(t, tab, "document.querySelector('#live-status .live-text').textContent.trim() === 'stale'", "the status to say stale")
		if banner := textOf(t, tab, "#live-stale"); banner == "" || !containsAll(banner, "Live updates stopped", "HTTP 503") {
			t.Errorf("stale banner says %q", banner)
		}
		screenshot(t, tab, shots, "41-stale")
		s.down.Store(false)
		waitFor(t, tab, "document.getElementById('live-stale').hidden && document.querySelector('#live-status .live-text').textContent === 'live'", "the page to be live again")
		requireNoReload(t, tab)
	})

	t.Run("SlowUpdatesAreNotStale", func(t *testing.T) {
		t.Parallel()
		// 400 ms: ten periods (4 s) is more than three periods and two
		// seconds, the stale bound of a page that forgot its slow updates.
		s := newSite(t, &dashboard.Config{RefreshInterval: 400 * time.Millisecond})
		tab := newTab(t, browser, nil)
		// A search page has no live region: only the counts refresh, ten
		// periods apart while its event stream is open. Two such refreshes
		// without the page ever calling itself stale.
		nav(t, tab, s, "/queues/default/ready?kind=send_email", "#jobs-region")
		waitFor(t, tab, "Number(document.body.getAttribute('data-live-updates')) >= 2", "two refreshes of the counts")
		if n := counter(t, tab, "data-stale-shows"); n != "0" {
			t.Errorf("the page said it was stale %s times between slow refreshes, with the server up", n)
		}
	})

	t.Run("JobPageFollowsTheStore", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		info, err := hopper.Enqueue(ctx, hopper.NewClient(s.st, nil), dashtest.ReportArgs{Month: "job"}, &hopper.EnqueueOpts{Queue: "solo"})
		if err != nil {
			t.Fatal(err)
		}
		nav(t, tab, s, "/jobs/solo/"+info.ID, "#job-head-region")
		markNoReload(t, tab)
		if _, err := s.st.Claim(ctx, store.ClaimOpts{Queue: "solo", Max: 1, Lease: time.Minute, WorkerID: "test"}); err != nil {
			t.Fatal(err)
		}
		// "Lease until" is only in the page the server renders for a claimed
		// job: the region was swapped.
		waitFor(t, tab, "document.querySelector('#job-head-region .facts').textContent.includes('Lease until')", "the job page to show the lease")
		requireNoReload(t, tab)
	})

	t.Run("ErrorGroupsAskFirst", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/queues/default/garbage", "#errors-link")
		clickAndLoad(t, tab, "#errors-link")
		waitFor(t, tab, "!!document.querySelector('[data-error-group]')", "the error groups")
		screenshot(t, tab, shots, "42-errors-grouped")
		before := dashtest.Counts(t, s.st, "default").Get(hopper.StateGarbage)
		answerConfirm(t, tab, false)
		click(t, tab, "[data-error-group^='garbage/'] .btn-danger")
		if q := askedConfirm(t, tab); len(q) != 1 || !strings.HasPrefix(q[0], "Delete the ") || !strings.Contains(q[0], "This cannot be undone.") {
			t.Fatalf("deleting an error group asked %q", q)
		}
		if n := dashtest.Counts(t, s.st, "default").Get(hopper.StateGarbage); n != before {
			t.Fatalf("a declined delete changed garbage from %d to %d", before, n)
		}
		answerConfirm(t, tab, true)
		clickAndLoad(t, tab, "[data-error-group^='garbage/'] .btn-danger")
		if n := dashtest.Counts(t, s.st, "default").Get(hopper.StateGarbage); n >= before {
			t.Errorf("an accepted delete left garbage at %d (was %d)", n, before)
		}
		if flash := textOf(t, tab, ".flash"); !strings.HasPrefix(flash, "Deleted ") {
			t.Errorf("after the delete the page says %q", flash)
		}
	})

	t.Run("CopyButtons", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/jobs/default/"+s.f.Garbage[0], "#copy-id")
		// Record what is copied (the test tab's clipboard is the browser's),
		// and whether the ID's button ever said so: its "Copied" lasts 1.5 s,
		// which a loaded machine's polling can miss.
		if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`window.__copied = []; navigator.clipboard.writeText = function (t) { window.__copied.push(t); return Promise.resolve(); };
			window.__saidCopied = false;
			new MutationObserver(function () {
				var b = document.getElementById('copy-id');
				if (b && b.textContent === 'Copied') window.__saidCopied = true;
			}).observe(document.body, {subtree: true, childList: true, characterData: true});`)); err != nil {
			t.Fatal(err)
		}
		click(t, tab, "#copy-id")
		click(t, tab, "#copy-args")
		waitFor(t, tab, "window.__copied.length === 2 && window.__saidCopied", "both copies, and the ID's button saying Copied")
		got := textOfJS(t, tab, "window.__copied[0] + '|' + JSON.parse(window.__copied[1]).to")
		if got != s.f.Garbage[0]+"|bob@example.com" {
			t.Errorf("copied %q, want the job's ID and its args' JSON", got)
		}
	})

	t.Run("WorkersAndSchedulesFollowTheStore", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/workers", "#workers-region")
		markNoReload(t, tab)
		w := store.WorkerInfo{ID: "late-worker", Host: "h", PID: 7, Queues: map[string]int{"default": 1}, Concurrency: 4, StartedAt: time.Now(),
			Running: []store.RunningJob{{Queue: "default", ID: s.f.Unack, Kind: "send_email", StartedAt: time.Now()}}}
		if err := s.st.Heartbeat(ctx, w, time.Minute); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "document.getElementById('workers-region').textContent.includes('late-worker')", "the new worker")
		requireNoReload(t, tab)

		nav(t, tab, s, "/schedules", "#schedules-region")
		markNoReload(t, tab)
		if err := s.st.RegisterSchedules(ctx, []store.ScheduleInfo{{Name: "late-schedule", Spec: "@every 1h", Queue: "default", Kind: "build_report", Next: time.Now().Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "document.getElementById('schedules-region').textContent.includes('late-schedule')", "the new schedule")
		requireNoReload(t, tab)
	})
}

// containsAll reports whether s contains every one of subs.
func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
