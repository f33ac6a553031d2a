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

// A bad value in a form does not lose what was typed: the page the form is
// on comes back (422) with the message next to the form, the field at
// fault marked, and the typed values in the fields; nothing is changed.
func TestBadEditKeepsWhatWasTyped(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		ctx := context.Background()
		rep, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), dashtest.ReportArgs{Month: "2026-10"}, &hopper.EnqueueOpts{Delay: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		// A job in a group, so that the page shows the groups and their form.
		if _, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), dashtest.EmailArgs{To: "g"}, &hopper.EnqueueOpts{Group: "tenant-a"}); err != nil {
			t.Fatal(err)
		}
		job := "/jobs/default/" + f.Ready[2]
		for _, c := range []struct {
			name, target string
			form         url.Values
			page         string   // a mark of the page the form is on
			want         []string // the message, the marked field, the typed value
		}{
			{"reschedule in -5m", job + "/reschedule", url.Values{"in": {"-5m"}}, `id="reschedule-job"`, []string{
				`<p class="field-error" id="reschedule-error" role="alert">“-5m” is not a delay`,
				`name="in" placeholder="15m" size="8" autocomplete="off" value="-5m" aria-invalid="true"`}},
			{"reschedule at banana", job + "/reschedule", url.Values{"at": {"banana"}}, `id="reschedule-job"`, []string{
				`id="reschedule-error" role="alert">“banana” is not a time`,
				`name="at" step="1" value="banana" aria-invalid="true"`}},
			{"priority high", job + "/priority", url.Values{"priority": {"high"}}, `id="priority-job"`, []string{
				`id="priority-error" role="alert">“high” is not a priority`,
				`id="priority-select" aria-invalid="true"`}},
			{"args not JSON", "/jobs/default/" + rep.ID + "/args", url.Values{"args": {`{"month": "2026-1`}}, `id="args-job"`, []string{
				`id="args-error" role="alert">The args are not one JSON value`,
				`aria-invalid="true" aria-describedby="args-error args-help">` + esc(`{"month": "2026-1`) + `</textarea>`}},
			{"limits retention -1h", "/queues/default/limits", url.Values{"return": {"retry"}, "max_running": {"7"}, "retention": {"-1h"}}, `id="save-limits"`, []string{
				`<details class="limits" id="limits" open>`,
				`id="limits-error" role="alert">Retention must be a duration`,
				`name="retention" value="-1h" placeholder="none" size="6" autocomplete="off" aria-invalid="true"`,
				`name="max_running" min="0" value="7"`}},
			{"group cap lots", "/queues/default/groups", url.Values{"group": {"tenant-a"}, "limit": {"lots"}}, `id="save-group-limit"`, []string{
				`id="group-error" role="alert">The cap must be a whole number`,
				`value="tenant-a"`, `value="lots" aria-invalid="true"`}},
		} {
			before := dashtest.JobState(t, s, "default", f.Ready[2])
			r := post(t, h, c.target, c.form)
			wantStatus(t, r, http.StatusUnprocessableEntity, c.name)
			wantContains(t, r.Body, c.name, append([]string{c.page}, c.want...)...)
			if st := dashtest.JobState(t, s, "default", f.Ready[2]); st != before {
				t.Errorf("%s: the job moved from %q to %q", c.name, before, st)
			}
		}
		st, err := hopper.NewInspector(s).GetQueueStats(ctx, "default")
		if err != nil || st.Config.MaxRunning != 0 {
			t.Errorf("a refused limits form changed the config: %+v, %v", st.Config, err)
		}
	})
}
