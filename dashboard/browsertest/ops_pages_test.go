package browsertest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/hopperq/hopper/store"
)

// TestBrowserOpsPages drives the operator controls with JavaScript on:
// Quiet asks in a dialog and sends the command; a schedule's last runs
// open to links to their jobs; the Redis page says plainly that the
// in-memory store has no server. Screenshots 80 (workers), 81
// (schedules, runs opened) and 82 (Redis).
func TestBrowserOpsPages(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)
	s := newSite(t, nil)
	tab := newTab(t, browser, nil)
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1400, 900)); err != nil {
		t.Fatal(err)
	}

	const quiet = `form[action$="/workers/worker-1/quiet"] button`
	nav(t, tab, s, "/workers", quiet)
	screenshot(t, tab, shots, "80-ops-workers")
	answerConfirm(t, tab, true)
	clickAndLoad(t, tab, quiet)
	if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Asked the worker to quiet") {
		t.Errorf("flash %q", got)
	}
	ctl, _ := store.As[store.WorkerControl](s.st)
	if got, _ := ctl.TakeWorkerCommand(context.Background(), "worker-1"); got != store.WorkerQuiet {
		t.Fatalf("after Quiet the worker was sent %q", got)
	}

	sr, _ := store.As[store.ScheduleRuns](s.st)
	for i := range 3 {
		run := store.ScheduleRun{At: time.Now().Add(-time.Duration(3-i) * time.Hour), Queue: "default", JobID: s.f.Ready[i]}
		if err := sr.RecordScheduleRun(context.Background(), "default", "monthly-report", run); err != nil {
			t.Fatal(err)
		}
	}
	nav(t, tab, s, "/schedules", "details.schedule-runs summary")
	click(t, tab, "details.schedule-runs summary")
	links := textOfJS(t, tab, `Array.from(document.querySelectorAll('details.schedule-runs[open] li a')).map(function (a) { return a.textContent; }).join(',')`)
	if want := s.f.Ready[2] + "," + s.f.Ready[1] + "," + s.f.Ready[0]; links != want {
		t.Errorf("the opened runs link %q, want the jobs latest first %q", links, want)
	}
	screenshot(t, tab, shots, "81-ops-schedules")

	nav(t, tab, s, "/redis", "#redis-unsupported")
	if got := textOf(t, tab, "#redis-unsupported"); !strings.Contains(got, "no Redis server") {
		t.Errorf("the Redis page on memstore says %q", got)
	}
	screenshot(t, tab, shots, "82-ops-redis")
}
