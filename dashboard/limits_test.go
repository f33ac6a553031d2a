package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

func TestQueueLimits(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		ctx := context.Background()

		wantContains(t, get(t, h, "/queues/default/ready").Body, "limits of a queue without any",
			"no cap on running jobs", "no rate limit", "acked jobs deleted", `action="/queues/default/limits"`)

		if err := ins.Pause(ctx, "default"); err != nil {
			t.Fatal(err)
		}
		r := post(t, h, "/queues/default/limits", url.Values{"max_running": {"3"}, "rate_limit": {"50"},
			"rate_period": {"1s"}, "retention": {"24h"}, "return": {"retry"}})
		wantRedirect(t, r, "/queues/default/retry?flash=limits&n=1", "save limits")
		st, err := ins.QueueStats(ctx, "default")
		if err != nil {
			t.Fatal(err)
		}
		want := hopper.QueueConfig{Paused: true, MaxRunning: 3, RateLimit: 50, RatePeriod: time.Second, Retention: 24 * time.Hour}
		if st.Config != want {
			t.Errorf("config after saving the limits: %+v, want %+v (the pause kept)", st.Config, want)
		}
		body := get(t, h, "/queues/default/retry").Body
		wantContains(t, body, "limits shown", "at most <b>3</b> running", "<b>50</b> claims per 1s", "acked jobs kept 24h", `value="3"`)

		// Empty fields mean none.
		r = post(t, h, "/queues/default/limits", url.Values{"max_running": {""}, "rate_limit": {""}, "retention": {""}})
		wantRedirect(t, r, "/queues/default/ready?flash=limits", "clear limits")
		if st, _ := ins.QueueStats(ctx, "default"); st.Config != (hopper.QueueConfig{Paused: true, RatePeriod: time.Second}) {
			t.Errorf("config after clearing the limits: %+v, want only the pause", st.Config)
		}

		for _, form := range []url.Values{{"max_running": {"-1"}}, {"max_running": {"lots"}}, {"rate_limit": {"5"}, "rate_period": {"fast"}},
			{"retention": {"-1h"}}} {
			wantStatus(t, post(t, h, "/queues/default/limits", form), http.StatusBadRequest, "limits "+form.Encode())
		}
		wantStatus(t, post(t, h, "/queues/bad%20name/limits", nil), http.StatusNotFound, "limits of a bad queue name")
		wantLacks(t, get(t, newHandler(s, &dashboard.Options{ReadOnly: true}), "/queues/default/ready").Body, "read-only page", "save-limits")
	})
}

func TestGroupsPanel(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		c := hopper.NewClient(s, nil)
		for _, g := range []string{"tenant-b", "tenant-a", "tenant-a"} {
			if _, err := hopper.Enqueue(ctx, c, dashtest.EmailArgs{To: g}, &hopper.EnqueueOpts{Group: g}); err != nil {
				t.Fatal(err)
			}
		}
		page := get(t, h, "/queues/default/ready")
		wantContains(t, page.Body, "jobs page of a queue with groups", `id="groups"`, `data-group-row="tenant-a"`, `data-group-row="tenant-b"`, "2 groups", `action="/queues/default/groups"`)

		// The queue's cap per group, from the limits form.
		r := post(t, h, "/queues/default/limits", url.Values{"group_max_running": {"1"}, "group_rate_limit": {"10"}, "group_rate_period": {"1m"}})
		wantRedirect(t, r, "/queues/default/ready?flash=limits", "save a cap per group")
		if st, _ := ins.QueueStats(ctx, "default"); st.Config.GroupMaxRunning != 1 || st.Config.GroupRateLimit != 10 || st.Config.GroupRatePeriod != time.Minute {
			t.Errorf("config after the form: %+v, want 1 running and 10 per minute per group", st.Config)
		}
		wantContains(t, get(t, h, "/queues/default/ready").Body, "limits summary", "running per group", "claims per 1m per group")

		// One group's own cap.
		r = post(t, h, "/queues/default/groups", url.Values{"group": {"tenant-a"}, "limit": {"4"}})
		wantRedirect(t, r, "/queues/default/ready?flash=grouplimit", "set a group's cap")
		gs, err := ins.Groups(ctx, "default", 0)
		if err != nil || len(gs) != 2 || gs[0] != (hopper.GroupStats{Group: "tenant-a", Ready: 2, Limit: 4, Own: true}) {
			t.Fatalf("Groups after the form: %+v, %v; want tenant-a with its own cap of 4 and 2 ready", gs, err)
		}
		wantContains(t, get(t, h, "/queues/default/ready").Body, "groups table", ">own<")
		for _, form := range []url.Values{{"group": {""}, "limit": {"1"}}, {"group": {"a b"}, "limit": {"1"}}, {"group": {"x"}, "limit": {"-1"}}, {"group": {"x"}, "limit": {"lots"}}} {
			wantStatus(t, post(t, h, "/queues/default/groups", form), http.StatusBadRequest, "group cap form "+form.Encode())
		}
		wantContains(t, get(t, h, "/queues/default/ready").Body, "job rows", `title="Group:`)
	})
}
