package browsertest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestScheduleSpecWhole stores a schedule with a time zone and checks its
// spec is shown whole on the schedules page, in the table and in the
// field that changes it, at a desktop's and a phone's width.
func TestScheduleSpecWhole(t *testing.T) {
	browser := startBrowser(t)
	s := newSite(t, nil)
	const spec = "CRON_TZ=Europe/Amsterdam 0 9 * * 1-5"
	if err := hopper.NewInspector(s.st).SetSchedule(context.Background(), hopper.Schedule{
		Name: "morning-report", Spec: spec, Args: dashtest.ReportArgs{Month: "now"}}); err != nil {
		t.Fatal(err)
	}
	for _, width := range []int64{1400, 360} {
		tab := newTab(t, browser, nil)
		if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 900)); err != nil {
			t.Fatal(err)
		}
		nav(t, tab, s, "/schedules", "#stored-schedules")
		got := textOfJS(t, tab, `(function () {
			var f = document.querySelector('#stored-schedules input[name="spec"]');
			return [f.value, f.scrollWidth <= f.clientWidth].join('|');
		})()`)
		if want := spec + "|true"; got != want {
			t.Errorf("at %d px the spec field: value | shown whole = %q, want %q", width, got, want)
		}
		if w := textOfJS(t, tab, "String(document.documentElement.scrollWidth)"); w != fmt.Sprint(width) {
			t.Errorf("at %d px the schedules page is %s px wide", width, w)
		}
	}
}
