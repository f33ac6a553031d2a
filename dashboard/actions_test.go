package dashboard_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// wantRedirect fails t unless r is a 303 to a location starting with want.
func wantRedirect(t *testing.T, r response, want, what string) {
	t.Helper()
	wantStatus(t, r, http.StatusSeeOther, what)
	if loc := r.Header.Get("Location"); !strings.HasPrefix(loc, want) {
		t.Errorf("%s: redirects to %q, want %q...", what, loc, want)
	}
}

func TestRetrySelected(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		form := url.Values{"id": {f.Garbage[0], "not-a-job"}, "back": {"args=bob&order=oldest&page=1&evil=x"}}
		r := post(t, h, "/queues/default/garbage/retry", form)
		wantRedirect(t, r, "/queues/default/garbage?args=bob&order=oldest&flash=requeued&n=1", "retry selected")
		if st := dashtest.JobState(t, s, "default", f.Garbage[0]); st != hopper.StateReady {
			t.Errorf("requeued job is in %q, want ready", st)
		}
		if st := dashtest.JobState(t, s, "default", f.Garbage[1]); st != hopper.StateGarbage {
			t.Errorf("unselected job is in %q, want garbage", st)
		}
		// The flash is shown on the page the browser lands on.
		page := get(t, h, r.Header.Get("Location"))
		wantContains(t, page.Body, "after retry", "Requeued 1 job: it is ready to run now.")
	})
}

func TestDeleteSelected(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := postAsked(t, h, "/queues/default/ready/delete", url.Values{"id": {f.Ready[0], f.Ready[1]}}, "Delete the 2 selected jobs in ready of queue default?")
		wantRedirect(t, r, "/queues/default/ready?order=oldest&flash=deleted&n=2", "delete selected")
		for _, id := range f.Ready[:2] {
			if st := dashtest.JobState(t, s, "default", id); st != "" {
				t.Errorf("deleted job %s is in %q", id, st)
			}
		}
		if st := dashtest.JobState(t, s, "default", f.Traced); st != hopper.StateReady {
			t.Errorf("unselected job is in %q, want ready", st)
		}
	})
}

func TestNothingSelected(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := post(t, h, "/queues/default/garbage/delete", nil)
		wantRedirect(t, r, "/queues/default/garbage?order=newest&flash=noselection", "delete nothing")
		if n := dashtest.Counts(t, s, "default").Garbage; n != 2 {
			t.Errorf("garbage holds %d jobs after deleting nothing, want 2", n)
		}
		wantContains(t, get(t, h, r.Header.Get("Location")).Body, "after deleting nothing", "Select at least one job first.")
	})
}

func TestActionsOnAllNeedConfirmation(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)

		// Without confirm, "all" leads to the confirmation page and changes nothing.
		r := post(t, h, "/queues/default/garbage/retry", url.Values{"all": {"1"}})
		wantRedirect(t, r, "/queues/default/garbage/confirm?action=retry", "retry all unconfirmed")
		if n := dashtest.Counts(t, s, "default").Garbage; n != 2 {
			t.Fatalf("garbage holds %d jobs after an unconfirmed retry all, want 2", n)
		}
		page := get(t, h, r.Header.Get("Location"))
		wantStatus(t, page, http.StatusOK, "confirmation page")
		wantContains(t, page.Body, "confirmation page", "Requeue all 2 garbage jobs in default?",
			`action="/queues/default/garbage/retry"`, `name="all" value="1"`, `name="confirm" value="1"`)

		// One job is one job: "all 1 retry jobs" was the old wording.
		one := get(t, h, "/queues/default/retry/confirm?action=retry").Body
		wantContains(t, one, "confirmation for one job", "the 1 retry job in default?")
		wantLacks(t, one, "confirmation for one job", "all 1 ")

		// Confirmed: every garbage job moves.
		r = post(t, h, "/queues/default/garbage/retry", url.Values{"all": {"1"}, "confirm": {"1"}})
		wantRedirect(t, r, "/queues/default/garbage?order=newest&flash=requeued&n=2", "retry all confirmed")
		c := dashtest.Counts(t, s, "default")
		if c.Garbage != 0 || c.Ready != 5 {
			t.Errorf("after retry all: garbage %d, ready %d; want 0 and 5", c.Garbage, c.Ready)
		}

		r = post(t, h, "/queues/default/ready/delete", url.Values{"all": {"1"}, "confirm": {"1"}})
		wantRedirect(t, r, "/queues/default/ready?order=oldest&flash=deleted&n=5", "delete all confirmed")
		if n := dashtest.Counts(t, s, "default").Ready; n != 0 {
			t.Errorf("ready holds %d jobs after delete all", n)
		}
	})
}

func TestBulkActionNotAllowedInState(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		wantStatus(t, post(t, h, "/queues/default/ready/retry", url.Values{"id": {f.Ready[0]}}), http.StatusBadRequest, "retry from ready")
		wantStatus(t, post(t, h, "/queues/default/unack/delete", url.Values{"id": {f.Unack}}), http.StatusBadRequest, "delete from unack")
		wantStatus(t, post(t, h, "/queues/default/nostate/delete", url.Values{"id": {f.Unack}}), http.StatusNotFound, "delete from no state")
		wantStatus(t, get(t, h, "/queues/default/unack/confirm?action=delete"), http.StatusBadRequest, "confirm delete from unack")
		if st := dashtest.JobState(t, s, "default", f.Unack); st != hopper.StateUnack {
			t.Errorf("running job is in %q", st)
		}
		ids := make([]string, 1001)
		for i := range ids {
			ids[i] = "id" + string(rune('a'+i%26)) + strings.Repeat("x", i%7) + url.QueryEscape(string(rune(i)))
		}
		wantStatus(t, post(t, h, "/queues/default/garbage/delete", url.Values{"id": ids}), http.StatusRequestEntityTooLarge, "too many ids")
	})
}

func TestJobActions(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)

		r := post(t, h, "/jobs/default/"+f.Retry+"/retry", nil)
		wantRedirect(t, r, "/jobs/default/"+f.Retry+"?flash=requeued&n=1", "retry now")
		if st := dashtest.JobState(t, s, "default", f.Retry); st != hopper.StateReady {
			t.Errorf("retried job is in %q, want ready", st)
		}
		r = post(t, h, "/jobs/default/"+f.Done+"/retry", nil)
		wantRedirect(t, r, "/jobs/default/"+f.Done, "run a done job again")
		if st := dashtest.JobState(t, s, "default", f.Done); st != hopper.StateReady {
			t.Errorf("done job run again is in %q, want ready", st)
		}

		r = postAsked(t, h, "/jobs/default/"+f.Garbage[1]+"/delete", nil, "Delete job "+f.Garbage[1]+" (send_email, garbage) of queue default?")
		wantRedirect(t, r, "/queues/default/garbage?flash=deleted&n=1", "delete")
		if st := dashtest.JobState(t, s, "default", f.Garbage[1]); st != "" {
			t.Errorf("deleted job is in %q", st)
		}

		r = postAsked(t, h, "/jobs/default/"+f.Pending+"/cancel", nil, "Cancel job "+f.Pending+" (send_email, pending) of queue default?")
		wantRedirect(t, r, "/jobs/default/"+f.Pending+"?flash=cancelled", "cancel waiting")
		j, err := hopper.NewInspector(s).GetJob(context.Background(), "default", f.Pending)
		if err != nil || j.State != hopper.StateGarbage || !j.Cancelled {
			t.Errorf("cancelled waiting job: %+v, %v; want garbage, cancelled", j, err)
		}

		r = postAsked(t, h, "/jobs/default/"+f.Unack+"/cancel", nil, "Cancel job "+f.Unack+" (build_report, unack) of queue default?")
		wantRedirect(t, r, "/jobs/default/"+f.Unack, "cancel running")
		if j, err := hopper.NewInspector(s).GetJob(context.Background(), "default", f.Unack); err != nil || j.State != hopper.StateUnack || !j.Cancelled {
			t.Errorf("cancelled running job: %+v, %v; want unack flagged cancelled", j, err)
		}

		wantStatus(t, post(t, h, "/jobs/default/"+f.Unack+"/delete", nil), http.StatusConflict, "delete running")
		wantStatus(t, post(t, h, "/jobs/default/"+f.Traced+"/retry", nil), http.StatusConflict, "retry ready")
		wantStatus(t, post(t, h, "/jobs/default/nope/retry", nil), http.StatusNotFound, "retry unknown")
		wantStatus(t, post(t, h, "/jobs/bad%20queue/x/cancel", nil), http.StatusNotFound, "cancel in a bad queue")
	})
}

// Cancel selected: waiting jobs go to garbage cancelled, running ones are
// flagged; gone jobs are skipped; "all" is not offered.
func TestCancelSelected(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		ctx := context.Background()

		r := postAsked(t, h, "/queues/default/ready/cancel", url.Values{"id": {f.Ready[1], f.Ready[2], "gone"}}, "Cancel the 3 selected jobs in ready of queue default?")
		wantRedirect(t, r, "/queues/default/ready?order=oldest&flash=cancelled&n=2", "cancel selected")
		for _, id := range []string{f.Ready[1], f.Ready[2]} {
			if j, err := ins.GetJob(ctx, "default", id); err != nil || j.State != hopper.StateGarbage || !j.Cancelled {
				t.Errorf("cancelled job %s: %+v, %v; want garbage, cancelled", id, j, err)
			}
		}
		wantContains(t, get(t, h, r.Header.Get("Location")).Body, "flash", "Cancelled 2 jobs")
		if j, _ := ins.GetJob(ctx, "default", f.Ready[0]); j.State != hopper.StateReady || j.Cancelled {
			t.Errorf("a job not selected was changed: %+v", j)
		}

		r = postAsked(t, h, "/queues/default/unack/cancel", url.Values{"id": {f.Unack}}, "Cancel the 1 selected job in unack of queue default?")
		wantRedirect(t, r, "/queues/default/unack?order=oldest&flash=cancelled&n=1", "cancel a running job")
		if j, err := ins.GetJob(ctx, "default", f.Unack); err != nil || j.State != hopper.StateUnack || !j.Cancelled {
			t.Errorf("running job after cancel: %+v, %v; want unack, flagged", j, err)
		}

		wantStatus(t, post(t, h, "/queues/default/ready/cancel", url.Values{"all": {"1"}, "confirm": {"1"}}), http.StatusBadRequest, "cancel all")
		wantStatus(t, post(t, h, "/queues/default/done/cancel", url.Values{"id": {f.Done}}), http.StatusBadRequest, "cancel in done")
		r = post(t, h, "/queues/default/ready/cancel", nil)
		wantRedirect(t, r, "/queues/default/ready?order=oldest&flash=noselection", "cancel nothing")
	})
}

func TestPauseResume(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		ctx := context.Background()
		limits := hopper.QueueConfig{MaxRunning: 7, RateLimit: 100, RatePeriod: 60_000_000_000}
		if err := hopper.NewInspector(s).SetQueueConfig(ctx, "default", limits); err != nil {
			t.Fatal(err)
		}
		h := newHandler(s, nil)

		r := post(t, h, "/queues/default/pause", nil)
		wantRedirect(t, r, "/?flash=paused", "pause from the overview")
		st, err := hopper.NewInspector(s).GetQueueStats(ctx, "default")
		if err != nil {
			t.Fatal(err)
		}
		want := limits
		want.Paused = true
		if st.Config != want {
			t.Errorf("after pause: config %+v, want %+v (limits kept)", st.Config, want)
		}
		if res, err := s.Claim(ctx, store.ClaimOpts{Queue: "default", Max: 1, Lease: 60_000_000_000}); err != nil || len(res.Jobs) != 0 {
			t.Errorf("claim from a paused queue: %v, %v", res.Jobs, err)
		}

		r = post(t, h, "/queues/default/resume", url.Values{"return": {"garbage"}})
		wantRedirect(t, r, "/queues/default/garbage?flash=resumed", "resume from a jobs page")
		if st, _ := hopper.NewInspector(s).GetQueueStats(ctx, "default"); st.Config != limits {
			t.Errorf("after resume: config %+v, want %+v", st.Config, limits)
		}
		wantStatus(t, post(t, h, "/queues/bad%20name/pause", nil), http.StatusNotFound, "pause a bad queue name")
	})
}

func TestActionsAreAudited(t *testing.T) {
	s := newMem()
	f := dashtest.Seed(t, s)
	var buf bytes.Buffer
	h := dashboard.New(s, &dashboard.Config{Logger: slog.New(slog.NewTextHandler(&buf, nil)), BasicAuth: &dashboard.BasicAuth{User: "ops", Password: "pw"}})
	req := func(path string) {
		r := doAuth(t, h, http.MethodPost, path, url.Values{"id": {f.Garbage[0]}}, "ops", "pw")
		wantStatus(t, r, http.StatusSeeOther, path)
	}
	req("/queues/default/garbage/retry")
	log := buf.String()
	for _, want := range []string{`msg="dashboard: action"`, "action=/queues/default/garbage/retry", "affected=1", "user=ops", "queue=default", "state=garbage"} {
		if !strings.Contains(log, want) {
			t.Errorf("audit log lacks %q:\n%s", want, log)
		}
	}
}

// TestActionsNeedPOST checks that no action runs on GET.
func TestActionsNeedPOST(t *testing.T) {
	s := newMem()
	f := dashtest.Seed(t, s)
	h := newHandler(s, nil)
	for _, p := range actionPaths(f) {
		r := get(t, h, p)
		if r.Code != http.StatusMethodNotAllowed {
			t.Errorf("GET %s: status %d, want 405", p, r.Code)
		}
	}
	if c := dashtest.Counts(t, s, "default"); c.Garbage != 2 || c.Ready != 3 {
		t.Errorf("GETs changed the store: %+v", c)
	}
}

// actionPaths lists every action route of the dashtest.Fixture.
func actionPaths(f *dashtest.Fixture) []string {
	return []string{
		"/queues/default/garbage/retry", "/queues/default/garbage/delete",
		"/queues/default/pause", "/queues/default/resume",
		"/jobs/default/" + f.Garbage[0] + "/retry", "/jobs/default/" + f.Garbage[0] + "/delete",
		"/jobs/default/" + f.Ready[0] + "/cancel", "/jobs/default/" + f.Pending + "/reschedule",
		"/queues/default/limits", "/queues/default/ready/cancel",
	}
}
