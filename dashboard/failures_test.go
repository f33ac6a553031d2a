package dashboard_test

import (
	"context"
	"encoding/json"
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

// failIn enqueues an email in queue and fails it: to retry (due in an
// hour) or to garbage. It returns the job's ID.
func failIn(t testing.TB, s hopper.Store, queue string, outcome hopper.Outcome) string {
	t.Helper()
	ctx := context.Background()
	info, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), dashtest.EmailArgs{To: "zed@example.com", Subject: "From " + queue}, &hopper.EnqueueOpts{Queue: queue})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: queue, Max: 1, Lease: time.Hour, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("Claim(%s): %v %v", queue, res.Jobs, err)
	}
	j := res.Jobs[0]
	errs, err := s.Finish(ctx, []store.AttemptEnd{{Queue: queue, ID: j.ID, Token: j.Token, Outcome: outcome, Delay: time.Hour,
		Error: &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: "smtp refused in " + queue}}})
	if err != nil || errs[0] != nil {
		t.Fatalf("Finish: %v %v", err, errs)
	}
	return info.ID
}

// The Retries and Dead pages list every queue's retry and garbage jobs
// in one list, search them, and act on them — deleting, and acting on
// every match, only after a question.
func TestFailuresAcrossQueues(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s) // default: 2 garbage, 1 retry
		billingDead := failIn(t, s, "billing", hopper.OutcomeGarbage)
		billingRetry := failIn(t, s, "billing", hopper.OutcomeRetry)
		h := newHandler(s, nil)

		dead := get(t, h, "/dead")
		wantStatus(t, dead, http.StatusOK, "/dead")
		wantContains(t, dead.Body, "the Dead page", `data-job-row="billing/`+billingDead+`"`, `data-job-row="default/`+f.Garbage[0]+`"`,
			`data-job-row="default/`+f.Garbage[1]+`"`, "smtp refused in billing", `data-queue-count="billing"`, `data-queue-count="default"`)
		wantLacks(t, dead.Body, "the Dead page", `data-job-row="billing/`+billingRetry+`"`, `data-job-row="default/`+f.Retry+`"`)
		if i, j := strings.Index(dead.Body, billingDead), strings.Index(dead.Body, f.Garbage[0]); i > j {
			t.Errorf("/dead: billing's job, the newest death, comes after default's oldest")
		}
		retries := get(t, h, "/retries")
		wantContains(t, retries.Body, "the Retries page", `data-job-row="billing/`+billingRetry+`"`, `data-job-row="default/`+f.Retry+`"`)
		wantLacks(t, retries.Body, "the Retries page", `data-job-row="billing/`+billingDead+`"`)

		// Search across queues: by kind, by the start of an ID, by args.
		byKind := get(t, h, "/retries?kind=build_report")
		wantContains(t, byKind.Body, "retries of kind build_report", `data-job-row="default/`+f.Retry+`"`)
		wantLacks(t, byKind.Body, "retries of kind build_report", `data-job-row="billing/`+billingRetry+`"`)
		byArgs := get(t, h, "/dead?args=ZED@example")
		wantContains(t, byArgs.Body, "dead jobs whose args hold zed@", `data-job-row="billing/`+billingDead+`"`)
		wantLacks(t, byArgs.Body, "dead jobs whose args hold zed@", `data-job-row="default/`+f.Garbage[0]+`"`)
		byID := get(t, h, "/dead?id="+url.QueryEscape(billingDead[:len(billingDead)-2]))
		wantContains(t, byID.Body, "dead jobs by an ID's start", `data-job-row="billing/`+billingDead+`"`)
		wantContains(t, get(t, h, "/dead?args=nobody-at-all").Body, "a search that finds nothing", "No match in garbage in any queue")

		// Deleting selected jobs asks first, then deletes them in each queue.
		form := url.Values{"id": {"billing " + billingDead, "default " + f.Garbage[1]}, "back": {""}}
		ask := post(t, h, "/dead/delete", form)
		wantStatus(t, ask, http.StatusOK, "unconfirmed delete")
		wantContains(t, ask.Body, "the question", "Delete 2 selected garbage jobs (in 2 queues)?")
		if st := dashtest.JobState(t, s, "billing", billingDead); st != hopper.StateGarbage {
			t.Fatalf("before the answer the job is %q, want garbage", st)
		}
		done := submitAsk(t, h, ask)
		wantStatus(t, done, http.StatusSeeOther, "confirmed delete")
		if !strings.HasPrefix(done.Header.Get("Location"), "/dead?") {
			t.Errorf("after the delete: Location %q, want the Dead page", done.Header.Get("Location"))
		}
		for _, q := range [][2]string{{"billing", billingDead}, {"default", f.Garbage[1]}} {
			if st := dashtest.JobState(t, s, q[0], q[1]); st != "" {
				t.Errorf("%s/%s is %q after the delete, want gone", q[0], q[1], st)
			}
		}

		// Requeueing selected retries acts at once (it loses nothing).
		r := post(t, h, "/retries/retry", url.Values{"id": {"billing " + billingRetry}})
		wantStatus(t, r, http.StatusSeeOther, "requeue selected")
		if st := dashtest.JobState(t, s, "billing", billingRetry); st != hopper.StateReady {
			t.Errorf("requeued retry is %q, want ready", st)
		}

		// Every match at once asks first, counting them.
		all := url.Values{"all": {"1"}}
		ask = post(t, h, "/dead/retry", all)
		wantContains(t, ask.Body, "the question for every dead job", "Run 1 garbage job (in 1 queue) now?")
		if st := dashtest.JobState(t, s, "default", f.Garbage[0]); st != hopper.StateGarbage {
			t.Fatalf("before the answer the job is %q, want garbage", st)
		}
		wantStatus(t, submitAsk(t, h, ask), http.StatusSeeOther, "confirmed requeue of all")
		if st := dashtest.JobState(t, s, "default", f.Garbage[0]); st != hopper.StateReady {
			t.Errorf("after requeueing every dead job: %q, want ready", st)
		}
		wantContains(t, get(t, h, "/dead").Body, "the emptied Dead page", "No jobs in garbage in any queue")

		// The JSON API.
		api := get(t, h, "/api/retries")
		wantStatus(t, api, http.StatusOK, "/api/retries")
		var out struct {
			Total  int                 `json:"total"`
			Queues []hopper.QueueCount `json:"queues"`
			Jobs   []struct {
				ID    string `json:"id"`
				Queue string `json:"queue"`
			} `json:"jobs"`
		}
		if err := json.Unmarshal([]byte(api.Body), &out); err != nil {
			t.Fatalf("/api/retries: %v\n%s", err, api.Body)
		}
		if out.Total != 1 || len(out.Jobs) != 1 || out.Jobs[0].ID != f.Retry || len(out.Queues) != 1 || out.Queues[0] != (hopper.QueueCount{Queue: "default", Count: 1}) {
			t.Errorf("/api/retries = %+v, want default's one retry", out)
		}
	})
}

// Bad input to the failures pages gets a clear answer, never a 500.
func TestFailuresBadInput(t *testing.T) {
	h := newHandler(newMem(), nil)
	r := post(t, h, "/dead/delete", url.Values{"id": {"no-space-here"}, "confirm": {"1"}})
	wantStatus(t, r, http.StatusBadRequest, "a selection without a queue")
	wantStatus(t, get(t, h, "/api/dead?page=999"), http.StatusBadRequest, "a page past the depth")
	deep := get(t, h, "/dead?page=999")
	wantStatus(t, deep, http.StatusOK, "a page past the depth")
	r = post(t, h, "/retries/retry", url.Values{})
	wantStatus(t, r, http.StatusSeeOther, "nothing selected")
}

// A read-only dashboard shows the lists without their actions, and
// refuses the actions.
func TestFailuresReadOnly(t *testing.T) {
	s := newMem()
	id := failIn(t, s, "billing", hopper.OutcomeGarbage)
	h := newHandler(s, &dashboard.Config{ReadOnly: true})
	page := get(t, h, "/dead")
	wantContains(t, page.Body, "read-only Dead page", id)
	wantLacks(t, page.Body, "read-only Dead page", "Delete selected", `id="delete-all"`)
	wantStatus(t, post(t, h, "/dead/delete", url.Values{"id": {"billing " + id}, "confirm": {"1"}}), http.StatusForbidden, "read-only delete")
}
