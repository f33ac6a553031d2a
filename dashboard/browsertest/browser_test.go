package browsertest_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// The browser tests drive a real headless Chromium (Debian's chromium
// package) through the DevTools protocol: one browser for the test binary,
// a BrowserContext of its own for each test, one tab per subtest. Without chromium they skip, except
// under CI=true, where that is a failure.

// browserTimeout bounds one subtest's browser work. Waits inside it poll
// the page; nothing sleeps.
const browserTimeout = 60 * time.Second

// mountPrefix is where the browser tests mount the dashboard, so every link
// they follow also tests Config.Prefix under http.StripPrefix.
const mountPrefix = "/admin/jobs"

// findChromium returns the browser to run, or "" when there is none.
func findChromium() string {
	if p := os.Getenv("HOPPER_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// screenshotDir returns the folder screenshots go to: $HOPPER_SCREENSHOTS,
// else testdata/screenshots at the root of the repository (ignored by git).
func screenshotDir(t *testing.T) string {
	dir := os.Getenv("HOPPER_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join("..", "..", "testdata", "screenshots")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The test binary's one Chromium, started by the first test that asks for
// it (sharedBrowserOnce) and stopped by TestMain. Starting a browser costs
// seconds; each test still gets a browser of its own in effect: a fresh
// BrowserContext (no cookies, storage or cache of another test), disposed
// of when the test ends.
var (
	sharedBrowserOnce   sync.Once
	sharedBrowser       context.Context
	sharedBrowserErr    error
	sharedBrowserCancel = func() {}
)

// TestMain stops the shared browser after the tests (the kernel kills it
// too if the test binary dies first: chromedp's Pdeathsig).
func TestMain(m *testing.M) {
	code := m.Run()
	sharedBrowserCancel()
	os.Exit(code)
}

// startSharedBrowser starts the binary's Chromium at path, giving up if it
// does not answer within browserTimeout.
func startSharedBrowser(path string) (context.Context, error) {
	dir, err := os.MkdirTemp("", "browsertest-profile-")
	if err != nil {
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1440, 1000),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	sharedBrowserCancel = func() {
		cancel()
		cancelAlloc()
		_ = os.RemoveAll(dir)
	}
	// Start the browser on ctx itself (chromedp ties the browser's life to
	// the context of the first run), giving up if it does not answer.
	started := make(chan error, 1)
	go func() { started <- chromedp.Do(ctx) }()
	timer := time.NewTimer(browserTimeout)
	defer timer.Stop()
	select {
	case err := <-started:
		if err != nil {
			return nil, fmt.Errorf("starting %s: %w", path, err)
		}
	case <-timer.C:
		cancel()
		return nil, fmt.Errorf("%s did not start within %v", path, browserTimeout)
	}
	return ctx, nil
}

// startBrowser returns a browser for t and its subtests: a BrowserContext
// of its own (as an incognito window: cookies, storage and cache apart
// from every other test's) in the test binary's headless Chromium. It is
// disposed of, with its tabs, when t ends.
func startBrowser(t *testing.T) context.Context {
	path := findChromium()
	if path == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium not found and CI=true: install it (apt-get install chromium) or set HOPPER_CHROMIUM")
		}
		t.Skip("chromium not found: apt-get install chromium (or set HOPPER_CHROMIUM) to run the browser tests")
	}
	sharedBrowserOnce.Do(func() { sharedBrowser, sharedBrowserErr = startSharedBrowser(path) })
	if sharedBrowserErr != nil {
		t.Fatal(sharedBrowserErr)
	}
	ctx, cancel := chromedp.NewContext(sharedBrowser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// Create the BrowserContext (and its first, blank tab) on ctx itself,
	// giving up if the browser does not answer.
	created := make(chan error, 1)
	go func() { created <- chromedp.Do(ctx) }()
	timer := time.NewTimer(browserTimeout)
	defer timer.Stop()
	select {
	case err := <-created:
		if err != nil {
			t.Fatalf("a new browser context in %s: %v", path, err)
		}
	case <-timer.C:
		t.Fatalf("%s made no new browser context within %v", path, browserTimeout)
	}
	return ctx
}

// newTab opens a tab of browser for t, closed when t ends. Every
// JavaScript dialog is dismissed and counted in dialogs.
func newTab(t *testing.T, browser context.Context, dialogs *atomic.Int32) context.Context {
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, browserTimeout)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Do(ctx); err != nil { // opens the tab
		t.Fatal(err)
	}
	events := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range events {
			if err != nil {
				return
			}
			if dialogs != nil {
				dialogs.Add(1)
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	return ctx
}

// site is a dashboard served over HTTP for a browser.
type site struct {
	srv *httptest.Server
	st  hopper.Store
	f   *dashtest.Fixture
	// down, while true, makes every request fail with 503, as a dashboard
	// process that went away behind a proxy.
	down atomic.Bool
}

// url returns the absolute URL of a dashboard path.
func (s *site) url(path string) string { return s.srv.URL + mountPrefix + path }

// liveDashboard returns the dashboard of st mounted under mountPrefix,
// with the fast live updates (every 250 ms) that the live-status tests
// watch.
func liveDashboard(st hopper.Store) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(mountPrefix+"/", http.StripPrefix(mountPrefix, dashboard.New(st, &dashboard.Config{
		Prefix: mountPrefix, RefreshInterval: 250 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
	})))
	return mux
}

// newSite serves a seeded memstore with an hour of throughput history,
// mounted under mountPrefix with fast live updates.
func newSite(t *testing.T, opts *dashboard.Config) *site {
	var offset atomic.Int64
	st := memstore.New(&memstore.Config{Clock: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	seedHistory(t, st, &offset)
	f := dashtest.Seed(t, st)
	if opts == nil {
		opts = &dashboard.Config{}
	}
	opts.Prefix = mountPrefix
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.RefreshInterval == 0 {
		opts.RefreshInterval = 250 * time.Millisecond
	}
	s := &site{st: st, f: f}
	mux := http.NewServeMux()
	mux.Handle(mountPrefix+"/", http.StripPrefix(mountPrefix, dashboard.New(st, opts)))
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.down.Load() {
			http.Error(w, "down for the test", http.StatusServiceUnavailable)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// seedHistory runs jobs through queues "mailers" and "reports" over the
// last hour of the store's clock (moved back through offset), so the
// throughput charts have something to show, and leaves a realistic
// backlog.
func seedHistory(t *testing.T, s hopper.Store, offset *atomic.Int64) {
	t.Helper()
	ctx := context.Background()
	c := hopper.NewClient(s, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	for m := 59; m >= 0; m-- {
		offset.Store(int64(-time.Duration(m) * time.Minute))
		for _, q := range []string{"mailers", "reports"} {
			n := 5 + rng.IntN(20)
			if q == "mailers" {
				n += 20 + int(15*float64(60-m)/60)
			}
			for i := range n {
				if _, err := hopper.Enqueue(ctx, c, dashtest.EmailArgs{To: fmt.Sprintf("user%d@example.com", i), Subject: "Hello"}, &hopper.EnqueueOpts{Queue: q}); err != nil {
					t.Fatal(err)
				}
			}
			res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: n, Lease: time.Hour, WorkerID: "history"})
			if err != nil {
				t.Fatal(err)
			}
			var reqs []store.AttemptEnd
			for _, j := range res.Jobs {
				req := store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: hopper.OutcomeAck}
				if rng.IntN(12) == 0 {
					req.Outcome, req.Delay = hopper.OutcomeRetry, time.Hour
					req.Error = &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: "smtp: 421 try again later"}
				}
				reqs = append(reqs, req)
			}
			if _, err := s.Finish(ctx, reqs); err != nil {
				t.Fatal(err)
			}
		}
	}
	offset.Store(0)
	for i := range 37 {
		if _, err := hopper.Enqueue(ctx, c, dashtest.EmailArgs{To: fmt.Sprintf("backlog%d@example.com", i), Subject: "Digest"}, &hopper.EnqueueOpts{Queue: "mailers"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := hopper.NewInspector(s).SetQueueConfig(ctx, "reports", hopper.QueueConfig{Paused: true}); err != nil {
		t.Fatal(err)
	}
}

// screenshot saves a full-page PNG of the tab as name.png.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// textOf returns the text content of the first element matching css.
func textOf(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	var s string
	err := retryStale(ctx, func() (err error) {
		s, err = chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(css)))
		return err
	})
	if err != nil {
		t.Fatalf("text of %s: %v", css, err)
	}
	return strings.TrimSpace(s)
}

// waitFor polls a JavaScript condition until it holds or the tab's
// deadline passes.
func waitFor(t *testing.T, ctx context.Context, cond, what string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("waiting for %s (%s): %v", what, cond, err)
	}
}

// nav loads path of the site in tab and waits until css is visible.
func nav(t *testing.T, tab context.Context, s *site, path, css string) {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Navigate(s.url(path)), chromedp.WaitVisible(chromedp.CSS(css))); err != nil {
		t.Fatalf("loading %s: %v", path, err)
	}
}

// click clicks the first element matching css.
func click(t *testing.T, tab context.Context, css string) {
	t.Helper()
	if err := retryStale(tab, func() error { return chromedp.Do(tab, chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible)) }); err != nil {
		t.Fatalf("clicking %s: %v", css, err)
	}
}

// clickAndLoad clicks the first element matching css, a link or a submit
// button, and waits for the page it leads to to load. A click that found
// a node a live update then replaced is tried again, as click does: the
// protocol refuses such a node before the click is sent.
func clickAndLoad(t *testing.T, tab context.Context, css string) {
	t.Helper()
	err := retryStale(tab, func() error {
		_, err := chromedp.Run(tab, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(css), chromedp.NodeVisible)))
		return err
	})
	if err != nil {
		t.Fatalf("clicking %s and loading the next page: %v", css, err)
	}
}

// retryStale runs do again while it fails because a live update swapped
// the node it had found for a fresh copy between finding and using it
// (the DevTools protocol then no longer knows the node's ID), until it
// succeeds, fails otherwise, or the tab's deadline passes.
func retryStale(ctx context.Context, do func() error) error {
	for {
		err := do()
		if err == nil || ctx.Err() != nil || !isStaleNode(err) {
			return err
		}
	}
}

// isStaleNode reports whether err says the node found is gone.
func isStaleNode(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "No node with given id found") || strings.Contains(msg, "Could not find node with given id")
}

// jsString quotes s for a JavaScript expression.
func jsString(s string) string { return fmt.Sprintf("%q", s) }

func TestBrowser(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)
	t.Logf("screenshots: %s", shots)

	t.Run("EveryPageLoads", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		var dialogs atomic.Int32
		tab := newTab(t, browser, &dialogs)
		pages := []struct{ name, path, waitFor string }{
			{"01-queues", "/", "table.queues"},
			{"02-jobs-garbage", "/queues/default/garbage", "table.jobs"},
			{"03-jobs-ready", "/queues/mailers/ready", "table.jobs"},
			{"04-job-garbage", "/jobs/default/" + s.f.Garbage[0], "#job-id"},
			{"05-job-done", "/jobs/default/" + s.f.Done, "#job-id"},
			{"06-job-traced", "/jobs/default/" + s.f.Traced, "#trace-id"},
			{"07-workers", "/workers", "section.worker"},
			{"08-schedules", "/schedules", "table.grid"},
			{"09-confirm", "/queues/default/garbage/confirm?action=delete", "#confirm-all"},
		}
		for _, p := range pages {
			nav(t, tab, s, p.path, p.waitFor)
			// Styles and scripts loaded under the CSP: the layout is styled,
			// and the live indicator is shown by app.js on live pages.
			if bg := textOfJS(t, tab, "getComputedStyle(document.querySelector('.topbar')).backgroundColor"); bg != "rgb(15, 23, 42)" {
				t.Errorf("%s: the top bar is %q: app.css did not load", p.path, bg)
			}
			screenshot(t, tab, shots, p.name)
		}
		waitFor(t, tab, "!document.getElementById('live-status').hidden || document.body.dataset.live === ''", "app.js to run")
		if n := dialogs.Load(); n != 0 {
			t.Errorf("%d JavaScript dialogs opened", n)
		}
	})

	t.Run("SearchByArgsSubstring", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/queues/default/garbage", "table.jobs")
		if err := chromedp.Do(tab, chromedp.SendKeys(chromedp.CSS("input[name=args]"), "WEEKLY dig")); err != nil {
			t.Fatal(err)
		}
		clickAndLoad(t, tab, "form.search button[type=submit]")
		if q := textOfJS(t, tab, "location.search"); !strings.Contains(q, "args=WEEKLY+dig") {
			t.Errorf("the search went to %q", q)
		}
		if n := textOfJS(t, tab, "String(document.querySelectorAll('table.jobs tbody tr').length)"); n != "1" {
			t.Fatalf("the search found %s jobs, want 1", n)
		}
		if got := textOf(t, tab, "table.jobs tbody td.mono a"); got != s.f.Garbage[1] {
			t.Errorf("search found %q, want %s", got, s.f.Garbage[1])
		}
		screenshot(t, tab, shots, "10-search-args")

		// A redacted secret is not searchable.
		nav(t, tab, s, "/queues/default/garbage?args="+dashtest.SecretText, "form.search")
		if n := textOfJS(t, tab, "String(document.querySelectorAll('table.jobs tbody tr').length)"); n != "0" {
			t.Errorf("searching a redacted secret found %s jobs", n)
		}
	})

	t.Run("RetryGarbageJob", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		id := s.f.Garbage[1]
		nav(t, tab, s, "/queues/default/garbage", "table.jobs")
		if v := textOfJS(t, tab, "String(document.querySelector('button[data-needs-selection]').disabled)"); v != "true" {
			t.Errorf("the bulk buttons are enabled with nothing selected")
		}
		click(t, tab, `input[name=id][value="`+id+`"]`)
		waitFor(t, tab, "!document.querySelector('button[data-needs-selection]').disabled", "the bulk buttons to enable")
		clickAndLoad(t, tab, `button[formaction$="/retry"]`)
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Requeued 1 job") {
			t.Errorf("flash %q", got)
		}
		// The outcome is shown once: it leaves the address, so a reload
		// does not show it again.
		if q := textOfJS(t, tab, "window.location.search"); strings.Contains(q, "flash") {
			t.Errorf("the address keeps the outcome after it was shown: %q", q)
		}
		// The job left garbage: not in the list, not in the count, ready in the store.
		if strings.Contains(textOf(t, tab, "main"), id) {
			t.Errorf("the garbage list still shows %s after its retry", id)
		}
		if got := textOf(t, tab, `.tab-garbage .pill`); got != "1" {
			t.Errorf("garbage count %q after the retry, want 1", got)
		}
		if st := dashtest.JobState(t, s.st, "default", id); st != hopper.StateReady {
			t.Errorf("retried job is in %q, want ready", st)
		}
		screenshot(t, tab, shots, "11-after-retry")

		// Requeue all, through the confirmation page.
		clickAndLoad(t, tab, `a[href$="/confirm?action=retry"]`)
		clickAndLoad(t, tab, "#confirm-all")
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Requeued 1 job") {
			t.Errorf("flash %q after requeue all", got)
		}
		if c := dashtest.Counts(t, s.st, "default"); c.Garbage != 0 {
			t.Errorf("garbage holds %d jobs after requeue all", c.Garbage)
		}
	})

	t.Run("SelectAllAndDelete", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/queues/mailers/ready", "table.jobs")
		click(t, tab, "#select-all")
		waitFor(t, tab, "document.getElementById('selected-count').textContent.includes('37 selected')", "37 selected")
		// The deletion asks first, with the count; declined, nothing goes.
		answerConfirm(t, tab, false)
		click(t, tab, `button[formaction$="/delete"]`)
		if q := askedConfirm(t, tab); len(q) != 1 || q[0] != "Delete the 37 selected jobs from ready? This cannot be undone." {
			t.Errorf("the deletion asked %q", q)
		}
		if c := dashtest.Counts(t, s.st, "mailers"); c.Ready != 37 {
			t.Errorf("mailers holds %d ready jobs after the deletion was declined, want 37", c.Ready)
		}
		answerConfirm(t, tab, true)
		clickAndLoad(t, tab, `button[formaction$="/delete"]`)
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Deleted 37 jobs") {
			t.Errorf("flash %q", got)
		}
		if c := dashtest.Counts(t, s.st, "mailers"); c.Ready != 0 {
			t.Errorf("mailers holds %d ready jobs after deleting all on the page", c.Ready)
		}
	})

	t.Run("DarkMode", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		if _, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"/", "/queues/default/garbage", "/jobs/default/" + s.f.Garbage[0]} {
			nav(t, tab, s, p, "main")
			colors := textOfJS(t, tab, `[getComputedStyle(document.body).backgroundColor,
				getComputedStyle(document.querySelector('.panel')).backgroundColor,
				getComputedStyle(document.body).color].join(' / ')`)
			if colors != "rgb(11, 17, 32) / rgb(17, 24, 39) / rgb(229, 231, 235)" {
				t.Errorf("%s in dark mode: page / panel background and text %s, want the dark palette", p, colors)
			}
			// No light surface is left on a dark page: every element's own
			// background is dark or transparent.
			if light := textOfJS(t, tab, `Array.from(document.querySelectorAll('main *')).filter(function (e) {
				var m = getComputedStyle(e).backgroundColor.match(/rgba?\((\d+), (\d+), (\d+)(, ([\d.]+))?\)/);
				if (!m || (m[5] !== undefined && Number(m[5]) === 0)) return false;
				return 0.299 * m[1] + 0.587 * m[2] + 0.114 * m[3] > 160;
			}).map(function (e) { return e.tagName + '.' + e.className; }).slice(0, 5).join(', ')`); light != "" {
				t.Errorf("%s in dark mode: light surfaces left: %s", p, light)
			}
		}
		screenshot(t, tab, shots, "20-dark")
	})

	t.Run("NarrowTabsShowTheCurrentOne", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		if err := chromedp.Do(tab, chromedp.EmulateViewport(360, 740)); err != nil {
			t.Fatal(err)
		}
		nav(t, tab, s, "/queues/default/done", "nav.tabs")
		vis := textOfJS(t, tab, `(function () {
			var bar = document.querySelector('nav.tabs'), cur = bar.querySelector('[aria-current=page]');
			var b = bar.getBoundingClientRect(), c = cur.getBoundingClientRect();
			return String(bar.scrollWidth > bar.clientWidth) + ' ' + String(c.left >= b.left && c.right <= b.right);
		})()`)
		// The tabs wrap onto a second line rather than scroll (issue 36).
		if vis != "false true" {
			t.Errorf("at 360 px: tabs wider than the screen, current tab inside the bar = %q, want \"false true\"", vis)
		}
	})

	t.Run("JobDeleteAndCancelAskFirst", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/jobs/default/"+s.f.Pending, "#cancel-job")
		answerConfirm(t, tab, false)
		click(t, tab, "#cancel-job")
		click(t, tab, "#delete-job")
		if q := askedConfirm(t, tab); len(q) != 2 || !strings.HasPrefix(q[0], "Cancel this job?") || !strings.HasPrefix(q[1], "Delete this job?") {
			t.Errorf("cancel and delete asked %q", q)
		}
		if st := dashtest.JobState(t, s.st, "default", s.f.Pending); st != hopper.StatePending {
			t.Fatalf("after two declined actions the job is in %q, want pending", st)
		}
		answerConfirm(t, tab, true)
		clickAndLoad(t, tab, "#delete-job")
		if st := dashtest.JobState(t, s.st, "default", s.f.Pending); st != "" {
			t.Errorf("the deleted job is in %q", st)
		}
	})

	t.Run("LiveCountChangesWithoutReload", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/", "table.queues")
		// A mark in the page's JavaScript state disappears if the page reloads.
		if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void]("window.__noReload = 'still here'")); err != nil {
			t.Fatal(err)
		}
		sel := `[data-count="default/ready"]`
		if got := textOf(t, tab, sel); got != "3" {
			t.Fatalf("default/ready shows %q, want 3", got)
		}
		doneBefore := textOf(t, tab, "[data-chart-done]")
		c := hopper.NewClient(s.st, nil)
		if _, err := hopper.Enqueue(context.Background(), c, dashtest.ReportArgs{Month: "live"}, nil); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "document.querySelector('"+sel+"').textContent === '4'", "the ready count to become 4")
		waitFor(t, tab, "document.querySelector('[data-total=\"ready\"]').textContent === '42'", "the ready total to become 42")

		// Pausing elsewhere shows here, and a finished job moves the chart.
		if err := hopper.NewInspector(s.st).SetQueueConfig(context.Background(), "critical", hopper.QueueConfig{Paused: true}); err != nil {
			t.Fatal(err)
		}
		res, err := s.st.Claim(context.Background(), store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Minute})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatal(res, err)
		}
		j := res.Jobs[0]
		if _, err := s.st.Finish(context.Background(), []store.AttemptEnd{{Queue: "default", ID: j.ID, Token: j.Token, Outcome: hopper.OutcomeAck}}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "!document.querySelector('[data-when-paused=\"critical\"]').hidden", "critical to show as paused")
		waitFor(t, tab, "document.querySelector('[data-chart-done]').textContent !== "+jsString(doneBefore), "the done total to change")
		if v := textOfJS(t, tab, "String(window.__noReload)"); v != "still here" {
			t.Errorf("the page was reloaded (mark is %q)", v)
		}
		screenshot(t, tab, shots, "12-live-updated")
	})

	t.Run("ScriptInArgsRendersAsText", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		var dialogs atomic.Int32
		tab := newTab(t, browser, &dialogs)
		// The dialog listener works: a real alert is counted.
		if err := chromedp.Do(tab, chromedp.Navigate(s.url("/")), chromedp.Evaluate[chromedp.Void]("alert('probe')")); err != nil {
			t.Fatal(err)
		}
		if dialogs.Load() != 1 {
			t.Fatalf("the probe alert was counted %d times, want 1", dialogs.Load())
		}
		dialogs.Store(0)

		nav(t, tab, s, "/jobs/default/"+s.f.Garbage[0], "pre[data-json]")
		if got := textOf(t, tab, "pre[data-json]"); !strings.Contains(got, dashtest.XSSText) {
			t.Errorf("the args text %q lacks %q", got, dashtest.XSSText)
		}
		if n := textOfJS(t, tab, "String(document.scripts.length)"); n != "1" {
			t.Errorf("the job page has %s script elements, want 1 (app.js)", n)
		}
		nav(t, tab, s, "/queues/default/garbage", "table.jobs")
		if got := textOf(t, tab, "table.jobs"); !strings.Contains(got, dashtest.XSSText) {
			t.Errorf("the garbage list lacks the literal %q", dashtest.XSSText)
		}
		nav(t, tab, s, "/queues/default/garbage?args="+dashtest.XSSText, "table.jobs")
		if n := dialogs.Load(); n != 0 {
			t.Errorf("%d JavaScript dialogs opened", n)
		}
	})

	t.Run("ProgressBarMoves", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		// A 10-second job that reports every 100 ms, run by a real worker
		// with the default renewal interval.
		w := hopper.NewWorker(s.st, &hopper.WorkerConfig{Queues: map[string]int{"imports": 1}, Logger: slog.New(slog.DiscardHandler)})
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[importArgs]) error {
			for i := 1; i <= 100; i++ {
				time.Sleep(100 * time.Millisecond) // the job's work
				if err := hopper.Progress(ctx, float64(i), map[string]int{"rows": i * j.Args.Rows / 100}); err != nil {
					return err
				}
				if i%10 == 0 {
					if err := hopper.Log(ctx, fmt.Sprintf("imported %d rows", i*j.Args.Rows/100)); err != nil {
						return err
					}
				}
			}
			return nil
		})
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = w.Run(ctx)
		}()
		t.Cleanup(func() {
			stop()
			<-done
		})
		info, err := hopper.Enqueue(ctx, hopper.NewClient(s.st, nil), importArgs{Rows: 5000}, &hopper.EnqueueOpts{Queue: "imports", Retention: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		nav(t, tab, s, "/jobs/imports/"+info.ID, "#job-id")
		if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void]("window.__noReload = 'still here'")); err != nil {
			t.Fatal(err)
		}
		// The bar moves forward, step by step, while the job runs.
		value := "document.getElementById('progress-bar').value"
		prev := "0"
		for step := range 3 {
			waitFor(t, tab, "!document.getElementById('progress-panel').hidden && document.getElementById('progress-bar').hasAttribute('value') && "+value+" > "+prev+" && "+value+" < 100", fmt.Sprintf("progress step %d past %s%%", step+1, prev))
			prev = textOfJS(t, tab, "String("+value+")")
		}
		screenshot(t, tab, shots, "14-progress-running")
		waitFor(t, tab, "document.querySelectorAll('#job-log li').length > 0", "log lines")
		if got := textOf(t, tab, "#job-log li span"); !strings.HasPrefix(got, "imported ") {
			t.Errorf("first log line %q", got)
		}
		// The data panel is redrawn by each live update: wait for the
		// handler's rows instead of reading it once mid-update.
		waitFor(t, tab, `document.getElementById('progress-data') !== null && document.getElementById('progress-data').textContent.indexOf('"rows"') >= 0`, "the handler's rows in the progress data")
		// To the end: 100% and the job done, without a reload.
		waitFor(t, tab, value+" === 100 && document.querySelector('[data-job-state] .state').textContent === 'done'", "the bar at 100% and the job done")
		if v := textOfJS(t, tab, "String(window.__noReload)"); v != "still here" {
			t.Errorf("the page was reloaded (mark is %q)", v)
		}
		// Every log line shows, also the last, which may come after the
		// state (the state and the log lines are separate updates).
		waitFor(t, tab, "document.querySelectorAll('#job-log li').length === 10", "the job's 10 log lines")
		if v := textOfJS(t, tab, "String(window.__noReload)"); v != "still here" {
			t.Errorf("the page was reloaded for the last log line (mark is %q)", v)
		}
		screenshot(t, tab, shots, "15-progress-done")
	})

	t.Run("ActivityFeed", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/queues/mailers/ready", "table.jobs")
		waitFor(t, tab, "document.getElementById('live-status') && !document.getElementById('live-status').hidden", "the event stream to open")
		// A worker takes one listed job: the feed shows its start and
		// its success, and its row says where it went.
		first := textOfJS(t, tab, "document.querySelector('tr[data-job-row]').getAttribute('data-job-row')")
		res, err := s.st.Claim(context.Background(), store.ClaimOpts{Queue: "mailers", Max: 1, Lease: time.Minute, WorkerID: "browser-test"})
		if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != first {
			t.Fatalf("claim: %v, %v; want the first listed job %s", res, err, first)
		}
		waitFor(t, tab, "document.querySelector('#activity-list li.ev-started') !== null", "the start in the activity feed")
		// Its row says where it went until the list refreshes without it
		// (the event also asks the list for a refresh).
		waitFor(t, tab, `(function () {
			var m = document.querySelector('tr.row-moved .moved');
			if (m) return m.textContent.indexOf('unack') >= 0;
			return !document.querySelector('[data-job-row=`+jsString(first)+`]');
		})()`, "the row of the started job marked unack, or gone from the refreshed list")
		// The counts follow the events.
		unack := `document.querySelector('[data-count="mailers/unack"]').textContent`
		waitFor(t, tab, unack+" === '1'", "the unack count to show the started job")
		if _, err := s.st.Finish(context.Background(), []store.AttemptEnd{{Queue: "mailers", ID: first, Token: res.Jobs[0].Token, Outcome: hopper.OutcomeAck}}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, tab, "document.querySelector('#activity-list li.ev-succeeded') !== null", "the success in the activity feed")
		waitFor(t, tab, unack+" === '0'", "the unack count to show the job acked")
		screenshot(t, tab, shots, "16-activity-feed")
	})

	t.Run("WorksWithoutJavaScript", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		nav(t, tab, s, "/", "table.queues")
		if got := textOf(t, tab, `[data-count="default/garbage"]`); got != "2" {
			t.Errorf("default/garbage shows %q without JavaScript", got)
		}
		nav(t, tab, s, "/queues/default/garbage", "table.jobs")
		if err := chromedp.Do(tab, chromedp.WaitNotVisible(chromedp.CSS("#select-all"))); err != nil {
			t.Error("the select-all box shows without JavaScript")
		}
		click(t, tab, `input[name=id][value="`+s.f.Garbage[0]+`"]`)
		clickAndLoad(t, tab, `button[formaction$="/delete"]`)
		clickAndLoad(t, tab, "#ask-confirm") // the deletion asks first (see TestBrowserNoScript)
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Deleted 1 job") {
			t.Errorf("flash %q", got)
		}
		if st := dashtest.JobState(t, s.st, "default", s.f.Garbage[0]); st != "" {
			t.Errorf("the job deleted without JavaScript is in %q", st)
		}
		screenshot(t, tab, shots, "13-no-javascript")
	})
}

// importArgs is the job of the progress test.
type importArgs struct{ Rows int }

func (importArgs) Kind() string { return "import" }

// textOfJS evaluates a JavaScript expression that yields a string.
func textOfJS(t *testing.T, tab context.Context, expr string) string {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// answerConfirm makes the page's window.confirm answer accept without a
// dialog, recording each question in window.__asked (the questions are
// app.js's; the dialog itself is the browser's).
func answerConfirm(t *testing.T, tab context.Context, accept bool) {
	t.Helper()
	js := fmt.Sprintf("window.__asked = window.__asked || []; window.confirm = function (q) { window.__asked.push(q); return %v; }; true", accept)
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](js)); err != nil {
		t.Fatal(err)
	}
}

// askedConfirm returns the questions window.confirm was asked on this page.
func askedConfirm(t *testing.T, tab context.Context) []string {
	t.Helper()
	asked, err := chromedp.Run(tab, chromedp.Evaluate[[]string]("window.__asked || []"))
	if err != nil {
		t.Fatal(err)
	}
	return asked
}
