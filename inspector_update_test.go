package hopper_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// UpdateJob on both stores: reschedules and re-args waiting jobs, refuses
// running and ended ones, and never brings back a job that is gone.
func TestInspectorUpdateJob(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		{
			ctx := t.Context()
			st := open()
			c := hopper.NewClient(st, nil)
			ins := hopper.NewInspector(st)
			info, err := hopper.Enqueue(ctx, c, Echo{N: 1}, &hopper.EnqueueOpts{Delay: time.Hour, Meta: map[string]string{"m": "kept"}})
			if err != nil {
				t.Fatal(err)
			}
			soon := time.Now().Add(2 * time.Hour).Truncate(time.Millisecond)
			rec, err := ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{RunAt: soon, Args: Echo{N: 2}})
			if err != nil {
				t.Fatal(err)
			}
			if rec.State != hopper.StatePending || !rec.RunAt.Equal(soon) || rec.Meta["m"] != "kept" {
				t.Fatalf("after UpdateJob: %s due %v meta %v, want pending due %v with its meta", rec.State, rec.RunAt, rec.Meta, soon)
			}
			rec, err = ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{RunAt: time.Now()})
			if err != nil || rec.State != hopper.StateReady {
				t.Fatalf("UpdateJob to now: %v, %v; want the job ready", rec, err)
			}
			w := hopper.NewWorker(st, testConfig("default"))
			got, release := make(chan int, 1), make(chan struct{})
			hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
				got <- j.Args.N
				<-release // runs until the test has tried to change it
				return nil
			})
			stop := startWorker(t, w)
			if n := <-got; n != 2 {
				t.Fatalf("the job ran with N=%d, want the updated 2", n)
			}
			if _, err := ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{Args: Echo{N: 3}}); !errors.Is(err, hopper.ErrInvalidState) {
				t.Fatalf("UpdateJob of a running job: %v, want ErrInvalidState", err)
			}
			close(release)
			stop()
			if _, err := ins.UpdateJob(ctx, "default", "no-such-job", hopper.JobUpdate{RunAt: time.Now()}); !errors.Is(err, hopper.ErrJobNotFound) {
				t.Fatalf("UpdateJob of an unknown job: %v, want ErrJobNotFound", err)
			}
			if _, err := ins.UpdateJob(ctx, "default", info.ID, hopper.JobUpdate{}); !errors.Is(err, hopper.ErrInvalidJob) {
				t.Fatalf("UpdateJob with nothing to change: %v, want ErrInvalidJob", err)
			}
		}
	})
}
