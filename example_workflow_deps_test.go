package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

type Price struct{ Shop string }
type Cheapest struct{}

func (Price) Kind() string    { return "shop.price" }
func (Cheapest) Kind() string { return "shop.cheapest" }

// A fan-in reads what all its dependencies recorded in one store call,
// however many there are. Under AnyOutcome it gets the results it can and
// an error naming each task that has none.
func ExampleTaskResults() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{Concurrency: 4})
	prices := map[string]int{"north": 120, "south": 95, "east": 101}
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Price]) error {
		p, ok := prices[job.Args.Shop]
		if !ok {
			return hopper.Permanent(errors.New("shop closed"))
		}
		return hopper.RecordResult(ctx, p)
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Cheapest]) error {
		got, err := hopper.TaskResults[int](ctx) // every dependency, one store call
		if errors.Is(err, hopper.ErrNoResult) {
			fmt.Println("some shops did not answer")
		}
		best := ""
		for _, s := range slices.Sorted(maps.Keys(got)) {
			if best == "" || got[s] < got[best] {
				best = s
			}
		}
		fmt.Println(len(got), "prices; cheapest:", best, got[best])
		return nil
	})
	go w.Run(ctx)

	wf := hopper.NewWorkflow("compare prices", nil)
	cheapest := hopper.AddTask(wf, "cheapest", Cheapest{}, nil).AnyOutcome()
	for _, shop := range []string{"north", "south", "east", "west"} {
		cheapest.After(hopper.AddTask(wf, "price-"+shop, Price{Shop: shop}, &hopper.TaskOpts{MaxRetries: hopper.NoRetry}))
	}
	info, _ := hopper.EnqueueWorkflow(ctx, client, wf)
	rec, _ := client.WaitWorkflow(ctx, info.ID)
	fmt.Println(rec.State)
	// Output:
	// some shops did not answer
	// 3 prices; cheapest: price-south 95
	// failed
}

type Crawl struct{ Pages int }
type Page struct{ N int }
type Index struct{}

func (Crawl) Kind() string { return "site.crawl" }
func (Page) Kind() string  { return "site.page" }
func (Index) Kind() string { return "site.index" }

// A task lists its own dependencies, those a running task added with
// Before included, in one store call.
func ExampleTaskDeps() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := memstore.New(nil)
	client := hopper.NewClient(store, nil)
	w := hopper.NewWorker(store, nil)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Crawl]) error {
		more := hopper.MoreTasks(ctx)
		for i := range job.Args.Pages {
			hopper.AddTask(more, fmt.Sprintf("page-%d", i), Page{N: i}, nil).Before("index")
		}
		return hopper.EnqueueTasks(ctx, client, more)
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Page]) error { return nil })
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Index]) error {
		deps, err := hopper.TaskDeps(ctx)
		for _, d := range deps {
			fmt.Println(d.Name, d.State)
		}
		return err
	})
	go w.Run(ctx)

	wf := hopper.NewWorkflow("crawl example.com", nil)
	hopper.AddTask(wf, "index", Index{}, nil).After(hopper.AddTask(wf, "crawl", Crawl{Pages: 2}, nil))
	info, _ := hopper.EnqueueWorkflow(ctx, client, wf)
	rec, _ := client.WaitWorkflow(ctx, info.ID)
	fmt.Println(rec.State)
	// Output:
	// crawl succeeded
	// page-0 succeeded
	// page-1 succeeded
	// succeeded
}
