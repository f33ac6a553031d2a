// Package drainrun runs the drain the benchmark commands measure: a worker
// started on a backlog, timed until a given number of jobs have started.
package drainrun

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
)

// Run starts a worker of conc slots on queue of st, with a no-op handler
// for T, and waits until n jobs have started, at most timeout. It calls
// mark right before the worker starts and right after the n-th start (to
// read the server's CPU, say), then stops the worker and returns the time
// from its start to the n-th job's start.
func Run[T hopper.Args](ctx context.Context, st hopper.Store, queue string, n, conc int, timeout time.Duration, mark func() error) (time.Duration, error) {
	var done atomic.Int64
	finished := make(chan time.Time, 1)
	w := hopper.NewWorker(st, &hopper.WorkerConfig{Queues: map[string]int{queue: 1}, Concurrency: conc})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[T]) error {
		if done.Add(1) == int64(n) {
			finished <- time.Now()
		}
		return nil
	})
	if err := mark(); err != nil {
		return 0, err
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	start := time.Now()
	errc := make(chan error, 1)
	go func() { errc <- w.Run(wctx) }()
	var end time.Time
	select {
	case end = <-finished:
	case <-time.After(timeout):
		stop()
		<-errc
		return 0, fmt.Errorf("%d of %d jobs ran in %v", done.Load(), n, timeout)
	}
	err := mark()
	stop()
	if werr := <-errc; werr != nil && err == nil {
		err = werr
	}
	return end.Sub(start), err
}
