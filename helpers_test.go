package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
)

// Test job kinds.

type Echo struct {
	N   int    `msgpack:"n"`
	Msg string `msgpack:"msg"`
}

func (Echo) Kind() string { return "echo" }

type Other struct{ S string }

func (Other) Kind() string { return "other" }

// startWorker runs w until the test ends (or stop is called) and checks that
// Run returned nil.
func startWorker(t *testing.T, w *hopper.Worker) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Worker.Run returned %v, want nil", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Worker.Run did not return within 30s of its context being cancelled")
		}
	}
	t.Cleanup(stop)
	return stop
}

// testConfig is a worker config with fast leases and retries for tests.
func testConfig(queues ...string) *hopper.WorkerConfig {
	qs := map[string]int{}
	for _, q := range queues {
		qs[q] = 1
	}
	return &hopper.WorkerConfig{
		Queues:          qs,
		Concurrency:     4,
		Lease:           time.Second,
		ShutdownTimeout: 5 * time.Second,
		Backoff:         func(int, error) time.Duration { return 0 },
		Logger:          testutil.Logger(),
	}
}

// jobState returns the job's record, or nil when it is gone.
func getJob(t *testing.T, s hopper.Store, queue, id string) *hopper.JobRecord {
	t.Helper()
	rec, err := hopper.NewInspector(s).GetJob(context.Background(), queue, id)
	if errors.Is(err, hopper.ErrJobNotFound) {
		return nil
	}
	if err != nil {
		t.Fatalf("GetJob(%s, %s): %v", queue, id, err)
	}
	return rec
}

func newStore() *memstore.Store { return memstore.New(nil) }

// panicOf runs f and returns the error it panicked with: nil when it did
// not panic, an error saying so when it panicked with something else.
func panicOf(f func()) (err error) {
	defer func() {
		switch v := recover().(type) {
		case nil:
		case error:
			err = v
		default:
			err = fmt.Errorf("panicked with %T %v, not an error", v, v)
		}
	}()
	f()
	return nil
}
