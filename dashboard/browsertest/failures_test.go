package browsertest_test

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestBrowserFailures: the Dead page lists dead jobs, and with JavaScript
// off deleting the selected ones and requeueing every one ask on a page
// first; only that page's button acts.
func TestBrowserFailures(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)

	t.Run("DeleteSelectedNoScript", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		id := s.f.Garbage[0]
		nav(t, tab, s, "/dead", "table.failures")
		screenshot(t, tab, shots, "70-dead-no-javascript")
		click(t, tab, `input[name=id][value="default `+id+`"]`)
		clickAndLoad(t, tab, `button[formaction$="/dead/delete"]`)
		if q := textOf(t, tab, "#ask-heading"); !strings.Contains(q, "Delete 1 selected garbage job (in 1 queue)?") {
			t.Errorf("the confirmation page asks %q", q)
		}
		if st := dashtest.JobState(t, s.st, "default", id); st != hopper.StateGarbage {
			t.Fatalf("before the answer the job is %q, want garbage", st)
		}
		clickAndLoad(t, tab, "#ask-confirm")
		if st := dashtest.JobState(t, s.st, "default", id); st != "" {
			t.Errorf("the confirmed delete left the job in %q", st)
		}
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Deleted 1 job") {
			t.Errorf("flash %q", got)
		}
	})

	t.Run("RetryAllNoScript", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		nav(t, tab, s, "/dead", "#retry-all")
		clickAndLoad(t, tab, "#retry-all")
		if q := textOf(t, tab, "#ask-heading"); !strings.Contains(q, "Run 2 garbage jobs (in 1 queue) now?") {
			t.Errorf("the confirmation page asks %q", q)
		}
		if n := dashtest.Counts(t, s.st, "default").Garbage; n != 2 {
			t.Fatalf("before the answer garbage holds %d, want 2", n)
		}
		clickAndLoad(t, tab, "#ask-confirm")
		if n := dashtest.Counts(t, s.st, "default").Garbage; n != 0 {
			t.Errorf("after the confirmed requeue garbage holds %d, want 0", n)
		}
	})

	t.Run("Retries", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := newTab(t, browser, nil)
		nav(t, tab, s, "/retries", "table.failures")
		screenshot(t, tab, shots, "71-retries")
		// The page lists several queues' retries; a search by the start
		// of an ID finds the fixture's one among them.
		if got := textOf(t, tab, "table.failures tbody"); !strings.Contains(got, "mailers") || !strings.Contains(got, "reports") {
			t.Errorf("the Retries page lists neither mailers nor reports: %.300q", got)
		}
		nav(t, tab, s, "/retries?id="+s.f.Retry[:len(s.f.Retry)-3], "table.failures")
		if got := textOf(t, tab, "table.failures tbody"); !strings.Contains(got, s.f.Retry) {
			t.Errorf("the Retries search by an ID's start lacks %s: %.300q", s.f.Retry, got)
		}
	})
}
