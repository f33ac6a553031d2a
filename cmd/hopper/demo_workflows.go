package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
)

// The demo's workflows, so the dashboard shows some out of the box: every
// few seconds, in turn, an ETL chain (extract, transform, load, then a
// report) and an import as a fan-out and fan-in (split, ten chunks in
// parallel, merge), whose chunk 7 fails now and then: the merge is then
// skipped and the workflow fails, while the notification, which runs
// whatever the outcome, still goes out.

// ETLStep is one step of the ETL chain; each records how many rows it
// handled, and the next reads it.
type ETLStep struct {
	Step    string `msgpack:"step"`
	Dataset string `msgpack:"dataset"`
}

// Kind implements hopper.Args.
func (ETLStep) Kind() string { return "etl_step" }

// ImportChunk is one chunk of the import's fan-out.
type ImportChunk struct {
	Import string `msgpack:"import"`
	Chunk  int    `msgpack:"chunk"`
}

// Kind implements hopper.Args.
func (ImportChunk) Kind() string { return "import_chunk" }

// demoChunks is the width of the import's fan-out; demoFlakyChunk fails
// one time in three.
const (
	demoChunks     = 10
	demoFlakyChunk = 7
)

// demoTaskOpts keeps a task's job a while after it succeeds, so its page
// can be opened from the workflow's.
func demoTaskOpts(queue string) *hopper.TaskOpts {
	return &hopper.TaskOpts{Queue: queue, Retention: 10 * time.Minute, MaxRetries: 1}
}

// registerDemoWorkflowHandlers registers the handlers of the workflows'
// tasks.
func registerDemoWorkflowHandlers(w *hopper.Worker) {
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[ETLStep]) error {
		work(ctx, 100*time.Millisecond, 600*time.Millisecond)
		rows := 1000 + rand.IntN(9000)
		switch j.Args.Step {
		case "transform", "load", "report", "merge":
			// Steps after the first carry on what the step before counted.
			if prev, err := hopper.TaskResult[int](ctx, previousStep[j.Args.Step]); err == nil {
				rows = prev
			}
		}
		return hopper.RecordResult(ctx, rows)
	})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[ImportChunk]) error {
		work(ctx, 200*time.Millisecond, 1500*time.Millisecond)
		if j.Args.Chunk == demoFlakyChunk && rand.IntN(3) == 0 {
			return hopper.Permanent(fmt.Errorf("%s chunk %d: malformed row %d", j.Args.Import, j.Args.Chunk, 1+rand.IntN(5000)))
		}
		return hopper.RecordResult(ctx, 500+rand.IntN(500))
	})
}

// previousStep names the step whose result a step reads.
var previousStep = map[string]string{"transform": "extract", "load": "transform", "report": "load", "merge": "split"}

// demoETL is the ETL chain over dataset.
func demoETL(dataset string) *hopper.Workflow {
	wf := hopper.NewWorkflow("nightly etl: "+dataset, nil)
	wf.Chain(
		hopper.AddTask(wf, "extract", ETLStep{Step: "extract", Dataset: dataset}, demoTaskOpts("default")),
		hopper.AddTask(wf, "transform", ETLStep{Step: "transform", Dataset: dataset}, demoTaskOpts("default")),
		hopper.AddTask(wf, "load", ETLStep{Step: "load", Dataset: dataset}, demoTaskOpts("critical")),
		hopper.AddTask(wf, "report", ETLStep{Step: "report", Dataset: dataset}, demoTaskOpts("low")),
	)
	return wf
}

// demoImport is the import's fan-out and fan-in.
func demoImport(name string) *hopper.Workflow {
	wf := hopper.NewWorkflow("import "+name, nil)
	split := hopper.AddTask(wf, "split", ETLStep{Step: "split", Dataset: name}, demoTaskOpts("default"))
	merge := hopper.AddTask(wf, "merge", ETLStep{Step: "merge", Dataset: name}, demoTaskOpts("default"))
	for i := range demoChunks {
		chunk := hopper.AddTask(wf, fmt.Sprintf("chunk-%02d", i), ImportChunk{Import: name, Chunk: i}, demoTaskOpts("low")).After(split)
		merge.After(chunk)
	}
	hopper.AddTask(wf, "notify", SendEmail{To: "ops@example.com", Subject: "import " + name + " finished"}, demoTaskOpts("default")).After(merge).AnyOutcome()
	return wf
}

// produceWorkflows enqueues a demo workflow at once, then one every
// interval, in turn an ETL chain and an import, until ctx is done. On a
// store without workflows it says so once and stops.
func produceWorkflows(ctx context.Context, c *hopper.Client, every time.Duration, n *atomic.Int64, stderr io.Writer) {
	datasets := []string{"orders", "customers", "invoices", "events"}
	t := time.NewTicker(every)
	defer t.Stop()
	for i := 0; ; i++ {
		wf := demoETL(datasets[i/2%len(datasets)])
		if i%2 == 1 {
			wf = demoImport(fmt.Sprintf("batch-%d", i/2+1))
		}
		_, err := hopper.EnqueueWorkflow(ctx, c, wf)
		switch {
		case errors.Is(err, hopper.ErrNotSupported):
			fmt.Fprintln(stderr, "demo: the store runs no workflows; the demo goes on without them")
			return
		case err != nil:
			if ctx.Err() == nil {
				fmt.Fprintln(stderr, "enqueue workflow:", err)
			}
		default:
			n.Add(1)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
