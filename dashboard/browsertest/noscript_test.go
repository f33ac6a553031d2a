package browsertest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// noScriptTab opens a tab with JavaScript turned off.
func noScriptTab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	tab := newTab(t, browser, nil)
	if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestBrowserNoScript shows every destructive action asking first with
// JavaScript off: the click leads to a page that asks, with the count,
// the jobs are still there, and only that page's button acts.
func TestBrowserNoScript(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)

	// asks checks the confirmation page the tab is on: its question holds
	// want, and nothing was done yet (still() holds).
	asks := func(t *testing.T, tab context.Context, want string, still func() bool) {
		t.Helper()
		if q := textOf(t, tab, "#ask-heading"); !strings.Contains(q, want) {
			t.Errorf("the confirmation page asks %q, want %q", q, want)
		}
		if !still() {
			t.Fatal("the action acted before it was confirmed")
		}
	}

	t.Run("DeleteOneJob", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		id := s.f.Garbage[1]
		nav(t, tab, s, "/jobs/default/"+id, "#delete-job")
		clickAndLoad(t, tab, "#delete-job")
		asks(t, tab, "Delete job "+id, func() bool { return dashtest.JobState(t, s.st, "default", id) == hopper.StateGarbage })
		clickAndLoad(t, tab, "#ask-confirm")
		if st := dashtest.JobState(t, s.st, "default", id); st != "" {
			t.Errorf("the confirmed delete left the job in %q", st)
		}
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Deleted 1 job") {
			t.Errorf("flash %q", got)
		}
	})

	t.Run("CancelOneJob", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		id := s.f.Pending
		nav(t, tab, s, "/jobs/default/"+id, "#cancel-job")
		clickAndLoad(t, tab, "#cancel-job")
		asks(t, tab, "Cancel job "+id, func() bool { return dashtest.JobState(t, s.st, "default", id) == hopper.StatePending })
		// "Go back" returns to the job, untouched.
		clickAndLoad(t, tab, "#ask-back")
		if st := dashtest.JobState(t, s.st, "default", id); st != hopper.StatePending {
			t.Fatalf("going back left the job in %q", st)
		}
		clickAndLoad(t, tab, "#cancel-job")
		clickAndLoad(t, tab, "#ask-confirm")
		if st := dashtest.JobState(t, s.st, "default", id); st != hopper.StateGarbage {
			t.Errorf("the confirmed cancel left the job in %q, want garbage", st)
		}
	})

	t.Run("DeleteSelected", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		nav(t, tab, s, "/queues/default/ready", "table.jobs")
		click(t, tab, `input[name=id][value="`+s.f.Ready[0]+`"]`)
		click(t, tab, `input[name=id][value="`+s.f.Ready[1]+`"]`)
		before := dashtest.Counts(t, s.st, "default").Ready
		clickAndLoad(t, tab, `button[formaction$="/delete"]`)
		asks(t, tab, "Delete the 2 selected jobs in ready of queue default?", func() bool {
			return dashtest.Counts(t, s.st, "default").Ready == before
		})
		screenshot(t, tab, shots, "60-ask-delete-selected-no-javascript")
		clickAndLoad(t, tab, "#ask-confirm")
		if n := dashtest.Counts(t, s.st, "default").Ready; n != before-2 {
			t.Errorf("after the confirmed delete ready holds %d, want %d", n, before-2)
		}
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Deleted 2 jobs") {
			t.Errorf("flash %q", got)
		}
	})

	t.Run("CancelSelected", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		nav(t, tab, s, "/queues/default/ready", "table.jobs")
		click(t, tab, `input[name=id][value="`+s.f.Ready[2]+`"]`)
		clickAndLoad(t, tab, `button[formaction$="/cancel"]`)
		asks(t, tab, "Cancel the 1 selected job in ready of queue default?", func() bool {
			return dashtest.JobState(t, s.st, "default", s.f.Ready[2]) == hopper.StateReady
		})
		clickAndLoad(t, tab, "#ask-confirm")
		if st := dashtest.JobState(t, s.st, "default", s.f.Ready[2]); st != hopper.StateGarbage {
			t.Errorf("the confirmed cancel left the job in %q, want garbage", st)
		}
	})

	t.Run("DeleteErrorGroup", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		nav(t, tab, s, "/queues/default/errors", "[data-error-group^='garbage/']")
		before := dashtest.Counts(t, s.st, "default").Garbage
		clickAndLoad(t, tab, "[data-error-group^='garbage/'] .btn-danger")
		asks(t, tab, "Delete the 2 garbage send_email jobs", func() bool {
			return dashtest.Counts(t, s.st, "default").Garbage == before
		})
		clickAndLoad(t, tab, "#ask-confirm")
		if n := dashtest.Counts(t, s.st, "default").Garbage; n != before-2 {
			t.Errorf("after the confirmed delete garbage holds %d, want %d", n, before-2)
		}
	})

	t.Run("DeleteAll", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		nav(t, tab, s, "/queues/default/garbage", "table.jobs")
		clickAndLoad(t, tab, `a[href$="/confirm?action=delete"]`)
		if q := textOf(t, tab, "h1"); !strings.Contains(q, "Delete all 2 garbage jobs in default?") {
			t.Errorf("delete all asks %q", q)
		}
		if n := dashtest.Counts(t, s.st, "default").Garbage; n != 2 {
			t.Fatalf("garbage holds %d before the confirmation", n)
		}
		clickAndLoad(t, tab, "#confirm-all")
		if n := dashtest.Counts(t, s.st, "default").Garbage; n != 0 {
			t.Errorf("after the confirmed delete all garbage holds %d", n)
		}
	})

	t.Run("BadEditKeepsWhatWasTyped", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		tab := noScriptTab(t, browser)
		id := s.f.Pending
		nav(t, tab, s, "/jobs/default/"+id, "#reschedule-job")
		if err := chromedp.Do(tab, chromedp.SendKeys(`input[name="in"]`, "-5m")); err != nil {
			t.Fatal(err)
		}
		clickAndLoad(t, tab, "#reschedule-job")
		if got := textOf(t, tab, "#reschedule-error"); !strings.Contains(got, "“-5m” is not a delay") {
			t.Errorf("the error next to the form reads %q", got)
		}
		screenshot(t, tab, shots, "61-bad-edit-kept")
		if v := textOfJS(t, tab, `document.querySelector('input[name="in"]').value`); v != "-5m" {
			t.Errorf("the delay field holds %q after the refused edit, want what was typed", v)
		}
		if st := dashtest.JobState(t, s.st, "default", id); st != hopper.StatePending {
			t.Errorf("the refused reschedule left the job in %q", st)
		}
	})
}
