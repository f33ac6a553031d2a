package hopper_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// Invoice is the args of an example job.
type Invoice struct{ Customer string }

func (Invoice) Kind() string { return "invoice" }

// A search goes through a state a stretch per call: each call answers
// within about MaxTime with what it found, and Next says where to go on.
// Text lets the store skip jobs that cannot match; Match is the exact
// check.
func ExampleInspector_SearchJobs() {
	ctx := context.Background()
	s := memstore.New(nil)
	c := hopper.NewClient(s, nil)
	for _, who := range []string{"acme", "globex", "initech", "acme-east"} {
		if _, err := hopper.Enqueue(ctx, c, Invoice{Customer: who}, nil); err != nil {
			panic(err)
		}
	}
	ins := hopper.NewInspector(s)
	req := hopper.SearchJobsOpts{
		Queue: "default", State: hopper.StateReady, Kind: "invoice", Text: "acme",
		Match: func(j *hopper.JobRecord) bool {
			a, err := hopper.DecodeArgs[Invoice](j)
			return err == nil && strings.HasPrefix(a.Customer, "acme")
		},
	}
	for {
		page, err := ins.SearchJobs(ctx, req)
		if err != nil {
			panic(err)
		}
		for _, j := range page.Jobs {
			a, err := hopper.DecodeArgs[Invoice](j)
			if err != nil {
				panic(err)
			}
			fmt.Println(a.Customer)
		}
		if page.Done() {
			fmt.Printf("searched %d jobs\n", page.Total)
			break
		}
		req.From, req.ByKind = page.Next, page.ByKind
	}
	// Output:
	// acme
	// acme-east
	// searched 4 jobs
}

// Refund is the args of an example job of a rare kind.
type Refund struct{ Invoice int }

func (Refund) Kind() string { return "refund" }

// With KindIndex a queue keeps an index of its jobs by kind: a search by
// kind looks at the jobs of that kind only, here 3 among 10,003, rather
// than at the whole state.
func ExampleQueueConfig_kindIndex() {
	ctx := context.Background()
	s := memstore.New(nil)
	ins := hopper.NewInspector(s)
	if err := ins.SetQueueConfig(ctx, "billing", hopper.QueueConfig{KindIndex: true}); err != nil {
		panic(err)
	}
	c := hopper.NewClient(s, nil)
	opts := &hopper.EnqueueOpts{Queue: "billing"}
	for i := range 10_000 {
		if _, err := hopper.Enqueue(ctx, c, Invoice{Customer: fmt.Sprint("customer", i)}, opts); err != nil {
			panic(err)
		}
		if i%4000 == 0 {
			if _, err := hopper.Enqueue(ctx, c, Refund{Invoice: i}, opts); err != nil {
				panic(err)
			}
		}
	}
	page, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: "billing", State: hopper.StateReady, Kind: "refund"})
	if err != nil {
		panic(err)
	}
	for _, j := range page.Jobs {
		r, err := hopper.DecodeArgs[Refund](j)
		if err != nil {
			panic(err)
		}
		fmt.Println("refund of invoice", r.Invoice)
	}
	fmt.Printf("examined %d of the queue's %d refund jobs (by kind: %v), done: %v\n", page.Next-page.From, page.Total, page.ByKind, page.Done())
	// Output:
	// refund of invoice 0
	// refund of invoice 4000
	// refund of invoice 8000
	// examined 3 of the queue's 3 refund jobs (by kind: true), done: true
}

// Workers record how long their handlers ran (a store call a minute, and
// one when they stop); the Inspector gives percentiles per kind.
func ExampleInspector_GetKindDurations() {
	ctx := context.Background()
	s := memstore.New(nil)
	c := hopper.NewClient(s, nil)
	for _, who := range []string{"acme", "globex", "initech"} {
		if _, err := hopper.Enqueue(ctx, c, Invoice{Customer: who}, nil); err != nil {
			panic(err)
		}
	}
	w := hopper.NewWorker(s, nil)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Invoice]) error { return nil })
	if _, err := w.Drain(ctx); err != nil {
		panic(err)
	}
	kinds, err := hopper.NewInspector(s).GetKindDurations(ctx, "default", time.Time{})
	if err != nil {
		panic(err)
	}
	for _, k := range kinds {
		fmt.Printf("%s: %d runs, p99 under %v: %v\n", k.Kind, k.Count, time.Second, k.P99 < time.Second)
	}
	// Output:
	// invoice: 3 runs, p99 under 1s: true
}
