package hopper_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

type Resize struct{ URL string }

func (Resize) Kind() string { return "resize" }

// A handler can record a small result; with a retention, the finished job
// and its result stay in done for inspection.
func ExampleRecordResult() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Resize]) error {
		return hopper.RecordResult(ctx, map[string]int{"width": 320, "height": 200})
	})
	go w.Run(ctx)

	info, _ := hopper.Enqueue(ctx, client, Resize{URL: "https://example.com/a.png"}, &hopper.EnqueueOpts{Retention: time.Hour})
	rec := waitFor(store, info.ID, hopper.StateDone)
	fmt.Println(rec.State, len(rec.Result) > 0)
	// Output: done true
}

// A job can be cancelled from any process: a waiting one goes straight to
// garbage; a running one has its context cancelled and is not retried.
func Example_cancel() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	started := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Resize]) error {
		close(started)
		<-ctx.Done() // a long job that honours its context
		fmt.Println("handler stopped:", context.Cause(ctx))
		return ctx.Err()
	})
	go w.Run(ctx)

	info, _ := hopper.Enqueue(ctx, client, Resize{}, nil)
	<-started
	was, _ := hopper.NewInspector(store).CancelJob(ctx, hopper.DefaultQueue, info.ID)
	rec := waitFor(store, info.ID, hopper.StateGarbage)
	fmt.Println("was", was, "now", rec.State, "cancelled:", rec.Cancelled)
	// Output:
	// handler stopped: hopper: job cancelled
	// was unack now garbage cancelled: true
}

// Queues can be weighted (each claim round favours a queue in proportion to
// its weight) or in strict priority; one queue can be capped within a
// worker.
func ExampleWorkerConfig() {
	weighted := &hopper.WorkerConfig{
		Queues:      map[string]int{"critical": 6, "default": 3, "low": 1},
		Concurrency: 20,
		// At most 2 of the 20 slots run reports at once in this worker.
		QueueConcurrency: map[string]int{"low": 2},
	}
	strict := &hopper.WorkerConfig{
		Queues:         map[string]int{"critical": 2, "default": 1},
		StrictPriority: true, // default only runs when critical is empty
	}
	fmt.Println(len(weighted.Queues), strict.StrictPriority)
	// Output: 3 true
}

// Queue settings are shared by every process through the store: pause a
// queue, cap how many of its jobs run at once across all workers, limit how
// many start per period, keep finished jobs for a while.
func ExampleQueueConfig() {
	ctx := context.Background()
	store := memstore.New(nil)
	err := hopper.NewInspector(store).SetQueueConfig(ctx, "emails", hopper.QueueConfig{
		MaxRunning: 3,              // across all workers
		RateLimit:  50,             // jobs started...
		RatePeriod: time.Second,    // ...per second, across all workers
		Retention:  24 * time.Hour, // acked jobs stay in done for a day
	})
	if err != nil {
		panic(err)
	}
	st, _ := hopper.NewInspector(store).GetQueueStats(ctx, "emails")
	fmt.Println(st.Config.MaxRunning, st.Config.RateLimit, st.Config.Paused)
	// Output: 3 50 false
}
