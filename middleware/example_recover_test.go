package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
)

type Resize struct{ Image string }

func (Resize) Kind() string { return "resize" }

// Recover replaces the worker's innermost recover to report panics; the
// panicking job fails like any other, with the panic and its stack in its
// error history.
func ExampleRecover() {
	ctx, stop := context.WithCancel(context.Background())
	store := memstore.New(nil)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Recover: middleware.Recover(&middleware.RecoverConfig{
			OnPanic: func(ctx context.Context, job *hopper.JobRecord, p *hopper.PanicError) {
				fmt.Printf("reported: %s job panicked: %v\n", job.Kind, p.Value)
			},
		}),
		Logger: slog.New(slog.DiscardHandler),
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Resize]) error {
		var sizes map[string]int
		sizes[job.Args.Image] = 1 // a bug: the map is nil
		return nil
	})
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()

	info, err := hopper.Enqueue(ctx, hopper.NewClient(store, nil), Resize{Image: "cat.png"}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry})
	if err != nil {
		panic(err)
	}
	var job *hopper.JobRecord
	for job == nil || job.State != hopper.StateGarbage {
		time.Sleep(time.Millisecond) // poll until the job is dead
		if job, err = hopper.NewInspector(store).GetJob(ctx, info.Queue, info.ID); err != nil && !errors.Is(err, hopper.ErrJobNotFound) {
			panic(err)
		}
	}
	last := job.Errors[len(job.Errors)-1]
	fmt.Println("state:", job.State)
	fmt.Println("error:", last.Error)
	fmt.Println("stack recorded:", last.Stack != "")
	stop()
	<-done
	// Output:
	// reported: resize job panicked: assignment to entry in nil map
	// state: garbage
	// error: panic: assignment to entry in nil map
	// stack recorded: true
}
