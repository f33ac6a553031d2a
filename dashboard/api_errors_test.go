package dashboard_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// TestJobJSONErrorAttempt: each error in a job's JSON carries the start of
// the attempt and the worker that ran it, as "hopper jobs show --json"
// gives them, and the job page's list of errors shows them too. Both
// were missing: the JSON had attempt, at, error and stack only.
func TestJobJSONErrorAttempt(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := get(t, h, "/api/jobs/default/"+f.Garbage[0])
		wantStatus(t, r, http.StatusOK, "job JSON")
		var j struct {
			Errors []map[string]any
		}
		if err := json.Unmarshal([]byte(r.Body), &j); err != nil {
			t.Fatal(err)
		}
		if len(j.Errors) != 1 {
			t.Fatalf("errors %v", j.Errors)
		}
		e := j.Errors[0]
		if e["worker"] != "worker-1" {
			t.Errorf("errors[0].worker = %v, want worker-1: %v", e["worker"], e)
		}
		started, _ := e["started_at"].(string)
		at, _ := e["at"].(string)
		st, err1 := time.Parse(time.RFC3339Nano, started)
		ft, err2 := time.Parse(time.RFC3339Nano, at)
		if err1 != nil || err2 != nil || !st.Before(ft) {
			t.Errorf("errors[0].started_at = %q, at %q: want a time before at: %v", started, at, e)
		}

		page := get(t, h, "/jobs/default/"+f.Garbage[0])
		wantStatus(t, page, http.StatusOK, "job page")
		_, errs, ok := strings.Cut(page.Body, `id="errors"`)
		if !ok {
			t.Fatalf("job page has no errors section")
		}
		errs, _, _ = strings.Cut(errs, "</section>")
		wantContains(t, errs, "job page's errors", "worker-1", `datetime="`+st.UTC().Format("2006-01-02T15:04:05"))
	})
}

// TestJobJSONErrorNoAttempt: an error no handler saw (an expired lease,
// a cancel) has no start and no worker; the JSON leaves both out rather
// than give a zero time, and the page says nothing of them.
func TestJobJSONErrorNoAttempt(t *testing.T) {
	s := newMem()
	info, err := hopper.Enqueue(t.Context(), hopper.NewClient(s, nil), dashtest.ReportArgs{}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Hour, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("Claim: %v %v", res, err)
	}
	j := res.Jobs[0]
	errs, err := s.Finish(t.Context(), []store.AttemptEnd{{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: hopper.OutcomeGarbage,
		Error: &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: "lease expired"}}})
	if err != nil || errs[0] != nil {
		t.Fatalf("Finish: %v %v", err, errs)
	}
	h := newHandler(s, nil)
	r := get(t, h, "/api/jobs/default/"+info.ID)
	wantStatus(t, r, http.StatusOK, "job JSON")
	wantContains(t, r.Body, "job JSON", "lease expired")
	wantLacks(t, r.Body, "job JSON of an error no handler saw", `"started_at"`, `"worker"`, "0001-01-01")
	page := get(t, h, "/jobs/default/"+info.ID)
	_, sec, _ := strings.Cut(page.Body, `id="errors"`)
	sec, _, _ = strings.Cut(sec, "</section>")
	wantContains(t, sec, "job page's errors", "lease expired")
	wantLacks(t, sec, "job page's errors of an error no handler saw", "started", " on ")
}
