package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

type Extract struct{ Source string }
type Transform struct{}
type Load struct{ Table string }

func (Extract) Kind() string   { return "etl.extract" }
func (Transform) Kind() string { return "etl.transform" }
func (Load) Kind() string      { return "etl.load" }

// An ETL chain: extract, then transform, then load. Each step reads what
// the step before it recorded. The chain survives any process dying
// between steps: the next step is released by the store, in the same
// bookkeeping as the ack.
func Example_workflowChain() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Extract]) error {
		return hopper.RecordResult(ctx, []string{"ada", "grace", "edsger"})
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Transform]) error {
		rows, err := hopper.TaskResult[[]string](ctx, "extract")
		if err != nil {
			return err
		}
		for i := range rows {
			rows[i] = strings.ToUpper(rows[i])
		}
		return hopper.RecordResult(ctx, rows)
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Load]) error {
		rows, err := hopper.TaskResult[[]string](ctx, "transform")
		fmt.Println("load into", job.Args.Table, rows)
		return err
	})
	go w.Run(ctx)

	wf := hopper.NewWorkflow("nightly etl", nil)
	wf.Chain(
		hopper.AddTask(wf, "extract", Extract{Source: "users.csv"}, nil),
		hopper.AddTask(wf, "transform", Transform{}, nil),
		hopper.AddTask(wf, "load", Load{Table: "users"}, nil),
	)
	info, _ := hopper.EnqueueWorkflow(ctx, client, wf)
	rec, _ := client.WaitWorkflow(ctx, info.ID)
	fmt.Println(rec.State)
	// Output:
	// load into users [ADA GRACE EDSGER]
	// succeeded
}

type Thumb struct {
	Image string
	Width int
}
type Publish struct{ Sizes []int }

func (Thumb) Kind() string   { return "image.thumbnail" }
func (Publish) Kind() string { return "image.publish" }

// Image processing as a fan-out and a fan-in: one thumbnail task per
// size, all in parallel, then one task that waits for all of them and
// reads what each recorded.
func Example_workflowFanOutFanIn() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{Concurrency: 4})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Thumb]) error {
		return hopper.RecordResult(ctx, fmt.Sprintf("%s@%dw", job.Args.Image, job.Args.Width))
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Publish]) error {
		for _, size := range job.Args.Sizes {
			url, err := hopper.TaskResult[string](ctx, fmt.Sprintf("thumb-%d", size))
			if err != nil {
				return err
			}
			fmt.Println("publish", url)
		}
		return nil
	})
	go w.Run(ctx)

	sizes := []int{160, 320, 640}
	wf := hopper.NewWorkflow("thumbnails of cat.png", nil)
	publish := hopper.AddTask(wf, "publish", Publish{Sizes: sizes}, nil)
	for _, size := range sizes {
		thumb := hopper.AddTask(wf, fmt.Sprintf("thumb-%d", size), Thumb{Image: "cat.png", Width: size}, nil)
		publish.After(thumb)
	}
	info, _ := hopper.EnqueueWorkflow(ctx, client, wf)
	rec, _ := client.WaitWorkflow(ctx, info.ID)
	fmt.Println(rec.State, rec.Counts[hopper.TaskSucceeded], "tasks")
	// Output:
	// publish cat.png@160w
	// publish cat.png@320w
	// publish cat.png@640w
	// succeeded 4 tasks
}

type Charge struct{ Customer string }
type BillingReport struct{ Customers []string }

func (Charge) Kind() string        { return "billing.charge" }
func (BillingReport) Kind() string { return "billing.report" }

// A batch with callbacks, as Sidekiq Pro's on_success and on_complete:
// the jobs run in parallel; one callback runs only if all of them
// succeeded, the other once all have finished, whatever the outcome.
func ExampleWorkflow_OnComplete() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Charge]) error {
		if job.Args.Customer == "mallory" {
			return hopper.Permanent(errors.New("card declined"))
		}
		return hopper.RecordResult(ctx, "charged "+job.Args.Customer)
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[BillingReport]) error {
		for _, c := range job.Args.Customers {
			if msg, err := hopper.TaskResult[string](ctx, "charge-"+c); err == nil {
				fmt.Println(msg)
			} else {
				fmt.Println("failed:", c)
			}
		}
		return nil
	})
	go w.Run(ctx)

	customers := []string{"alice", "bob", "mallory"}
	wf := hopper.NewWorkflow("monthly billing", nil)
	var batch []*hopper.Task
	for _, c := range customers {
		batch = append(batch, hopper.AddTask(wf, "charge-"+c, Charge{Customer: c}, &hopper.TaskOpts{MaxRetries: hopper.NoRetry}))
	}
	wf.OnComplete(hopper.AddTask(wf, "report", BillingReport{Customers: customers}, nil), batch...)
	wf.OnSuccess(hopper.AddTask(wf, "thank-you", BillingReport{}, nil), batch...)
	info, _ := hopper.EnqueueWorkflow(ctx, client, wf)
	rec, _ := client.WaitWorkflow(ctx, info.ID)
	fmt.Println(rec.State, "- thank-you was", rec.Counts[hopper.TaskSkipped] == 1)
	// Output:
	// charged alice
	// charged bob
	// failed: mallory
	// failed - thank-you was true
}

type Split struct{ Text string }
type CountWords struct{ Line string }
type Reduce struct{}

func (Split) Kind() string      { return "wc.split" }
func (CountWords) Kind() string { return "wc.count" }
func (Reduce) Kind() string     { return "wc.reduce" }

// A dynamic split/map/reduce: the split task learns how many map tasks
// there are only when it runs, adds them to its own workflow, and makes
// the waiting reduce task wait for every one of them.
func ExampleMoreTasks() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{Concurrency: 4})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Split]) error {
		lines := strings.Split(job.Args.Text, "\n")
		more := hopper.MoreTasks(ctx)
		for i, line := range lines {
			hopper.AddTask(more, fmt.Sprintf("map-%d", i), CountWords{Line: line}, nil).Before("reduce")
		}
		if err := hopper.EnqueueTasks(ctx, client, more); err != nil {
			return err
		}
		return hopper.RecordResult(ctx, len(lines))
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[CountWords]) error {
		return hopper.RecordResult(ctx, len(strings.Fields(job.Args.Line)))
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Reduce]) error {
		n, err := hopper.TaskResult[int](ctx, "split")
		if err != nil {
			return err
		}
		total := 0
		for i := range n {
			words, err := hopper.TaskResult[int](ctx, fmt.Sprintf("map-%d", i))
			if err != nil {
				return err
			}
			total += words
		}
		fmt.Println(n, "lines,", total, "words")
		return nil
	})
	go w.Run(ctx)

	wf := hopper.NewWorkflow("word count", nil)
	split := hopper.AddTask(wf, "split", Split{Text: "the quick brown fox\njumps over\nthe lazy dog"}, nil)
	hopper.AddTask(wf, "reduce", Reduce{}, nil).After(split)
	info, _ := hopper.EnqueueWorkflow(ctx, client, wf)
	rec, _ := client.WaitWorkflow(ctx, info.ID)
	fmt.Println(rec.State, len(rec.Tasks), "tasks")
	// Output:
	// 3 lines, 9 words
	// succeeded 5 tasks
}
