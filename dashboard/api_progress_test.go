package dashboard_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// TestJobJSONProgress: the job API carries a running job's progress, its
// data as JSON and its log lines, as the job page shows them.
func TestJobJSONProgress(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		if _, err := hopper.Enqueue(t.Context(), hopper.NewClient(s, nil), dashtest.ReportArgs{Month: "nov"}, &hopper.EnqueueOpts{Queue: "reports"}); err != nil {
			t.Fatal(err)
		}
		res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "reports", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatalf("claim: %v, %v", res, err)
		}
		j := res.Jobs[0]
		ref := store.LeaseRef{Queue: j.Queue, ID: j.ID, Token: j.Token, Progress: &store.Progress{
			Percent: 40, Data: mustMsgpack(t, map[string]int{"rows": 4}),
			Log: []store.LogLine{{At: time.Now(), Text: "row 3"}, {At: time.Now(), Text: "row 4"}},
		}}
		if _, err := s.Extend(t.Context(), []store.LeaseRef{ref}, time.Minute); err != nil {
			t.Fatal(err)
		}
		r := get(t, newHandler(s, nil), "/api/jobs/reports/"+j.ID)
		wantStatus(t, r, http.StatusOK, "job JSON")
		var got struct {
			Progress *struct {
				Percent float64
				Data    string
				Log     []struct {
					At   time.Time
					Text string
				}
			}
		}
		if err := json.Unmarshal([]byte(r.Body), &got); err != nil {
			t.Fatal(err)
		}
		p := got.Progress
		if p == nil || p.Percent != 40 || p.Data != `{"rows":4}` || len(p.Log) != 2 || p.Log[0].Text != "row 3" || p.Log[1].Text != "row 4" || p.Log[0].At.IsZero() {
			t.Fatalf("progress %+v in %s, want 40%% with its data and both lines", p, r.Body)
		}
	})
}
