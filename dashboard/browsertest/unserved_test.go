package browsertest_test

import (
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestBrowserUnservedQueue: a running workflow whose tasks wait in a queue
// no worker serves says so at the top of its page; when a worker that
// serves the queue starts, the hint goes without a reload.
func TestBrowserUnservedQueue(t *testing.T) {
	browser := startBrowser(t)
	s := newSite(t, nil)
	f := dashtest.SeedWorkflows(t, s.st)
	tab := newTab(t, browser, nil)
	nav(t, tab, s, "/workflows/"+f.Running, "#workflow-live")
	markNoReload(t, tab)
	waitFor(t, tab, "!!document.querySelector('[data-unserved=\"fan\"]')", "the no-worker hint for queue fan")
	if got := textOf(t, tab, "[data-unserved=\"fan\"]"); !containsAll(got, "No worker serves queue fan") {
		t.Errorf("hint says %q", got)
	}
	screenshot(t, tab, screenshotDir(t), "live-workflow-unserved")
	err := s.st.Heartbeat(t.Context(), hopper.WorkerInfo{ID: "fan-worker", Host: "h", PID: 1, Queues: map[string]int{"fan": 1}, Concurrency: 1, StartedAt: time.Now()}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, tab, "!document.querySelector('[data-unserved]')", "the hint to go once a worker serves fan")
	requireNoReload(t, tab)
}
