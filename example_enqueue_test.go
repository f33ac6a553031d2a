package hopper_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

type SendEmail struct {
	To      string
	Subject string
}

func (SendEmail) Kind() string { return "send_email" }

func ExampleEnqueue() {
	ctx := context.Background()
	client := hopper.NewClient(memstore.New(nil), nil)

	now, _ := hopper.Enqueue(ctx, client, SendEmail{To: "a@example.com"}, nil)
	later, _ := hopper.Enqueue(ctx, client, SendEmail{To: "b@example.com"}, &hopper.EnqueueOpts{
		Queue: "mail",
		Delay: time.Hour,
	})
	// An ID makes the enqueue idempotent: the second call adds nothing.
	once, _ := hopper.Enqueue(ctx, client, SendEmail{To: "c@example.com"}, &hopper.EnqueueOpts{ID: "welcome-c"})
	again, _ := hopper.Enqueue(ctx, client, SendEmail{To: "c@example.com"}, &hopper.EnqueueOpts{ID: "welcome-c"})

	fmt.Println(now.Queue, now.Kind, now.State)
	fmt.Println(later.Queue, later.State)
	fmt.Println(once.Duplicate, again.Duplicate, again.ID)
	// Output:
	// default send_email ready
	// mail pending
	// false true welcome-c
}

func ExampleEnqueueMany() {
	ctx := context.Background()
	client := hopper.NewClient(memstore.New(nil), nil)

	emails := []SendEmail{{To: "a@example.com"}, {To: "b@example.com"}, {To: "c@example.com"}}
	infos, err := hopper.EnqueueMany(ctx, client, emails, &hopper.EnqueueOpts{Queue: "mail"})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(infos), infos[0].State)
	// Output: 3 ready
}

func ExampleUniqueOpts() {
	ctx := context.Background()
	client := hopper.NewClient(memstore.New(nil), nil)

	// Unique by kind and args while the first job waits or runs.
	opts := &hopper.EnqueueOpts{Unique: &hopper.UniqueOpts{}}
	first, _ := hopper.Enqueue(ctx, client, SendEmail{To: "a@example.com", Subject: "digest"}, opts)
	second, _ := hopper.Enqueue(ctx, client, SendEmail{To: "a@example.com", Subject: "digest"}, opts)
	fmt.Println(first.Duplicate, second.Duplicate, second.ID == first.ID)
	// Output: false true true
}

// Debounce: a burst of edits to one document runs the reindex job once,
// with the last edit, 200 ms after it.
func ExampleReplace() {
	ctx := context.Background()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	opts := &hopper.EnqueueOpts{
		Unique:  &hopper.UniqueOpts{Key: "reindex:doc-7"},
		Delay:   200 * time.Millisecond,
		Replace: hopper.ReplaceArgs | hopper.ReplaceRunAt,
	}
	var first *hopper.JobInfo
	for rev := 1; rev <= 3; rev++ {
		info, _ := hopper.Enqueue(ctx, client, SendEmail{To: "indexer", Subject: fmt.Sprint("revision ", rev)}, opts)
		if first == nil {
			first = info
		}
		fmt.Println(info.ID == first.ID, info.Duplicate, info.Replaced, info.State)
	}
	w := hopper.NewWorker(store, nil)
	done := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendEmail]) error {
		fmt.Println("reindexed", job.Args.Subject)
		close(done)
		return nil
	})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go w.Run(ctx)
	<-done
	// Output:
	// true false false pending
	// true true true pending
	// true true true pending
	// reindexed revision 3
}

// An enqueue whose reply was lost may have stored its job: sent again
// with the same ID, the job is stored once (a duplicate tells it was).
func ExampleMayBeStored() {
	ctx := context.Background()
	client := hopper.NewClient(memstore.New(nil), nil)
	opts := &hopper.EnqueueOpts{ID: "invoice-42"} // an ID of the caller's: the retry names the same job
	info, err := hopper.Enqueue(ctx, client, SendEmail{To: "d@example.com"}, opts)
	for try := 0; err != nil && hopper.MayBeStored(err) && try < 3; try++ {
		info, err = hopper.Enqueue(ctx, client, SendEmail{To: "d@example.com"}, opts)
	}
	fmt.Println(info.ID, err)
	// Output: invoice-42 <nil>
}
