package hopper_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/vmihailenco/msgpack/v5"
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
	req := hopper.SearchRequest{
		Queue: "default", State: hopper.StateReady, Kind: "invoice", Text: "acme",
		Match: func(j *hopper.JobRecord) bool {
			var a Invoice
			return msgpack.Unmarshal(j.Args, &a) == nil && strings.HasPrefix(a.Customer, "acme")
		},
	}
	for {
		page, err := ins.SearchJobs(ctx, req)
		if err != nil {
			panic(err)
		}
		for _, j := range page.Jobs {
			var a Invoice
			if err := msgpack.Unmarshal(j.Args, &a); err != nil {
				panic(err)
			}
			fmt.Println(a.Customer)
		}
		if page.Done() {
			fmt.Printf("searched %d jobs\n", page.Total)
			break
		}
		req.From = page.Next
	}
	// Output:
	// acme
	// acme-east
	// searched 4 jobs
}

// Workers record how long their handlers ran (a store call a minute, and
// one when they stop); the Inspector gives percentiles per kind.
func ExampleInspector_KindDurations() {
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
	kinds, err := hopper.NewInspector(s).KindDurations(ctx, "default", time.Time{})
	if err != nil {
		panic(err)
	}
	for _, k := range kinds {
		fmt.Printf("%s: %d runs, p99 under %v: %v\n", k.Kind, k.Count, time.Second, k.P99 < time.Second)
	}
	// Output:
	// invoice: 3 runs, p99 under 1s: true
}
