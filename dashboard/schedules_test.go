package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

func TestStoredSchedulesPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		if err := ins.SetSchedule(ctx, hopper.Schedule{Name: "digest", Spec: hopper.Every(time.Hour), Args: dashtest.EmailArgs{To: "all"}}); err != nil {
			t.Fatal(err)
		}
		page := get(t, h, "/schedules")
		wantContains(t, page.Body, "schedules page", `id="stored-schedules"`, `data-stored="default/digest"`, "@every 1h0m0s",
			`action="/schedules/default/digest/pause"`, `action="/schedules/default/digest/delete"`, "data-confirm")

		r := post(t, h, "/schedules/default/digest/pause", nil)
		wantRedirect(t, r, "/schedules?flash=schedule-pause", "pause")
		wantContains(t, get(t, h, "/schedules").Body, "after pause", ">paused<", `action="/schedules/default/digest/resume"`)
		r = post(t, h, "/schedules/default/digest/spec", url.Values{"spec": {"0 3 * * *"}})
		wantRedirect(t, r, "/schedules?flash=schedule-spec", "respec")
		list, err := ins.ListSchedules(ctx)
		if err != nil || len(list) != 1 || list[0].Spec != "0 3 * * *" || !list[0].Paused {
			t.Fatalf("stored schedules after pause and respec: %+v, %v", list, err)
		}
		// A spec the store refuses: the page again, the message by the
		// form, what was typed still there (it was an error page that
		// lost it).
		bad := post(t, h, "/schedules/default/digest/spec", url.Values{"spec": {"now and then"}})
		wantStatus(t, bad, http.StatusUnprocessableEntity, "bad spec")
		wantContains(t, bad.Body, "bad spec's page", `id="stored-schedules"`, `value="now and then"`, `aria-invalid="true"`,
			`id="spec-error" role="alert"`)
		if list, err := ins.ListSchedules(ctx); err != nil || list[0].Spec != "0 3 * * *" {
			t.Fatalf("stored schedules after a bad spec: %+v, %v", list, err)
		}
		wantStatus(t, post(t, h, "/schedules/default/digest/explode", nil), http.StatusNotFound, "unknown action")
		wantStatus(t, post(t, h, "/schedules/default/nope/pause", nil), http.StatusNotFound, "unknown schedule")
		r = postAsked(t, h, "/schedules/default/digest/delete", nil, "Delete the stored schedule digest of queue default?")
		wantRedirect(t, r, "/schedules?flash=schedule-delete", "delete")
		wantContains(t, get(t, h, "/schedules").Body, "after delete", "No schedule is stored")
	})
}
