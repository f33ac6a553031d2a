package hopper_test

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// WaitResult waits for a job enqueued earlier, here by another part of
// the program, and decodes its result into the caller's type.
func ExampleWaitResult() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	info, _ := hopper.Enqueue(ctx, client, Quote{Amount: 10}, &hopper.EnqueueOpts{Retention: hopper.WaitRetention})

	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Quote]) error {
		return hopper.RecordResult(ctx, job.Args.Amount*120/100)
	})
	go w.Run(ctx)

	price, err := hopper.WaitResult[int](ctx, client, info.Queue, info.ID)
	fmt.Println(price, err)
	// Output: 12 <nil>
}

// DecodeResult reads the result of a job record as Client.WaitJob (with
// the job's attempt and end) or the Inspector returns it.
func ExampleDecodeResult() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Quote]) error {
		return hopper.RecordResult(ctx, job.Args.Amount*120/100)
	})
	go w.Run(ctx)

	info, _ := hopper.Enqueue(ctx, client, Quote{Amount: 20}, &hopper.EnqueueOpts{Retention: hopper.WaitRetention})
	rec, err := client.WaitJob(ctx, info.Queue, info.ID)
	if err != nil {
		fmt.Println(err)
		return
	}
	price, err := hopper.DecodeResult[int](rec)
	fmt.Println(price, err, "after", rec.Attempt, "attempt")
	// Output: 24 <nil> after 1 attempt
}
