package hopper_test

import (
	"context"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// workerState returns the state worker id reports in the registry, and
// whether it is listed.
func workerState(t *testing.T, st hopper.Store, id string) (store.WorkerState, bool) {
	t.Helper()
	ws, err := hopper.NewInspector(st).ListWorkers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ws {
		if w.ID == id {
			return w.State, true
		}
	}
	return "", false
}

// TestWorkerQuietThenStop quiets a worker that runs a job: the registry
// shows it quiet, a job enqueued afterwards stays ready while the running
// one finishes, and the process stays up; stopping it then makes Run
// return nil and takes it out of the registry.
func TestWorkerQuietThenStop(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		st := open()
		ctl, ok := store.As[store.WorkerControl](st)
		if !ok {
			t.Fatalf("%T carries no worker commands", st)
		}
		cfg := testConfig("ctl")
		cfg.ID = "ctl-worker"
		cfg.HeartbeatInterval = 20 * time.Millisecond
		w := hopper.NewWorker(st, cfg)
		started := make(chan string, 4)
		release := make(chan struct{})
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			started <- j.Args.Msg
			if j.Args.Msg == "long" {
				<-release
			}
			return nil
		})
		done := make(chan error, 1)
		go func() { done <- w.Run(context.Background()) }()
		c := hopper.NewClient(st, nil)
		ctx := context.Background()
		long, err := hopper.Enqueue(ctx, c, Echo{Msg: "long"}, &hopper.EnqueueOpts{Queue: "ctl"})
		if err != nil {
			t.Fatal(err)
		}
		testutil.Receive(t, started, testutil.Wait, "the long job to start")

		if err := ctl.SendWorkerCommand(ctx, cfg.ID, store.WorkerQuiet); err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, testutil.Wait, "the registry to show the worker quiet", func() bool {
			s, _ := workerState(t, st, cfg.ID)
			return s == store.WorkerStateQuiet
		})
		later, err := hopper.Enqueue(ctx, c, Echo{Msg: "later"}, &hopper.EnqueueOpts{Queue: "ctl"})
		if err != nil {
			t.Fatal(err)
		}
		close(release)
		testutil.EventuallyTrue(t, testutil.Wait, "the running job to finish", func() bool {
			j := getJob(t, st, "ctl", long.ID)
			return j == nil || j.State != hopper.StateUnack
		})
		if j := getJob(t, st, "ctl", later.ID); j == nil || j.State != hopper.StateReady {
			t.Fatalf("the job enqueued after quiet: %+v, want it still ready", j)
		}
		select {
		case err := <-done:
			t.Fatalf("Run returned (%v) after quiet; the process should stay up", err)
		default:
		}
		if s, listed := workerState(t, st, cfg.ID); !listed || s != store.WorkerStateQuiet {
			t.Fatalf("after its job finished the quiet worker is listed=%v state=%q", listed, s)
		}

		if err := ctl.SendWorkerCommand(ctx, cfg.ID, store.WorkerStop); err != nil {
			t.Fatal(err)
		}
		if err := testutil.Receive(t, done, testutil.Wait, "Run to return after stop"); err != nil {
			t.Fatalf("Run = %v after stop, want nil", err)
		}
		if _, listed := workerState(t, st, cfg.ID); listed {
			t.Fatal("the stopped worker is still in the registry")
		}
		if j := getJob(t, st, "ctl", later.ID); j == nil || j.State != hopper.StateReady {
			t.Fatalf("the job enqueued after quiet: %+v, want it still ready", j)
		}
	})
}

// TestWorkerStopLetsRunningJobFinish stops a busy worker: its running job
// finishes (it is not cancelled) and Run returns nil.
func TestWorkerStopLetsRunningJobFinish(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		st := open()
		ctl, _ := store.As[store.WorkerControl](st)
		cfg := testConfig("ctlstop")
		cfg.ID = "ctl-stop"
		cfg.HeartbeatInterval = 20 * time.Millisecond
		w := hopper.NewWorker(st, cfg)
		started := make(chan struct{}, 1)
		release := make(chan struct{})
		ended := make(chan error, 1)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			started <- struct{}{}
			<-release
			ended <- ctx.Err()
			return nil
		})
		done := make(chan error, 1)
		go func() { done <- w.Run(context.Background()) }()
		c := hopper.NewClient(st, nil)
		ctx := context.Background()
		job, err := hopper.Enqueue(ctx, c, Echo{Msg: "x"}, &hopper.EnqueueOpts{Queue: "ctlstop"})
		if err != nil {
			t.Fatal(err)
		}
		testutil.Receive(t, started, testutil.Wait, "the job to start")
		if err := ctl.SendWorkerCommand(ctx, cfg.ID, store.WorkerStop); err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, testutil.Wait, "the registry to show the worker stopping", func() bool {
			s, _ := workerState(t, st, cfg.ID)
			return s == store.WorkerStateStopping
		})
		close(release)
		if err := testutil.Receive(t, ended, testutil.Wait, "the handler to return"); err != nil {
			t.Fatalf("the running job's context ended (%v): stop should let it finish", err)
		}
		if err := testutil.Receive(t, done, testutil.Wait, "Run to return after stop"); err != nil {
			t.Fatalf("Run = %v", err)
		}
		if j := getJob(t, st, "ctlstop", job.ID); j != nil && j.State != hopper.StateDone {
			t.Fatalf("the job is %s after stop, want done", j.State)
		}
	})
}

// TestWorkerCommandValidation refuses an unknown command and an empty ID.
func TestWorkerCommandValidation(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctl, _ := store.As[store.WorkerControl](open())
		for _, tc := range []struct {
			id  string
			cmd store.WorkerCommand
		}{{"", store.WorkerQuiet}, {"w", "reboot"}, {"w", ""}} {
			if err := ctl.SendWorkerCommand(context.Background(), tc.id, tc.cmd); err == nil {
				t.Errorf("SendWorkerCommand(%q, %q) = nil, want an error", tc.id, tc.cmd)
			}
		}
		got, err := ctl.TakeWorkerCommand(context.Background(), "nobody")
		if err != nil || got != "" {
			t.Fatalf("TakeWorkerCommand with none waiting = %q, %v", got, err)
		}
		if err := ctl.SendWorkerCommand(context.Background(), "w", store.WorkerQuiet); err != nil {
			t.Fatal(err)
		}
		first, _ := ctl.TakeWorkerCommand(context.Background(), "w")
		second, _ := ctl.TakeWorkerCommand(context.Background(), "w")
		if first != store.WorkerQuiet || second != "" {
			t.Fatalf("took %q then %q, want %q then nothing", first, second, store.WorkerQuiet)
		}
	})
}
