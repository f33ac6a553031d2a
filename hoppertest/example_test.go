package hoppertest_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/hoppertest"
	"github.com/hopperq/hopper/memstore"
)

type SendWelcome struct {
	UserID int
	Email  string
}

func (SendWelcome) Kind() string { return "send_welcome" }

// signup is code under test: it enqueues a welcome email.
func signup(ctx context.Context, c *hopper.Client, id int, email string) error {
	_, err := hopper.Enqueue(ctx, c, SendWelcome{UserID: id, Email: email}, &hopper.EnqueueOpts{Queue: "emails"})
	return err
}

// exampleT stands in for the *testing.T a real test passes.
type exampleT struct{}

func (exampleT) Helper()        {}
func (exampleT) Cleanup(func()) {}
func (exampleT) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// Work runs one job through a handler as a worker would and reports what
// became of it.
func ExampleWork() {
	t := exampleT{} // in a test: t *testing.T
	ctx := context.Background()
	send := func(ctx context.Context, job *hopper.Job[SendWelcome]) error {
		if job.Args.Email == "" {
			return hopper.Permanent(errors.New("no address"))
		}
		return hopper.RecordResult(ctx, "sent to "+job.Args.Email)
	}

	ok := hoppertest.Work(ctx, t, send, SendWelcome{UserID: 1, Email: "ada@example.com"},
		&hoppertest.WorkOpts{Enqueue: &hopper.EnqueueOpts{Retention: time.Hour}})
	fmt.Println(ok.Outcome, ok.Job.State, len(ok.Job.Result) > 0)

	bad := hoppertest.Work(ctx, t, send, SendWelcome{UserID: 2}, nil)
	fmt.Println(bad.Outcome, bad.Job.State, bad.Job.Errors[0].Error)
	// Output:
	// ack done true
	// garbage garbage permanent: no address
}

// Drain runs what a worker would pick up now; with a Clock, delayed jobs
// run once the test moves the clock past their due time.
func ExampleDrain() {
	t := exampleT{}
	ctx := context.Background()
	clock := hoppertest.NewClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	s := memstore.New(&memstore.Config{Clock: clock.Now})
	c := hopper.NewClient(s, nil)
	_ = signup(ctx, c, 1, "ada@example.com")
	_, _ = hopper.Enqueue(ctx, c, SendWelcome{UserID: 2, Email: "bob@example.com"}, &hopper.EnqueueOpts{Queue: "emails", Delay: time.Hour})

	w := hopper.NewWorker(s, &hopper.WorkerConfig{Queues: map[string]int{"emails": 1}})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendWelcome]) error {
		fmt.Println("welcome", job.Args.Email)
		return nil
	})
	fmt.Println("ran", hoppertest.Drain(ctx, t, w, s))
	clock.Advance(time.Hour)
	fmt.Println("ran", hoppertest.Drain(ctx, t, w, s))
	// Output:
	// welcome ada@example.com
	// ran 1
	// welcome bob@example.com
	// ran 1
}

// RequireEnqueued checks that code under test enqueued a job with given
// args.
func ExampleRequireEnqueued() {
	t := exampleT{}
	ctx := context.Background()
	s := memstore.New(nil)
	_ = signup(ctx, hopper.NewClient(s, nil), 7, "ada@example.com")

	job := hoppertest.RequireEnqueued(ctx, t, s, SendWelcome{UserID: 7, Email: "ada@example.com"}, &hoppertest.RequireOpts{Queue: "emails"})
	fmt.Println(job.Kind, job.Queue, job.State)
	// Output: send_welcome emails ready
}

// RequireNotEnqueued checks that code under test did not enqueue a job.
func ExampleRequireNotEnqueued() {
	t := exampleT{}
	ctx := context.Background()
	s := memstore.New(nil)
	_ = signup(ctx, hopper.NewClient(s, nil), 7, "ada@example.com")

	hoppertest.RequireNotEnqueued(ctx, t, s, SendWelcome{UserID: 8, Email: "eve@example.com"}, nil)
	fmt.Println("no welcome for user 8")
	// Output: no welcome for user 8
}
