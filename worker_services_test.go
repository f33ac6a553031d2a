package hopper_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
)

// TestWorkerServiceLivesWithRun runs a service beside a worker: it starts
// with Run, its context ends when Run's does, and Run returns only after
// the service returned. A service that returns nil early does not stop the
// worker, which still runs jobs.
func TestWorkerServiceLivesWithRun(t *testing.T) {
	st := newStore()
	started := make(chan struct{})
	var returned atomic.Bool
	cfg := testConfig("svc")
	cfg.Services = []func(context.Context) error{
		func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			returned.Store(true)
			return ctx.Err() // a stopping service's context error is not a failure
		},
		func(context.Context) error { return nil },
	}
	w := hopper.NewWorker(st, cfg)
	ran := make(chan string, 1)
	hopper.Handle(w, func(_ context.Context, j *hopper.Job[Echo]) error {
		ran <- j.Args.Msg
		return nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	testutil.Receive(t, started, testutil.Wait, "the service to start")
	c := hopper.NewClient(st, nil)
	if _, err := hopper.Enqueue(context.Background(), c, Echo{Msg: "hi"}, &hopper.EnqueueOpts{Queue: "svc"}); err != nil {
		t.Fatal(err)
	}
	if got := testutil.Receive(t, ran, testutil.Wait, "the job to run beside the services"); got != "hi" {
		t.Fatalf("ran %q", got)
	}
	if returned.Load() {
		t.Fatal("the service returned while the worker ran")
	}
	cancel()
	if err := testutil.Receive(t, done, testutil.Wait, "Run to return"); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	if !returned.Load() {
		t.Fatal("Run returned before its service did")
	}
}

// TestWorkerServiceFailureStopsRun makes a service fail: the worker shuts
// down without its context being cancelled, Run returns the service's
// error, and the other service's context ends too.
func TestWorkerServiceFailureStopsRun(t *testing.T) {
	boom := errors.New("relay lost its database")
	fail := make(chan struct{})
	var otherStopped atomic.Bool
	cfg := testConfig("svc")
	cfg.Services = []func(context.Context) error{
		func(context.Context) error {
			<-fail
			return boom
		},
		func(ctx context.Context) error {
			<-ctx.Done()
			otherStopped.Store(true)
			return nil
		},
	}
	w := hopper.NewWorker(newStore(), cfg)
	hopper.Handle(w, func(context.Context, *hopper.Job[Echo]) error { return nil })
	done := make(chan error, 1)
	go func() { done <- w.Run(context.Background()) }()
	close(fail)
	err := testutil.Receive(t, done, testutil.Wait, "Run to return after a service failed")
	if !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want the service's error", err)
	}
	if !otherStopped.Load() {
		t.Fatal("Run returned before the other service stopped")
	}
}

// TestWorkerServiceNilRefused: a nil service is a configuration error.
func TestWorkerServiceNilRefused(t *testing.T) {
	cfg := hopper.WorkerConfig{Services: []func(context.Context) error{nil}}
	if err := cfg.Validate(); !errors.Is(err, hopper.ErrInvalidConfig) {
		t.Fatalf("Validate = %v, want ErrInvalidConfig", err)
	}
}
