package hopper_test

import (
	"context"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
)

// RateLimited from a grouped job's handler holds its group alone: the
// other group's jobs run meanwhile, and the held group's wait.
func TestRateLimitedHoldsTheGroup(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		c := hopper.NewClient(st, nil)
		ins := hopper.NewInspector(st)
		enqueue := func(g string) string {
			info, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Group: g})
			if err != nil {
				t.Fatal(err)
			}
			return info.ID
		}
		w := hopper.NewWorker(st, testConfig("default"))
		ran := make(chan string, 8)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			ran <- j.Group
			if j.Group == "limited" {
				return hopper.RateLimited(time.Hour)
			}
			return nil
		})
		stop := startWorker(t, w)
		defer stop()
		next := func() string {
			select {
			case g := <-ran:
				return g
			case <-time.After(10 * time.Second):
				t.Fatal("no job ran in 10 s")
				return ""
			}
		}
		first := enqueue("limited")
		if g := next(); g != "limited" {
			t.Fatalf("ran a job of group %q, want limited", g)
		}
		// Its snooze, and the hold with it, landed.
		testutil.EventuallyTrue(t, 10*time.Second, "the limited job snoozed", func() bool {
			rec, err := ins.GetJob(ctx, "default", first)
			return err == nil && rec.State == hopper.StatePending
		})
		second := enqueue("limited")
		enqueue("free")
		enqueue("free")
		for range 2 {
			if g := next(); g != "free" {
				t.Fatalf("ran a job of group %q while it is held, want the free group's", g)
			}
		}
		rec, err := ins.GetJob(ctx, "default", second)
		if err != nil || rec.State != hopper.StateReady {
			t.Fatalf("the held group's second job: %+v, %v; want it ready, waiting for the hold", rec, err)
		}
		if stats, err := ins.GetQueueStats(ctx, "default"); err != nil || !stats.HeldUntil.IsZero() {
			t.Fatalf("queue held until %v (%v); want the group held, not the queue", stats.HeldUntil, err)
		}
	})
}
