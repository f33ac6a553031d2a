package dashboard_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

// TestSucceededAttemptShowsItsWorker: the attempts table names the worker
// that ran a job's successful attempt (from the attempt's start event),
// as it does for failed ones, when the queue's events were read while it
// ran (a live feed, a subscriber: redisstore writes them while someone
// reads).
func TestSucceededAttemptShowsItsWorker(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := t.Context()
		if _, _, _, err := s.(store.EventReader).ReadEvents(ctx, map[string]string{"okq": hopper.FromNow}, 1, 0); err != nil {
			t.Fatal(err)
		}
		c := hopper.NewClient(s, nil)
		info, err := hopper.Enqueue(ctx, c, dashtest.ReportArgs{Month: "ok"}, &hopper.EnqueueOpts{Queue: "okq", Retention: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "okq", Max: 1, Lease: time.Minute, WorkerID: "worker-ok-7"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatalf("claim: %v, %v", res, err)
		}
		j := res.Jobs[0]
		if errs, err := s.Finish(ctx, []store.AttemptEnd{{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: hopper.OutcomeAck, Retention: time.Hour}}); err != nil || errs[0] != nil {
			t.Fatalf("ack: %v %v", err, errs)
		}
		h := newHandler(s, nil)
		for range 2 { // the second view answers from memory
			r := get(t, h, "/jobs/okq/"+info.ID)
			wantStatus(t, r, http.StatusOK, "succeeded job")
			wantContains(t, r.Body, "succeeded job's attempts", `<td class="mono">worker-ok-7</td>`)
		}
	})
}
