package hopper_test

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

type Email struct{ To string }

func (Email) Kind() string { return "email" }

// Jobs of one queue run highest priority first, and in the order they
// were enqueued within one priority. Here a password reset, enqueued last,
// jumps the newsletter backlog, and the weekly digest waits for both.
func ExampleEnqueueOpts_priority() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	hopper.Enqueue(ctx, client, Email{To: "digest"}, &hopper.EnqueueOpts{Priority: -1})
	hopper.EnqueueMany(ctx, client, []Email{{To: "newsletter 1"}, {To: "newsletter 2"}}, nil)
	hopper.Enqueue(ctx, client, Email{To: "password reset"}, &hopper.EnqueueOpts{Priority: 2})

	// One slot and no prefetch: the jobs start one by one, in claim order.
	w := hopper.NewWorker(store, &hopper.WorkerConfig{Concurrency: 1, Prefetch: -1})
	done := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Email]) error {
		fmt.Println(job.Args.To, job.Priority)
		if job.Args.To == "digest" {
			close(done)
		}
		return nil
	})
	go w.Run(ctx)
	<-done
	// Output:
	// password reset 2
	// newsletter 1 0
	// newsletter 2 0
	// digest -1
}
