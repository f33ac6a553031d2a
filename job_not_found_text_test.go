package hopper_test

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestJobNotFoundWordedAlike: both stores word ErrJobNotFound as `job
// "nope" of queue "q"`, and a stale token as `job "…" of queue "q", token
// N`; memstore said "job not found: q/nope".
func TestJobNotFoundWordedAlike(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		c := hopper.NewClient(st, nil)
		in := hopper.NewInspector(st)
		for _, q := range []string{"empty", "default"} { // a queue the store never saw, and one it holds
			if q == "default" {
				if _, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Delay: time.Hour}); err != nil {
					t.Fatal(err)
				}
			}
			want := `hopper: job not found: job "nope" of queue "` + q + `"`
			_, getErr := in.GetJob(ctx, q, "nope")
			_, cancelErr := in.CancelJob(ctx, q, "nope")
			_, waitErr := c.WaitJob(ctx, q, "nope")
			finishErrs, err := st.Finish(ctx, []store.AttemptEnd{{Queue: q, ID: "nope", Token: 1, Outcome: store.OutcomeAck}})
			if err != nil {
				t.Fatal(err)
			}
			for name, err := range map[string]error{"GetJob": getErr, "CancelJob": cancelErr, "WaitJob": waitErr, "Finish": finishErrs[0]} {
				if !errors.Is(err, hopper.ErrJobNotFound) || err.Error() != want {
					t.Errorf("%s of no job in queue %q: %v, want %q", name, q, err, want)
				}
			}
		}
		info, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Queue: "stale"})
		if err != nil {
			t.Fatal(err)
		}
		claimed, err := st.Claim(ctx, store.ClaimOpts{Queue: "stale", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(claimed.Jobs) != 1 {
			t.Fatalf("Claim: %+v, %v; want the job", claimed, err)
		}
		errs, err := st.Finish(ctx, []store.AttemptEnd{{Queue: "stale", ID: info.ID, Token: claimed.Jobs[0].Token + 1, Outcome: store.OutcomeAck}})
		if err != nil {
			t.Fatal(err)
		}
		want := `hopper: lease lost (stale token): job "` + info.ID + `" of queue "stale", token ` + strconv.FormatUint(claimed.Jobs[0].Token+1, 10)
		if !errors.Is(errs[0], hopper.ErrLeaseLost) || errs[0].Error() != want {
			t.Errorf("Finish with a stale token: %v, want %q", errs[0], want)
		}
	})
}
