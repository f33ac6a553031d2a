package browsertest_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// TestBrowserOpsNoScript shows the operator controls asking first with
// JavaScript off: stopping a worker and removing an orphaned schedule
// each answer with a confirmation page, act only once it is confirmed,
// and come back with the outcome.
func TestBrowserOpsNoScript(t *testing.T) {
	browser := startBrowser(t)

	t.Run("StopWorker", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		ctl, ok := store.As[store.WorkerControl](s.st)
		if !ok {
			t.Fatal("the site's store carries no worker commands")
		}
		tab := noScriptTab(t, browser)
		const stop = `form[action$="/workers/worker-1/stop"] button`
		nav(t, tab, s, "/workers", stop)
		clickAndLoad(t, tab, stop)
		if q := textOf(t, tab, "#ask-heading"); !strings.Contains(q, "Stop worker worker-1?") {
			t.Errorf("the confirmation page asks %q", q)
		}
		if got, _ := ctl.TakeWorkerCommand(context.Background(), "worker-1"); got != "" {
			t.Fatalf("the worker was sent %q before the stop was confirmed", got)
		}
		clickAndLoad(t, tab, "#ask-confirm")
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Asked the worker to stop") {
			t.Errorf("flash %q", got)
		}
		if got, _ := ctl.TakeWorkerCommand(context.Background(), "worker-1"); got != store.WorkerStop {
			t.Fatalf("the confirmed stop left %q for the worker", got)
		}
	})

	t.Run("RemoveOrphanedSchedule", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		old := time.Now().Add(-time.Hour)
		if err := s.st.RegisterSchedules(context.Background(), []store.ScheduleInfo{{Name: "ghost", Spec: "@every 1m", Queue: "default", Kind: "send_email", Next: old, SeenAt: old}}); err != nil {
			t.Fatal(err)
		}
		tab := noScriptTab(t, browser)
		const remove = `form[action$="/schedules/default/ghost/forget"] button`
		nav(t, tab, s, "/schedules", remove)
		clickAndLoad(t, tab, remove)
		if q := textOf(t, tab, "#ask-heading"); !strings.Contains(q, "Remove the registered schedule ghost") {
			t.Errorf("the confirmation page asks %q", q)
		}
		clickAndLoad(t, tab, "#ask-confirm")
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Removed the registered schedule") {
			t.Errorf("flash %q", got)
		}
		list, err := s.st.ListSchedules(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range list {
			if sc.Name == "ghost" {
				t.Fatal("the confirmed removal left the schedule registered")
			}
		}
	})
}
