package sdktest_test

import (
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/middleware"
)

// A workflow is one trace: every task's process span is in the enqueuing
// request's trace, and a task's span links to its dependencies' creation
// spans (the parents of their process spans).
func TestTracingWorkflowIsOneTraceWithDependencyLinks(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		rec, tp, opts := newTracerProvider(t)
		c := hopper.NewClient(s, nil)
		c.Use(middleware.TracingEnqueue(opts))
		w := hopper.NewWorker(s, testConfig())
		w.Use(middleware.Tracing(opts))
		hopper.Handle(w, echoHandler)
		startWorker(t, w)

		ctx, request := tp.Tracer("test").Start(t.Context(), "request")
		wf := hopper.NewWorkflow("traced", nil)
		a := hopper.AddTask(wf, "a", Echo{N: 1}, nil)
		b := hopper.AddTask(wf, "b", Echo{N: 2}, nil)
		hopper.AddTask(wf, "join", Echo{N: 3}, nil).After(a, b)
		info, err := hopper.EnqueueWorkflow(ctx, c, wf)
		request.End()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitWorkflow(t.Context(), info.ID); err != nil {
			t.Fatal(err)
		}
		process := waitSpans(t, rec, "process default", 3)
		creates := spansNamed(rec, "create default")
		if len(creates) != 3 {
			t.Fatalf("%d create spans, want one per task", len(creates))
		}
		creator := map[trace.SpanID]bool{}
		for _, c := range creates {
			creator[c.SpanContext().SpanID()] = true
		}
		traceID := request.SpanContext().TraceID()
		var joinLinks int
		for _, p := range process {
			if p.SpanContext().TraceID() != traceID {
				t.Errorf("process span of %v in trace %s, want the request's %s", p.Attributes(), p.SpanContext().TraceID(), traceID)
			}
			deps := 0
			for _, l := range p.Links() {
				if creator[l.SpanContext.SpanID()] && l.SpanContext.SpanID() != p.Parent().SpanID() {
					deps++
				}
			}
			if deps > 0 {
				joinLinks = deps
			}
		}
		if joinLinks != 2 {
			t.Errorf("the join's span links to %d dependency spans, want 2", joinLinks)
		}
	})
}
