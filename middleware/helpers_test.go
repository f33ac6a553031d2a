package middleware_test

import (
	"context"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
)

// Echo is the test job kind. Fail makes its handler fail on the attempts
// listed.
type Echo struct {
	N    int   `msgpack:"n"`
	Fail []int `msgpack:"fail,omitempty"`
}

func (Echo) Kind() string { return "echo" }

// Block is a job kind whose handler blocks until released.
type Block struct{ N int }

func (Block) Kind() string { return "block" }

// startWorker runs w until the test ends and checks that Run returned nil.
func startWorker(t testing.TB, w *hopper.Worker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Worker.Run returned %v, want nil", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Worker.Run did not return within 30s of its context being cancelled")
		}
	})
}

// testConfig is a worker config with fast retries for tests.
func testConfig() *hopper.WorkerConfig {
	return &hopper.WorkerConfig{
		Queues:          map[string]int{hopper.DefaultQueue: 1},
		Concurrency:     4,
		Lease:           5 * time.Second,
		ShutdownTimeout: 5 * time.Second,
		Backoff:         func(int, error) time.Duration { return 0 },
		Logger:          testutil.Logger(),
	}
}

// echoHandler fails the attempts listed in the job's args.
func echoHandler(ctx context.Context, j *hopper.Job[Echo]) error {
	for _, a := range j.Args.Fail {
		if a == j.Attempt {
			return errFail
		}
	}
	return nil
}

var errFail = &failError{}

type failError struct{}

func (*failError) Error() string     { return "planned failure" }
func (*failError) ErrorType() string { return "planned" }
