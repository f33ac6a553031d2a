package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

func ExampleHandle() {
	ctx, cancel := context.WithCancel(context.Background())
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)

	w := hopper.NewWorker(store, &hopper.WorkerConfig{Queues: map[string]int{"mail": 1}, Concurrency: 4})
	done := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		fmt.Printf("to %s: %s (attempt %d)\n", job.Args.To, job.Args.Subject, job.Attempt)
		close(done)
		return nil // ack
	})
	stopped := make(chan error)
	go func() { stopped <- w.Run(ctx) }()

	_, _ = hopper.Enqueue(ctx, client, SendEmail{To: "a@example.com", Subject: "hello"}, &hopper.EnqueueOpts{Queue: "mail"})
	<-done
	cancel()               // graceful shutdown
	fmt.Println(<-stopped) // Run returns nil after a shutdown
	// Output:
	// to a@example.com: hello (attempt 1)
	// <nil>
}

func ExamplePermanent() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		// No point retrying a malformed address: straight to garbage.
		return hopper.Permanent(errors.New("invalid address"))
	})
	go w.Run(ctx)

	info, _ := hopper.Enqueue(ctx, client, SendEmail{To: "not-an-address"}, nil)
	rec := waitFor(store, info.ID, hopper.StateGarbage)
	fmt.Println(rec.State, rec.Attempt, rec.Errors[0].Error)
	// Output: garbage 1 permanent: invalid address
}

func ExampleSnooze() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	runs := 0
	done := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		runs++
		if runs < 3 {
			// The mail server asked us to slow down: try again shortly,
			// without counting an attempt or recording an error.
			return hopper.Snooze(10 * time.Millisecond)
		}
		fmt.Println("sent on run", runs, "attempt", job.Attempt)
		close(done)
		return nil
	})
	go w.Run(ctx)
	_, _ = hopper.Enqueue(ctx, client, SendEmail{To: "a@example.com"}, nil)
	<-done
	// Output: sent on run 3 attempt 1
}

func ExampleRateLimited() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	runs := 0
	done := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		runs++
		if runs == 1 {
			// The mail API answered 429 with Retry-After: 20ms. Every
			// job of this queue would get the same answer: hold the
			// queue, and run this job again when the hold ends.
			return hopper.RateLimited(20 * time.Millisecond)
		}
		fmt.Println("sent on run", runs, "attempt", job.Attempt)
		close(done)
		return nil
	})
	go w.Run(ctx)
	_, _ = hopper.Enqueue(ctx, client, SendEmail{To: "a@example.com"}, nil)
	<-done
	// Output: sent on run 2 attempt 1
}

func ExampleWorker_Use() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	done := make(chan struct{})
	trace := func(name string) hopper.Middleware {
		return func(next hopper.Handler) hopper.Handler {
			return hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error {
				fmt.Println(name, "start")
				err := next.Handle(ctx, job)
				fmt.Println(name, "end")
				if name == "outer" {
					close(done)
				}
				return err
			})
		}
	}
	w.Use(trace("outer"), trace("inner")) // the first is outermost
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		fmt.Println("handler")
		return nil
	})
	go w.Run(ctx)
	_, _ = hopper.Enqueue(ctx, client, SendEmail{}, nil)
	<-done
	// Output:
	// outer start
	// inner start
	// handler
	// inner end
	// outer end
}

// waitFor polls the store until the job reaches state (an example helper).
func waitFor(s hopper.Store, id string, state hopper.JobState) *hopper.JobRecord {
	for {
		rec, err := hopper.NewInspector(s).GetJob(context.Background(), hopper.DefaultQueue, id)
		if err == nil && rec.State == state {
			return rec
		}
		time.Sleep(time.Millisecond)
	}
}
