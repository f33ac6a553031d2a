package dashboard_test

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
	"net/http"
)

// registeredRow returns the row of schedule name in the registered table
// of the schedules page (the first table), or "".
func registeredRow(body, name string) string {
	i := strings.Index(body, `id="stored-schedules"`)
	if i < 0 {
		i = len(body)
	}
	m := regexp.MustCompile(`(?s)<tr[^>]*>\s*<td><strong>` + regexp.QuoteMeta(name) + `</strong>.*?</tr>`).FindString(body[:i])
	return m
}

// After a stored schedule that a running scheduler registered is given a
// new spec, the registered table shows the new spec.
func TestScheduleRespecShowsInRegistered(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ins := hopper.NewInspector(s)
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: "digest", Spec: hopper.Every(time.Hour), Args: dashtest.EmailArgs{To: "all"}}); err != nil {
			t.Fatal(err)
		}
		sc := hopper.NewScheduler(s, &hopper.SchedulerConfig{StoredSchedulesPoll: 10 * time.Millisecond, Logger: testutil.Logger()})
		done := make(chan struct{})
		go func() { defer close(done); _ = sc.Run(ctx) }()
		defer func() { cancel(); <-done }()
		h := newHandler(s, nil)
		testutil.EventuallyTrue(t, testutil.Wait, "the scheduler to register the schedule", func() bool {
			return registeredRow(get(t, h, "/schedules").Body, "digest") != ""
		})
		wantRedirect(t, post(t, h, "/schedules/default/digest/spec", url.Values{"spec": {"0 3 * * *"}}), "/schedules?flash=schedule-spec", "respec")
		row := registeredRow(get(t, h, "/schedules").Body, "digest")
		if !strings.Contains(row, "0 3 * * *") || strings.Contains(row, "@every") {
			t.Fatalf("registered row after respec:\n%s", row)
		}
	})
}

// "Run now" enqueues the stored schedule's job once without moving its
// ticks and goes to the job; the run shows among the last runs, linked.
// An orphaned registered schedule can be removed, asking first. A long
// spec shows whole.
func TestScheduleRunNowRunsAndForget(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		ins := hopper.NewInspector(s)
		const spec = "CRON_TZ=Europe/Berlin 0 3 * * *"
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: "digest", Spec: spec, Args: dashtest.EmailArgs{To: "all"}}); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		if err := s.RegisterSchedules(ctx, []store.ScheduleInfo{{Name: "ghost", Spec: "@every 1m", Queue: "default", Kind: "send_email", Next: old, SeenAt: old}}); err != nil {
			t.Fatal(err)
		}
		h := newHandler(s, nil)
		page := get(t, h, "/schedules")
		wantContains(t, page.Body, "schedules page", `<td class="mono spec">`+esc(spec)+`</td>`, `size="`+strconv.Itoa(len(spec)+2)+`"`,
			`action="/schedules/default/digest/run"`, `action="/schedules/default/ghost/forget"`, "none recorded")

		r := post(t, h, "/schedules/default/digest/run", nil)
		wantStatus(t, r, http.StatusSeeOther, "run now")
		loc := r.Header.Get("Location")
		if !strings.HasPrefix(loc, "/jobs/default/") || !strings.Contains(loc, "flash=schedule-run") {
			t.Fatalf("run now went to %q, want the job's page", loc)
		}
		id := strings.TrimPrefix(loc[:strings.Index(loc, "?")], "/jobs/default/")
		if st := dashtest.JobState(t, s, "default", id); st != hopper.StateReady {
			t.Fatalf("the job run now is %q, want ready", st)
		}
		list, err := ins.ListSchedules(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range list {
			if sc.Name == "digest" && !sc.LastTick.IsZero() {
				t.Fatalf("run now moved the last tick to %v", sc.LastTick)
			}
		}
		page = get(t, h, "/schedules")
		wantContains(t, page.Body, "after run now", `href="/jobs/default/`+id+`"`, "by hand")

		r = postAsked(t, h, "/schedules/default/ghost/forget", nil, "Remove the registered schedule ghost of queue default?")
		wantRedirect(t, r, "/schedules?flash=schedule-forget", "forget")
		page = get(t, h, "/schedules")
		wantLacks(t, page.Body, "after forget", "<strong>ghost</strong>")
		wantStatus(t, post(t, h, "/schedules/default/ghost/forget?confirm=1", url.Values{"confirm": {"1"}}), http.StatusNotFound, "forget again")
		wantStatus(t, post(t, h, "/schedules/default/nope/run", nil), http.StatusNotFound, "run an unknown schedule")
	})
}
