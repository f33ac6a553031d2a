package hopper_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// OwnID is args whose own default options give a job ID.
type OwnID struct{ ID string }

func (OwnID) Kind() string                      { return "own-id" }
func (a OwnID) EnqueueOpts() hopper.EnqueueOpts { return hopper.EnqueueOpts{ID: a.ID} }

// TestTaskJobIDIsReserved: '~' is reserved for workflow tasks' job IDs
// (<workflow ID>~<task>). A job ID with it that a caller gives is refused
// on every path that takes one, with ErrInvalidJob and nothing stored: it
// used to be stored, and then adopted as the task's job (the task never
// ran) or, taken while the task waited, kept the task's job from being
// stored (the workflow hung). The workflow runs its own tasks, and task
// jobs are still found and cancelled by their IDs.
func TestTaskJobIDIsReserved(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		const q = "wfid"
		c := hopper.NewClient(st, &hopper.ClientConfig{Queue: q})
		in := hopper.NewInspector(st)
		// tryAll gives the new job ID id on every path that takes one.
		tryAll := func(t *testing.T, id string) {
			t.Helper()
			paths := []struct {
				name string
				do   func() error
			}{
				{"Enqueue", func() error {
					_, err := hopper.Enqueue(ctx, c, Echo{Msg: "impostor"}, &hopper.EnqueueOpts{ID: id})
					return err
				}},
				{"EnqueueMany", func() error {
					_, err := hopper.EnqueueMany(ctx, c, []Echo{{Msg: "impostor"}}, &hopper.EnqueueOpts{ID: id})
					return err
				}},
				{"Prepare", func() error {
					_, err := hopper.Prepare(c, Echo{Msg: "impostor"}, &hopper.EnqueueOpts{ID: id})
					return err
				}},
				{"PrepareMany", func() error {
					_, err := hopper.PrepareMany(c, []Echo{{Msg: "impostor"}}, &hopper.EnqueueOpts{ID: id})
					return err
				}},
				{"EnqueueAndWait", func() error {
					wctx, cancel := context.WithTimeout(ctx, 2*time.Second) // no worker runs the job
					defer cancel()
					_, _, err := hopper.EnqueueAndWait[string](wctx, c, Echo{Msg: "impostor"}, &hopper.EnqueueOpts{ID: id})
					return err
				}},
				{"debounce (Replace)", func() error {
					_, err := hopper.Enqueue(ctx, c, Echo{Msg: "impostor"}, &hopper.EnqueueOpts{ID: id,
						Unique: &hopper.UniqueOpts{Key: "k"}, Delay: time.Hour, Replace: hopper.ReplaceArgs | hopper.ReplaceRunAt})
					return err
				}},
				{"the args' own options", func() error {
					_, err := hopper.Enqueue(ctx, c, OwnID{ID: id}, nil)
					return err
				}},
				{"EnqueuePrepared of unmarshalled bytes", func() error {
					// A prepared job written elsewhere (an outbox row) with
					// the reserved ID.
					stand := strings.ReplaceAll(id, "~", "X")
					p, err := hopper.Prepare(c, Echo{Msg: "impostor"}, &hopper.EnqueueOpts{ID: stand})
					if err != nil {
						return err
					}
					b, err := p.MarshalBinary()
					if err != nil {
						return err
					}
					var got hopper.PreparedJob
					if err := got.UnmarshalBinary(bytes.Replace(b, []byte(stand), []byte(id), 1)); err != nil {
						return err
					}
					_, err = hopper.EnqueuePrepared(ctx, c, []*hopper.PreparedJob{&got})
					return err
				}},
			}
			for _, p := range paths {
				err := p.do()
				if !errors.Is(err, hopper.ErrInvalidJob) || !strings.Contains(err.Error(), "reserved for workflow tasks") {
					t.Errorf("%s with ID %q: %v; want ErrInvalidJob saying '~' is reserved for workflow tasks", p.name, id, err)
				}
				if rec := getJob(t, st, q, id); rec != nil {
					t.Fatalf("%s with ID %q stored a job (%s, args %q)", p.name, id, rec.State, rec.Args)
				}
			}
		}

		// Before the workflow exists.
		tryAll(t, "wfc~t1")
		wf := hopper.NewWorkflow("reserved IDs", &hopper.WorkflowOpts{ID: "wfc"})
		t0 := hopper.AddTask(wf, "t0", Echo{Msg: "t0"}, nil)
		hopper.AddTask(wf, "t1", Echo{Msg: "t1"}, nil).After(t0)
		if _, err := hopper.EnqueueWorkflow(ctx, c, wf); err != nil {
			t.Fatalf("EnqueueWorkflow: %v", err)
		}
		// While t1 waits for t0.
		tryAll(t, "wfc~t1")
		// A task's job is found by its ID.
		if rec, err := in.GetJob(ctx, q, "wfc~t0"); err != nil || rec.Kind != "echo" {
			t.Fatalf("GetJob of task t0's job: %+v, %v", rec, err)
		}

		w := hopper.NewWorker(st, testConfig(q))
		ran := make(chan string, 8)
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Echo]) error {
			ran <- job.Args.Msg
			return nil
		})
		startWorker(t, w)
		rec, err := c.WaitWorkflow(ctx, "wfc")
		if err != nil || rec.State != hopper.WorkflowSucceeded {
			t.Fatalf("the workflow: %+v, %v; want it succeeded", rec, err)
		}
		var got []string
		for len(ran) > 0 {
			got = append(got, <-ran)
		}
		if strings.Join(got, ",") != "t0,t1" {
			t.Errorf("handlers ran for %q, want the workflow's own t0 then t1", got)
		}

		// A waiting task's job is cancelled by its ID.
		idle := hopper.NewWorkflow("idle", &hopper.WorkflowOpts{ID: "wfx"})
		hopper.AddTask(idle, "a", Echo{Msg: "a"}, &hopper.TaskOpts{Queue: "wfid-idle"})
		if _, err := hopper.EnqueueWorkflow(ctx, c, idle); err != nil {
			t.Fatalf("EnqueueWorkflow: %v", err)
		}
		if state, err := in.CancelJob(ctx, "wfid-idle", "wfx~a"); err != nil {
			t.Fatalf("CancelJob of a task's job: %s, %v", state, err)
		}
		if rec, err := in.GetJob(ctx, "wfid-idle", "wfx~a"); err != nil || !rec.Cancelled {
			t.Fatalf("the cancelled task's job: %+v, %v; want it cancelled", rec, err)
		}
	})
}
