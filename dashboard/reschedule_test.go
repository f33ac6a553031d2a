package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

func TestRescheduleJob(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		ctx := context.Background()

		page := get(t, h, "/jobs/default/"+f.Pending)
		wantContains(t, page.Body, "pending job page", `action="/jobs/default/`+f.Pending+`/reschedule"`)
		wantLacks(t, get(t, h, "/jobs/default/"+f.Unack).Body, "running job page", "/reschedule")
		wantLacks(t, get(t, h, "/jobs/default/"+f.Done).Body, "done job page", "/reschedule")

		// A pending job due later is due now.
		r := post(t, h, "/jobs/default/"+f.Pending+"/reschedule", url.Values{"in": {"0s"}})
		wantRedirect(t, r, "/jobs/default/"+f.Pending+"?flash=rescheduled&n=1", "due now")
		if st := dashtest.JobState(t, s, "default", f.Pending); st != hopper.StateReady {
			t.Errorf("job due now is in %q, want ready", st)
		}
		wantContains(t, get(t, h, r.Header.Get("Location")).Body, "flash", "Rescheduled the job")

		// A ready job goes back to pending until the time given, in UTC.
		at := time.Now().UTC().Add(48 * time.Hour).Truncate(time.Second)
		r = post(t, h, "/jobs/default/"+f.Ready[1]+"/reschedule", url.Values{"at": {at.Format("2006-01-02T15:04:05")}})
		wantRedirect(t, r, "/jobs/default/"+f.Ready[1]+"?flash=rescheduled", "run at")
		j, err := ins.GetJob(ctx, "default", f.Ready[1])
		if err != nil || j.State != hopper.StatePending || !j.RunAt.Equal(at) {
			t.Errorf("job rescheduled to %v: %+v, %v; want pending, due then", at, j, err)
		}

		// A delay counts from now.
		before := time.Now()
		r = post(t, h, "/jobs/default/"+f.Retry+"/reschedule", url.Values{"in": {"2h"}})
		wantRedirect(t, r, "/jobs/default/"+f.Retry+"?flash=rescheduled", "run in")
		j, err = ins.GetJob(ctx, "default", f.Retry)
		if err != nil || j.State != hopper.StateRetry || j.RunAt.Before(before.Add(2*time.Hour-time.Second)) || j.RunAt.After(time.Now().Add(2*time.Hour+time.Second)) {
			t.Errorf("job rescheduled in 2h: %+v, %v; want retry, due in 2h", j, err)
		}

		wantStatus(t, post(t, h, "/jobs/default/"+f.Unack+"/reschedule", url.Values{"in": {"0s"}}), http.StatusConflict, "reschedule a running job")
		wantStatus(t, post(t, h, "/jobs/default/"+f.Done+"/reschedule", url.Values{"in": {"0s"}}), http.StatusConflict, "reschedule a done job")
		wantStatus(t, post(t, h, "/jobs/default/nope/reschedule", url.Values{"in": {"0s"}}), http.StatusNotFound, "reschedule an unknown job")
		for _, form := range []url.Values{{}, {"at": {"tomorrow"}}, {"in": {"-5m"}}, {"in": {"soon"}}, {"at": {"99999-01-01T00:00"}}} {
			r := post(t, h, "/jobs/default/"+f.Ready[2]+"/reschedule", form)
			wantStatus(t, r, http.StatusUnprocessableEntity, "reschedule with "+form.Encode())
		}
		if st := dashtest.JobState(t, s, "default", f.Ready[2]); st != hopper.StateReady {
			t.Errorf("after refused reschedules the job is in %q, want ready", st)
		}
	})
}

func TestChangeJobPriority(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		ctx := context.Background()

		page := get(t, h, "/jobs/default/"+f.Ready[2])
		wantContains(t, page.Body, "ready job page", `action="/jobs/default/`+f.Ready[2]+`/priority"`)
		wantLacks(t, get(t, h, "/jobs/default/"+f.Unack).Body, "running job page", "/priority")

		// The last ready job, raised, is listed (and claimed) first.
		r := post(t, h, "/jobs/default/"+f.Ready[2]+"/priority", url.Values{"priority": {"2"}})
		wantRedirect(t, r, "/jobs/default/"+f.Ready[2]+"?flash=reprioritised&n=1", "raise a ready job")
		wantContains(t, get(t, h, r.Header.Get("Location")).Body, "job page after the change", "Changed the job", "priority +2")
		p, err := ins.ListJobs(ctx, hopper.ListJobsOpts{Queue: "default", State: hopper.StateReady, Limit: 1})
		if err != nil || len(p.Jobs) != 1 || p.Jobs[0].ID != f.Ready[2] || p.Jobs[0].Priority != 2 {
			t.Fatalf("first ready job after raising %q: %+v, %v; want it, at priority 2", f.Ready[2], p.Jobs, err)
		}
		wantContains(t, get(t, h, "/queues/default/ready").Body, "ready list", "priority +2")

		wantStatus(t, post(t, h, "/jobs/default/"+f.Unack+"/priority", url.Values{"priority": {"1"}}), http.StatusConflict, "reprioritise a running job")
		wantStatus(t, post(t, h, "/jobs/default/nope/priority", url.Values{"priority": {"1"}}), http.StatusNotFound, "reprioritise an unknown job")
		for _, v := range []string{"", "high", "4", "-4", "1.5"} {
			wantStatus(t, post(t, h, "/jobs/default/"+f.Ready[1]+"/priority", url.Values{"priority": {v}}), http.StatusUnprocessableEntity, "priority "+v)
		}
		if j, err := ins.GetJob(ctx, "default", f.Ready[1]); err != nil || j.Priority != 0 {
			t.Errorf("after refused changes: %+v, %v; want priority 0", j, err)
		}
	})
}

func TestEditJobArgs(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		c := hopper.NewClient(s, nil)
		rep, err := hopper.Enqueue(ctx, c, dashtest.ReportArgs{Month: "2026-10"}, &hopper.EnqueueOpts{Delay: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		secret, err := hopper.Enqueue(ctx, c, dashtest.EmailArgs{To: "a@example.com", Password: "hunter2"}, &hopper.EnqueueOpts{Delay: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		page := get(t, h, "/jobs/default/"+rep.ID)
		wantContains(t, page.Body, "report job page", `action="/jobs/default/`+rep.ID+`/args"`, "2026-10")
		// Args with a redacted field are not offered, nor taken.
		wantLacks(t, get(t, h, "/jobs/default/"+secret.ID).Body, "email job page", "/args\"")
		wantStatus(t, post(t, h, "/jobs/default/"+secret.ID+"/args", url.Values{"args": {`{"to":"x"}`}}), http.StatusBadRequest, "edit redacted args")

		r := post(t, h, "/jobs/default/"+rep.ID+"/args", url.Values{"args": {`{"month": "2026-11"}`}})
		wantRedirect(t, r, "/jobs/default/"+rep.ID+"?flash=args", "edit args")
		j, err := ins.GetJob(ctx, "default", rep.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got dashtest.ReportArgs
		if err := msgpack.Unmarshal(j.Args, &got); err != nil || got.Month != "2026-11" || j.Kind != (dashtest.ReportArgs{}).Kind() {
			t.Fatalf("args after the edit: %+v (%v), kind %q; want month 2026-11 under the same kind", got, err, j.Kind)
		}
		for _, bad := range []string{"", "{", `{"a":1} {"b":2}`, strings.Repeat("[", 200) + strings.Repeat("]", 200)} {
			wantStatus(t, post(t, h, "/jobs/default/"+rep.ID+"/args", url.Values{"args": {bad}}), http.StatusUnprocessableEntity, "args "+bad[:min(len(bad), 20)])
		}
		wantStatus(t, post(t, h, "/jobs/default/nope/args", url.Values{"args": {"{}"}}), http.StatusNotFound, "unknown job")
	})
}
