package hopper_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

type Thumbnail struct{ Width int }

func (Thumbnail) Kind() string { return "thumbnail" }

// Every job's moves are events in its queue's stream. A subscriber reads
// them in order, and resumes after a restart from the Pos of the last
// event it handled.
func ExampleClient_Subscribe() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Thumbnail]) error { return nil })
	go w.Run(ctx)

	hopper.Enqueue(ctx, client, Thumbnail{Width: 64}, nil)
	for ev, err := range client.Subscribe(ctx, []string{hopper.DefaultQueue}, &hopper.SubscribeOpts{Start: hopper.FromStart}) {
		if err != nil {
			fmt.Println("error:", err) // ErrEventsLost: events it had not read are gone
			continue
		}
		fmt.Println(ev.Type, ev.Kind, "attempt", ev.Attempt)
		if ev.Type == hopper.EventSucceeded {
			break // ev.Pos is where to resume
		}
	}
	// Output:
	// enqueued thumbnail attempt 0
	// started thumbnail attempt 1
	// succeeded thumbnail attempt 1
}

type Quote struct{ Amount int }

func (Quote) Kind() string { return "quote" }

// EnqueueAndWait is request and response over a queue: it returns the
// result the handler recorded, or why the job died, with the job's ID for
// logs and the Inspector. The context's deadline bounds the whole call.
func ExampleEnqueueAndWait() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Quote]) error {
		return hopper.RecordResult(ctx, job.Args.Amount*120/100)
	})
	go w.Run(ctx)

	reqCtx, done := context.WithTimeout(ctx, 5*time.Second)
	defer done()
	price, job, err := hopper.EnqueueAndWait[int](reqCtx, client, Quote{Amount: 50}, &hopper.EnqueueOpts{ID: "quote-1"})
	fmt.Println(price, err, job.ID)
	// Output: 60 <nil> quote-1
}

type Import struct{ Rows int }

func (Import) Kind() string { return "import" }

// A long job reports how far it is and logs what it does: the store keeps
// both with the job, events carry them, the dashboard's job page shows a
// progress bar and the lines. Reports ride the worker's lease renewals.
func ExampleProgress() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Import]) error {
		for done := 0; done < job.Args.Rows; done += 100 {
			// ... import 100 rows ...
			hopper.Progress(ctx, float64(done+100)*100/float64(job.Args.Rows), map[string]int{"rows": done + 100})
		}
		return hopper.Log(ctx, fmt.Sprintf("imported %d rows", job.Args.Rows))
	})
	go w.Run(ctx)

	info, _ := hopper.Enqueue(ctx, client, Import{Rows: 1000}, &hopper.EnqueueOpts{Retention: time.Hour})
	rec, _ := client.WaitJob(ctx, info.Queue, info.ID)
	fmt.Printf("%.0f%% %s\n", rec.Progress.Percent, rec.Progress.Log[0].Text)
	// Output: 100% imported 1000 rows
}

// Hooks run in the worker's process after the store confirmed an outcome:
// here, an alert when a job used up its retries.
func ExampleHooks() {
	ctx, cancel := context.WithCancel(context.Background())
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Backoff: func(int, error) time.Duration { return 0 },
		Hooks: hopper.Hooks{
			OnDead: func(ctx context.Context, job *hopper.JobRecord, err error) {
				fmt.Printf("alert: %s job died after %d attempts: %v\n", job.Kind, job.Attempt, err)
			},
		},
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Import]) error {
		return fmt.Errorf("database unreachable")
	})
	stopped := make(chan struct{})
	go func() {
		w.Run(ctx)
		close(stopped)
	}()

	info, _ := hopper.Enqueue(ctx, client, Import{}, &hopper.EnqueueOpts{MaxRetries: 2})
	client.WaitJob(ctx, info.Queue, info.ID)
	cancel()
	<-stopped // Run returns after the hooks ran
	// Output: alert: import job died after 3 attempts: database unreachable
}
