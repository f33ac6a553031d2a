package dashboard_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// failJobs enqueues n jobs of kind in queue q and fails each once with
// msg(i), to garbage (MaxRetries none) or to retry.
func failJobs(t *testing.T, s hopper.Store, q, kind string, n int, toRetry bool, msg func(i int) string) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for i := range n {
		id := fmt.Sprintf("%s-%s-%d", kind, strings.ReplaceAll(msg(0), " ", "")[:4], i)
		if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: id, Queue: q, Kind: kind, Args: []byte{0x80}}}); err != nil {
			t.Fatal(err)
		}
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1, Lease: time.Minute, WorkerID: "t"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatal(res, err)
		}
		j := res.Jobs[0]
		o := store.OutcomeGarbage
		if toRetry {
			o = store.OutcomeRetry
		}
		req := store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: o, Delay: time.Hour,
			Error: &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: msg(i) + "\nsecond line"}}
		if _, err := s.Finish(ctx, []store.AttemptEnd{req}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	return ids
}

func TestErrorGroups(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		h := newHandler(s, nil)
		// Three groups: timeouts whose numbers differ (one group), a refusal,
		// and the same timeout text on another kind.
		timeouts := failJobs(t, s, "mail", "send", 5, false, func(i int) string { return fmt.Sprintf("timeout after %dms", 3000+i*7) })
		refused := failJobs(t, s, "mail", "send", 2, false, func(int) string { return "connection refused" })
		other := failJobs(t, s, "mail", "report", 3, true, func(i int) string { return fmt.Sprintf("timeout after %dms", 10+i) })

		r := get(t, h, "/queues/mail/errors")
		wantStatus(t, r, 200, "errors page")
		body := r.Body
		for _, want := range []string{
			`data-error-group="garbage/send/timeout after #ms"`, `data-error-group="garbage/send/connection refused"`,
			`data-error-group="retry/report/timeout after #ms"`, "Requeue 5", "Delete 2", "Run now 3",
			esc(`Requeue the 5 garbage send jobs failing with "timeout after #ms"? They run again now.`),
		} {
			if !strings.Contains(body, want) {
				t.Errorf("errors page lacks %q", want)
			}
		}
		if strings.Contains(body, "second line") {
			t.Error("the groups show more than the first line of an error")
		}
		// Biggest group first.
		if a, b := strings.Index(body, "garbage/send/timeout"), strings.Index(body, "garbage/send/connection"); a < 0 || b < 0 || a > b {
			t.Error("the group of 5 is not listed before the group of 2")
		}

		// Requeue one group: its jobs, and only them, leave garbage.
		r = postAsked(t, h, "/queues/mail/errors", url.Values{"action": {"retry"}, "state": {"garbage"}, "kind": {"send"}, "key": {"timeout after #ms"}}, `Requeue the 5 garbage send jobs failing with "timeout after #ms"? They run again now.`)
		wantRedirect(t, r, "/queues/mail/errors?flash=requeued&n=5", "requeue a group")
		for _, id := range timeouts {
			requireState(t, s, "mail", id, hopper.StateReady)
		}
		for _, id := range refused {
			requireState(t, s, "mail", id, hopper.StateGarbage)
		}
		// Delete another.
		r = postAsked(t, h, "/queues/mail/errors", url.Values{"action": {"delete"}, "state": {"retry"}, "kind": {"report"}, "key": {"timeout after #ms"}}, `Delete the 3 retry report jobs failing with "timeout after #ms"? This cannot be undone.`)
		wantRedirect(t, r, "/queues/mail/errors?flash=deleted&n=3", "delete a group")
		for _, id := range other {
			requireState(t, s, "mail", id, "")
		}
		// A group gone meanwhile: nothing done, and the page says so in the
		// words of the action asked.
		r = post(t, h, "/queues/mail/errors", url.Values{"action": {"delete"}, "state": {"retry"}, "kind": {"report"}, "key": {"timeout after #ms"}})
		wantRedirect(t, r, "/queues/mail/errors?flash=deleted&n=0", "delete a group that is gone")
		// Bad input is refused, clearly.
		r = post(t, h, "/queues/mail/errors", url.Values{"action": {"retry"}, "state": {"ready"}, "kind": {"send"}, "key": {"x"}})
		wantStatus(t, r, 400, "a group in ready")
		r = post(t, h, "/queues/mail/errors", url.Values{"action": {"explode"}, "state": {"garbage"}})
		wantStatus(t, r, 400, "an unknown action")
		wantLacks(t, get(t, h, "/queues/mail/errors").Body, "after the actions", "garbage/send/timeout", "retry/report")
	})
}

// requireState fails t unless the job is in st ("" for gone).
func requireState(t *testing.T, s hopper.Store, q, id string, st hopper.JobState) {
	t.Helper()
	got := hopper.JobState("")
	if rec, err := hopper.NewInspector(s).GetJob(context.Background(), q, id); err == nil {
		got = rec.State
	}
	if got != st {
		t.Errorf("job %s is in %q, want %q", id, got, st)
	}
}

// The job page draws a job's attempts: the failed one with its worker and
// duration, the running one on the worker that reports it.
func TestJobAttemptsTimeline(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		h := newHandler(s, nil)
		if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: "tl-1", Queue: "tl", Kind: "k", Args: []byte{0x80}, JobSpec: store.JobSpec{MaxRetries: 3}}}); err != nil {
			t.Fatal(err)
		}
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "tl", Max: 1, Lease: time.Minute, WorkerID: "w-one"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatal(res, err)
		}
		j := res.Jobs[0]
		req := store.AttemptEnd{Queue: "tl", ID: j.ID, Token: j.Token, Outcome: store.OutcomeRetry,
			Error: &store.AttemptError{Attempt: 1, StartedAt: time.Now().Add(-1500 * time.Millisecond), Worker: "w-one", Error: "first failure"}}
		if _, err := s.Finish(ctx, []store.AttemptEnd{req}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Maintain(ctx, "tl", store.MaintainOpts{}); err != nil { // the retry falls due
			t.Fatal(err)
		}
		if res, err := s.Claim(ctx, store.ClaimOpts{Queue: "tl", Max: 1, Lease: time.Minute, WorkerID: "w-two"}); err != nil || len(res.Jobs) != 1 {
			t.Fatal(res, err)
		}
		if err := s.Heartbeat(ctx, store.WorkerInfo{ID: "w-two", Host: "h", PID: 1, Queues: map[string]int{"tl": 1}, Concurrency: 1, StartedAt: time.Now(),
			Running: []store.RunningJob{{Queue: "tl", ID: "tl-1", Kind: "k", StartedAt: time.Now()}}}, time.Minute); err != nil {
			t.Fatal(err)
		}
		r := get(t, h, "/jobs/tl/tl-1")
		wantStatus(t, r, 200, "job page")
		row := func(n string) string {
			i := strings.Index(r.Body, `data-attempt="`+n+`"`)
			if i < 0 {
				t.Fatalf("the job page has no row for attempt %s", n)
			}
			end := strings.Index(r.Body[i:], "</tr>")
			return r.Body[i : i+end]
		}
		if a := row("1"); !containsAll(a, "failed", "first failure", "w-one", "1.5s") {
			t.Errorf("attempt 1 row %q, want failed, its error, its worker w-one and 1.5s", a)
		}
		if a := row("2"); !containsAll(a, "running", "w-two", "so far") {
			t.Errorf("attempt 2 row %q, want running on w-two", a)
		}
		wantContains(t, r.Body, "timeline bars", `class="tl-bar tl-failed"`, `class="tl-bar tl-running"`)
	})
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
