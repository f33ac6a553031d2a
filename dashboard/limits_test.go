package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

func TestQueueLimits(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		ctx := context.Background()

		wantContains(t, get(t, h, "/queues/default/ready").Body, "limits of a queue without any",
			"no cap on running jobs", "no rate limit", "acked jobs deleted", `action="/queues/default/limits"`)

		if err := ins.PauseQueue(ctx, "default"); err != nil {
			t.Fatal(err)
		}
		r := post(t, h, "/queues/default/limits", url.Values{"max_running": {"3"}, "rate_limit": {"50"},
			"rate_period": {"1s"}, "retention": {"24h"}, "return": {"retry"}})
		wantRedirect(t, r, "/queues/default/retry?flash=limits&n=1", "save limits")
		st, err := ins.GetQueueStats(ctx, "default")
		if err != nil {
			t.Fatal(err)
		}
		want := hopper.QueueConfig{Paused: true, MaxRunning: 3, RateLimit: 50, RatePeriod: time.Second, Retention: 24 * time.Hour}
		if st.Config != want {
			t.Errorf("config after saving the limits: %+v, want %+v (the pause kept)", st.Config, want)
		}
		body := get(t, h, "/queues/default/retry").Body
		wantContains(t, body, "limits shown", "at most <b>3</b> running", "<b>50</b> starts per 1s", "acked jobs kept 24h", `value="3"`)

		// Empty fields mean none.
		r = post(t, h, "/queues/default/limits", url.Values{"max_running": {""}, "rate_limit": {""}, "retention": {""}})
		wantRedirect(t, r, "/queues/default/ready?flash=limits", "clear limits")
		if st, _ := ins.GetQueueStats(ctx, "default"); st.Config != (hopper.QueueConfig{Paused: true, RatePeriod: time.Second}) {
			t.Errorf("config after clearing the limits: %+v, want only the pause", st.Config)
		}

		// The smooth mode and its burst; a burst without it is refused.
		r = post(t, h, "/queues/default/limits", url.Values{"rate_limit": {"100"}, "rate_smooth": {"1"}, "rate_burst": {"5"}})
		wantRedirect(t, r, "/queues/default/ready?flash=limits", "save a smooth rate")
		if st, _ := ins.GetQueueStats(ctx, "default"); !st.Config.RateSmooth || st.Config.RateBurst != 5 || st.Config.RateLimit != 100 {
			t.Errorf("config after saving a smooth rate: %+v, want 100 per second, smooth, burst 5", st.Config)
		}
		wantContains(t, get(t, h, "/queues/default/ready").Body, "smooth rate shown", "paced evenly (bursts of 5)", `name="rate_smooth" value="1" checked`)
		r = post(t, h, "/queues/default/limits", url.Values{"rate_limit": {""}, "rate_smooth": {"1"}, "rate_burst": {"5"}})
		wantRedirect(t, r, "/queues/default/ready?flash=limits", "clear a smooth rate")
		if st, _ := ins.GetQueueStats(ctx, "default"); st.Config.RateSmooth || st.Config.RateBurst != 0 {
			t.Errorf("config after clearing the rate limit: %+v, want its smooth mode and burst gone with it", st.Config)
		}

		for _, form := range []url.Values{{"max_running": {"-1"}}, {"max_running": {"lots"}}, {"rate_limit": {"5"}, "rate_period": {"fast"}},
			{"retention": {"-1h"}}, {"rate_limit": {"5"}, "rate_burst": {"2"}}, {"rate_limit": {"5"}, "rate_burst": {"-2"}}} {
			wantStatus(t, post(t, h, "/queues/default/limits", form), http.StatusUnprocessableEntity, "limits "+form.Encode())
		}
		wantStatus(t, post(t, h, "/queues/bad%20name/limits", nil), http.StatusNotFound, "limits of a bad queue name")
		wantLacks(t, get(t, newHandler(s, &dashboard.Config{ReadOnly: true}), "/queues/default/ready").Body, "read-only page", "save-limits")
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
		if st, _ := ins.GetQueueStats(ctx, "default"); st.Config.GroupMaxRunning != 1 || st.Config.GroupRateLimit != 10 || st.Config.GroupRatePeriod != time.Minute {
			t.Errorf("config after the form: %+v, want 1 running and 10 per minute per group", st.Config)
		}
		wantContains(t, get(t, h, "/queues/default/ready").Body, "limits summary", "running per group", "starts per 1m per group")

		// One group's own cap.
		r = post(t, h, "/queues/default/groups", url.Values{"group": {"tenant-a"}, "limit": {"4"}})
		wantRedirect(t, r, "/queues/default/ready?flash=grouplimit", "set a group's cap")
		gs, err := ins.ListGroups(ctx, "default", 0)
		if err != nil || len(gs) != 2 || gs[0] != (hopper.GroupStats{Group: "tenant-a", Ready: 2, Limit: 4, Own: true}) {
			t.Fatalf("Groups after the form: %+v, %v; want tenant-a with its own cap of 4 and 2 ready", gs, err)
		}
		wantContains(t, get(t, h, "/queues/default/ready").Body, "groups table", ">own<")
		for _, form := range []url.Values{{"group": {""}, "limit": {"1"}}, {"group": {"a b"}, "limit": {"1"}}, {"group": {"x"}, "limit": {"-1"}}, {"group": {"x"}, "limit": {"lots"}}} {
			wantStatus(t, post(t, h, "/queues/default/groups", form), http.StatusUnprocessableEntity, "group cap form "+form.Encode())
		}
		wantContains(t, get(t, h, "/queues/default/ready").Body, "job rows", `title="Group:`)

		// A handler's RateLimited holds its group: the table says until when.
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "default", Max: 3, Lease: time.Minute})
		if err != nil || len(res.Jobs) == 0 {
			t.Fatalf("Claim: %d jobs, %v", len(res.Jobs), err)
		}
		var end store.AttemptEnd
		for _, j := range res.Jobs {
			if j.Group == "tenant-b" {
				end = store.AttemptEnd{Queue: "default", ID: j.ID, Token: j.Token, Outcome: store.OutcomeSnooze, Delay: time.Hour, Hold: time.Hour, Kind: j.Kind, Attempt: j.Attempt}
			}
		}
		if end.ID == "" {
			t.Fatalf("Claim of 3 took no job of tenant-b: %+v", res.Jobs)
		}
		if errs, err := s.Finish(ctx, []store.AttemptEnd{end}); err != nil || errs[0] != nil {
			t.Fatalf("Finish: %v, %v", errs, err)
		}
		body := get(t, h, "/queues/default/ready").Body
		row := body[strings.Index(body, `data-group-row="tenant-b"`):]
		row = row[:strings.Index(row, "</tr>")]
		wantContains(t, row, "tenant-b's row", ">held<", "until")
	})
}

// Ticking "Index kinds" turns the queue's kind index on: a search by kind
// then walks that kind's jobs only, says so, and goes on through the index;
// when the index is turned off under a search, the search starts again.
func TestKindIndexSearch(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		var jobs []*store.NewJob
		for i := range 300 {
			kind := "bulk"
			if i%100 == 50 {
				kind = "rare"
			}
			jobs = append(jobs, &store.NewJob{ID: fmt.Sprintf("job-%03d", i), Queue: "idx", Kind: kind, Args: []byte{0x80}})
		}
		if _, err := s.Enqueue(ctx, jobs); err != nil {
			t.Fatal(err)
		}
		h := newHandler(s, &dashboard.Config{PageSize: 2})
		wantRedirect(t, post(t, h, "/queues/idx/limits", url.Values{"kind_index": {"1"}}), "/queues/idx/ready?flash=limits", "index kinds")
		if st, err := hopper.NewInspector(s).GetQueueStats(ctx, "idx"); err != nil || !st.Config.KindIndex {
			t.Fatalf("config after ticking Index kinds: %+v, %v", st.Config, err)
		}
		wantContains(t, get(t, h, "/queues/idx/ready").Body, "limits", "kinds indexed", `name="kind_index" value="1" checked`)

		body := get(t, h, "/queues/idx/ready?kind=rare&order=oldest").Body
		wantContains(t, body, "search through the index", "of the <strong>3</strong> jobs of kind rare", "(kind index)",
			"job-050", "job-150", "from=2&amp;walk=kind")
		wantLacks(t, body, "second page's job", "job-250")
		body = get(t, h, "/queues/idx/ready?kind=rare&order=oldest&from=2&walk=kind").Body
		wantContains(t, body, "second page", "job-250", "searched to the end")
		wantContains(t, get(t, h, "/api/queues/idx/ready?kind=rare&order=oldest").Body, "JSON search", `"by_kind":true`, `"next":2`)

		// Unticked, the index is gone: the search goes on from the start.
		wantRedirect(t, post(t, h, "/queues/idx/limits", url.Values{}), "/queues/idx/ready?flash=limits", "untick")
		body = get(t, h, "/queues/idx/ready?kind=rare&order=oldest&from=2&walk=kind").Body
		wantContains(t, body, "restarted search", "The kind index of idx is off now", "job-050", "among jobs <strong>1–")
		wantLacks(t, body, "restarted search", "(kind index)")
	})
}

// An operator who changes one field of the limits form changes that field
// alone: a setting another operator changed after the page was rendered
// stays as they set it.
func TestQueueLimitsChangeOnlyWhatChanged(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		ctx := context.Background()
		if err := ins.SetQueueConfig(ctx, "lim", hopper.QueueConfig{RateLimit: 50, Retention: time.Hour}); err != nil {
			t.Fatal(err)
		}
		body := get(t, h, "/queues/lim/ready").Body
		wantContains(t, body, "the values the form was rendered with", `name="shown" value="1"`,
			`name="shown_rate_limit" value="50"`, `name="shown_retention" value="1h"`, `name="shown_group_max_running" value=""`)

		// Another operator caps the groups meanwhile.
		if err := ins.UpdateQueueConfig(ctx, "lim", func(c *hopper.QueueConfig) error { c.GroupMaxRunning = 4; return nil }); err != nil {
			t.Fatal(err)
		}
		// The first operator sets Max running, sending the rest as shown.
		form := url.Values{"shown": {"1"}}
		for field, v := range map[string]string{"max_running": "", "rate_limit": "50", "rate_period": "1s", "retention": "1h",
			"group_max_running": "", "group_rate_limit": "", "group_rate_period": ""} {
			form.Set(field, v)
			form.Set("shown_"+field, v)
		}
		form.Set("max_running", "3")
		wantRedirect(t, post(t, h, "/queues/lim/limits", form), "/queues/lim/ready?flash=limits", "save one field")
		st, err := ins.GetQueueStats(ctx, "lim")
		if err != nil {
			t.Fatal(err)
		}
		want := hopper.QueueConfig{MaxRunning: 3, RateLimit: 50, RatePeriod: time.Second, Retention: time.Hour, GroupMaxRunning: 4}
		if st.Config != want {
			t.Errorf("config after changing Max running alone: %+v, want %+v (the other operator's GroupMaxRunning kept)", st.Config, want)
		}
	})
}

// TestQueueLimitsUntickSmooth: unticking "evenly" turns the smooth mode
// off; the page sends that it showed it ticked, so the change is seen.
func TestQueueLimitsUntickSmooth(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		ctx := context.Background()
		if err := ins.SetQueueConfig(ctx, "lim", hopper.QueueConfig{RateLimit: 50, RateSmooth: true, RateBurst: 2}); err != nil {
			t.Fatal(err)
		}
		body := get(t, h, "/queues/lim/ready").Body
		wantContains(t, body, "the smooth mode the form was rendered with", `name="shown_rate_smooth" value="1"`,
			`name="shown_rate_burst" value="2"`)
		form := url.Values{"shown": {"1"}}
		for field, v := range map[string]string{"max_running": "", "rate_limit": "50", "rate_period": "1s", "rate_burst": "2",
			"retention": "", "group_max_running": "", "group_rate_limit": "", "group_rate_period": "", "group_rate_burst": ""} {
			form.Set(field, v)
			form.Set("shown_"+field, v)
		}
		form.Set("shown_rate_smooth", "1") // shown ticked; rate_smooth absent: unticked
		form.Set("rate_burst", "")
		wantRedirect(t, post(t, h, "/queues/lim/limits", form), "/queues/lim/ready?flash=limits", "untick evenly")
		st, err := ins.GetQueueStats(ctx, "lim")
		if err != nil {
			t.Fatal(err)
		}
		want := hopper.QueueConfig{RateLimit: 50, RatePeriod: time.Second}
		if st.Config != want {
			t.Errorf("config after unticking evenly: %+v, want %+v", st.Config, want)
		}
	})
}
