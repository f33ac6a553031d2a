package sdktest_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/middleware"
)

// Attribute keys of the messaging conventions, spelled out so that the
// tests check the names, not the constants.
const (
	kSystem     = attribute.Key("messaging.system")
	kOpType     = attribute.Key("messaging.operation.type")
	kOpName     = attribute.Key("messaging.operation.name")
	kDest       = attribute.Key("messaging.destination.name")
	kMsgID      = attribute.Key("messaging.message.id")
	kBodySize   = attribute.Key("messaging.message.body.size")
	kBatchCount = attribute.Key("messaging.batch.message_count")
	kErrorType  = attribute.Key("error.type")
	kKind       = attribute.Key("hopper.job.kind")
	kAttempt    = attribute.Key("hopper.job.attempt")
	kOutcome    = attribute.Key("hopper.job.outcome")
	kState      = attribute.Key("hopper.job.state")
	kDuplicate  = attribute.Key("hopper.job.duplicate")
)

func TestTracingOneTraceFromEnqueueToHandler(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		rec, tp, opts := newTracerProvider(t)
		c := hopper.NewClient(s, nil)
		c.Use(middleware.TracingEnqueue(opts))
		w := hopper.NewWorker(s, testConfig())
		w.Use(middleware.Tracing(opts))
		inHandler := make(chan trace.SpanContext, 1)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			inHandler <- trace.SpanContextFromContext(ctx)
			return nil
		})
		startWorker(t, w)

		ctx, request := tp.Tracer("test").Start(t.Context(), "request")
		info, err := hopper.Enqueue(ctx, c, Echo{N: 1}, nil)
		request.End()
		if err != nil {
			t.Fatal(err)
		}
		handlerSC := testutil.Receive(t, inHandler, 10*time.Second, "the handler to run")
		send := waitSpans(t, rec, "send default", 1)[0]
		process := waitSpans(t, rec, "process default", 1)[0]

		traceID := request.SpanContext().TraceID()
		for _, sp := range []sdktrace.ReadOnlySpan{send, process} {
			if sp.SpanContext().TraceID() != traceID {
				t.Errorf("span %q in trace %s, want the enqueuing request's %s", sp.Name(), sp.SpanContext().TraceID(), traceID)
			}
		}
		if handlerSC.TraceID() != traceID || handlerSC.SpanID() != process.SpanContext().SpanID() {
			t.Errorf("handler context carries span %s/%s, want the process span %s/%s", handlerSC.TraceID(), handlerSC.SpanID(), traceID, process.SpanContext().SpanID())
		}
		if send.Parent().SpanID() != request.SpanContext().SpanID() || send.SpanKind() != trace.SpanKindProducer {
			t.Errorf("send span kind %v parent %s, want PRODUCER child of the request", send.SpanKind(), send.Parent().SpanID())
		}
		if process.Parent().SpanID() != send.SpanContext().SpanID() || !process.Parent().IsRemote() || process.SpanKind() != trace.SpanKindConsumer {
			t.Errorf("process span kind %v parent %s, want CONSUMER child of the send span %s", process.SpanKind(), process.Parent().SpanID(), send.SpanContext().SpanID())
		}
		if l := process.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != send.SpanContext().SpanID() {
			t.Errorf("process span links %v, want one link to the send span", l)
		}
		checkAttrs(t, "send span", send.Attributes(), map[attribute.Key]any{
			kSystem: "hopper", kOpType: "send", kOpName: "send", kDest: "default",
			kMsgID: info.ID, kKind: "echo", kBatchCount: nil, kDuplicate: nil,
		})
		checkAttrs(t, "process span", process.Attributes(), map[attribute.Key]any{
			kSystem: "hopper", kOpType: "process", kOpName: "process", kDest: "default",
			kMsgID: info.ID, kKind: "echo", kAttempt: int64(1), kOutcome: "ack", kErrorType: nil,
		})
		if v, ok := attrs(process.Attributes())[kBodySize]; !ok || v.AsInt64() <= 0 {
			t.Errorf("process span body size %v, want the args' size", v.Emit())
		}
		if process.Status().Code != codes.Unset {
			t.Errorf("process span status %v, want unset for an ack", process.Status())
		}
	})
}

func TestTracingRecordsErrorsAndOutcomes(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		rec, _, opts := newTracerProvider(t)
		c := hopper.NewClient(s, nil)
		c.Use(middleware.TracingEnqueue(opts))
		w := hopper.NewWorker(s, testConfig())
		w.Use(middleware.Tracing(opts))
		hopper.Handle(w, echoHandler)
		var snoozed atomic.Bool
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Other]) error {
			switch j.Args.Mode {
			case "permanent":
				return hopper.Permanent(errors.New("bad input"))
			case "panic":
				panic("kaboom")
			case "snooze":
				if snoozed.CompareAndSwap(false, true) {
					return hopper.Snooze(0)
				}
				return nil
			}
			return nil
		})
		startWorker(t, w)
		ctx := t.Context()

		// Fails on attempt 1, acks on attempt 2: two process spans, both
		// children of the job's one send span.
		retried, err := hopper.Enqueue(ctx, c, Echo{Fail: []int{1}}, &hopper.EnqueueOpts{MaxRetries: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"permanent", "panic"} {
			if _, err := hopper.Enqueue(ctx, c, Other{Mode: mode}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry}); err != nil {
				t.Fatal(err)
			}
		}
		spans := waitSpans(t, rec, "process default", 4)
		byJob := map[string][]sdktrace.ReadOnlySpan{}
		for _, sp := range spans {
			id := attrs(sp.Attributes())[kMsgID].AsString()
			byJob[id] = append(byJob[id], sp)
		}
		r := byJob[retried.ID]
		if len(r) != 2 {
			t.Fatalf("%d process spans for the retried job, want 2", len(r))
		}
		checkAttrs(t, "failed attempt", r[0].Attributes(), map[attribute.Key]any{kAttempt: int64(1), kOutcome: "retry", kErrorType: "planned"})
		checkAttrs(t, "second attempt", r[1].Attributes(), map[attribute.Key]any{kAttempt: int64(2), kOutcome: "ack", kErrorType: nil})
		if r[0].Status().Code != codes.Error || r[0].Status().Description != "planned failure" || !hasException(r[0], "planned failure", false) {
			t.Errorf("failed attempt: status %v events %v, want Error with the error recorded", r[0].Status(), r[0].Events())
		}
		if r[1].Status().Code != codes.Unset || len(r[1].Events()) != 0 {
			t.Errorf("second attempt: status %v events %v, want no error", r[1].Status(), r[1].Events())
		}
		if r[0].Parent().SpanID() != r[1].Parent().SpanID() || r[0].SpanContext().TraceID() != r[1].SpanContext().TraceID() {
			t.Errorf("the two attempts have parents %s and %s, want the same send span", r[0].Parent().SpanID(), r[1].Parent().SpanID())
		}
		for _, sp := range spans {
			a := attrs(sp.Attributes())
			if a[kKind].AsString() != "other" {
				continue
			}
			switch a[kOutcome].AsString() {
			case "garbage":
				et := a[kErrorType].AsString()
				if et != "panic" && et != "*errors.errorString" {
					t.Errorf("garbage span error.type %q, want panic or *errors.errorString", et)
				}
				if sp.Status().Code != codes.Error || !hasException(sp, "", et == "panic") {
					t.Errorf("garbage span (%s): status %v events %v, want Error with the exception (and stack for a panic)", et, sp.Status(), sp.Events())
				}
			default:
				t.Errorf("span outcome %v, want garbage", a[kOutcome].Emit())
			}
		}

		// Snooze: outcome recorded, no error.
		rec.Reset()
		if _, err := hopper.Enqueue(ctx, c, Other{Mode: "snooze"}, nil); err != nil {
			t.Fatal(err)
		}
		sn := waitSpans(t, rec, "process default", 2)
		checkAttrs(t, "snoozed attempt", sn[0].Attributes(), map[attribute.Key]any{kOutcome: "snooze", kErrorType: nil, kAttempt: int64(1)})
		checkAttrs(t, "attempt after the snooze", sn[1].Attributes(), map[attribute.Key]any{kOutcome: "ack", kAttempt: int64(1)})
		if sn[0].Status().Code != codes.Unset || len(sn[0].Events()) != 0 {
			t.Errorf("snoozed attempt: status %v events %v, want no error", sn[0].Status(), sn[0].Events())
		}
	})
}

// Other is a second job kind whose handler does what Mode says.
type Other struct{ Mode string }

func (Other) Kind() string { return "other" }

// hasException reports whether span has an exception event whose message
// contains msg, with a stack trace when stack is set.
func hasException(span sdktrace.ReadOnlySpan, msg string, stack bool) bool {
	for _, e := range span.Events() {
		if e.Name != "exception" {
			continue
		}
		a := attrs(e.Attributes)
		if !strings.Contains(a["exception.message"].AsString(), msg) {
			continue
		}
		if stack && !strings.Contains(a["exception.stacktrace"].AsString(), "tracing_test.go") {
			continue
		}
		return true
	}
	return false
}

func TestTracingEnqueueManyCreatesSpanPerJob(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		rec, tp, opts := newTracerProvider(t)
		c := hopper.NewClient(s, nil)
		c.Use(middleware.TracingEnqueue(opts))
		w := hopper.NewWorker(s, testConfig())
		w.Use(middleware.Tracing(opts))
		hopper.Handle(w, echoHandler)
		startWorker(t, w)

		ctx, request := tp.Tracer("test").Start(t.Context(), "request")
		shared := map[string]string{"user": "u1"} // one Meta map for all three jobs
		infos, err := hopper.EnqueueMany(ctx, c, []Echo{{N: 1}, {N: 2}, {N: 3}}, &hopper.EnqueueOpts{Meta: shared})
		request.End()
		if err != nil {
			t.Fatal(err)
		}
		creates := waitSpans(t, rec, "create default", 3)
		send := waitSpans(t, rec, "send default", 1)[0]
		processes := waitSpans(t, rec, "process default", 3)
		traceID := request.SpanContext().TraceID()

		createOf := map[string]sdktrace.ReadOnlySpan{}
		for _, cr := range creates {
			createOf[attrs(cr.Attributes())[kMsgID].AsString()] = cr
			if cr.SpanKind() != trace.SpanKindProducer || cr.Parent().SpanID() != request.SpanContext().SpanID() {
				t.Errorf("create span kind %v parent %s, want PRODUCER child of the request", cr.SpanKind(), cr.Parent().SpanID())
			}
			checkAttrs(t, "create span", cr.Attributes(), map[attribute.Key]any{kSystem: "hopper", kOpType: "create", kOpName: "create", kDest: "default", kKind: "echo"})
		}
		checkAttrs(t, "send span", send.Attributes(), map[attribute.Key]any{kSystem: "hopper", kOpType: "send", kOpName: "send", kDest: "default", kBatchCount: int64(3), kMsgID: nil})
		if send.SpanKind() != trace.SpanKindClient || send.Parent().SpanID() != request.SpanContext().SpanID() || len(send.Links()) != 3 {
			t.Errorf("send span kind %v parent %s with %d links, want CLIENT child of the request linking the 3 create spans", send.SpanKind(), send.Parent().SpanID(), len(send.Links()))
		}
		for _, l := range send.Links() {
			id := attrs(l.Attributes)[kMsgID].AsString()
			if cr := createOf[id]; cr == nil || cr.SpanContext().SpanID() != l.SpanContext.SpanID() {
				t.Errorf("send span links %s for job %q, want that job's create span", l.SpanContext.SpanID(), id)
			}
		}
		for _, p := range processes {
			id := attrs(p.Attributes())[kMsgID].AsString()
			cr := createOf[id]
			if cr == nil || p.Parent().SpanID() != cr.SpanContext().SpanID() || p.SpanContext().TraceID() != traceID {
				t.Errorf("process span of job %q has parent %s in trace %s, want its create span in the request's trace", id, p.Parent().SpanID(), p.SpanContext().TraceID())
			}
		}
		if len(createOf) != len(infos) {
			t.Errorf("%d distinct create spans for %d jobs", len(createOf), len(infos))
		}
		if len(shared) != 1 {
			t.Errorf("the caller's Meta map was changed: %v", shared)
		}
	})
}

func TestTracingEnqueueKeepsCustomCreationContext(t *testing.T) {
	rec, tp, opts := newTracerProvider(t)
	ctx := t.Context()
	_, origin := tp.Tracer("test").Start(ctx, "origin")
	origin.End()
	meta := map[string]string{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpan(ctx, origin), middleware.MetaCarrier(meta))
	want := meta["traceparent"]

	var stored []*hopper.PreparedJob
	st := func(ctx context.Context, jobs []*hopper.PreparedJob) ([]*hopper.JobInfo, error) {
		stored = jobs
		res := make([]*hopper.JobInfo, len(jobs))
		for i, j := range jobs {
			res[i] = &hopper.JobInfo{ID: j.ID(), Duplicate: true}
		}
		return res, nil
	}
	enq := middleware.TracingEnqueue(opts)(st)
	if _, err := enq(ctx, []*hopper.PreparedJob{prepared(t, "j1", "q", meta)}); err != nil {
		t.Fatal(err)
	}
	if got := stored[0].Meta()["traceparent"]; got != want {
		t.Errorf("traceparent %q after enqueue, want the custom one %q kept", got, want)
	}
	send := waitSpans(t, rec, "send q", 1)[0]
	if send.SpanKind() != trace.SpanKindClient || len(send.Links()) != 1 || send.Links()[0].SpanContext.SpanID() != origin.SpanContext().SpanID() {
		t.Errorf("send span kind %v links %v, want CLIENT linking the custom context", send.SpanKind(), send.Links())
	}
	checkAttrs(t, "send span", send.Attributes(), map[attribute.Key]any{kDuplicate: true, kMsgID: "j1"})
	if n := len(spansNamed(rec, "create q")); n != 0 {
		t.Errorf("%d create spans, want none for a job with its own context", n)
	}
}

func TestTracingEnqueueRecordsStoreError(t *testing.T) {
	rec, _, opts := newTracerProvider(t)
	boom := errors.New("store down")
	enq := middleware.TracingEnqueue(opts)(func(context.Context, []*hopper.PreparedJob) ([]*hopper.JobInfo, error) { return nil, boom })
	_, err := enq(t.Context(), []*hopper.PreparedJob{prepared(t, "a", "q", nil), prepared(t, "b", "r", nil)})
	if err != boom {
		t.Fatalf("enqueue returned %v, want the st's error", err)
	}
	send := waitSpans(t, rec, "send", 1)[0] // two queues: no destination in the name
	checkAttrs(t, "send span", send.Attributes(), map[attribute.Key]any{kDest: nil, kBatchCount: int64(2), kErrorType: "*errors.errorString"})
	spans := append(spansNamed(rec, "create q"), spansNamed(rec, "create r")...)
	spans = append(spans, send)
	if len(spans) != 3 {
		t.Fatalf("%d spans, want 2 create and 1 send", len(spans))
	}
	for _, sp := range spans {
		if sp.Status().Code != codes.Error || !hasException(sp, "store down", false) {
			t.Errorf("span %q status %v, want Error with the st's error", sp.Name(), sp.Status())
		}
	}
}

func TestTracingNewRootLinksInsteadOfContinuing(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		rec, _, opts := newTracerProvider(t)
		c := hopper.NewClient(s, nil)
		c.Use(middleware.TracingEnqueue(opts))
		w := hopper.NewWorker(s, testConfig())
		root := *opts
		root.NewRoot = true
		w.Use(middleware.Tracing(&root))
		hopper.Handle(w, echoHandler)
		startWorker(t, w)
		if _, err := hopper.Enqueue(t.Context(), c, Echo{}, nil); err != nil {
			t.Fatal(err)
		}
		send := waitSpans(t, rec, "send default", 1)[0]
		p := waitSpans(t, rec, "process default", 1)[0]
		if p.Parent().IsValid() || p.SpanContext().TraceID() == send.SpanContext().TraceID() {
			t.Errorf("process span parent %v in trace %s, want a new root apart from the producer's trace", p.Parent(), p.SpanContext().TraceID())
		}
		if l := p.Links(); len(l) != 1 || l[0].SpanContext.SpanID() != send.SpanContext().SpanID() {
			t.Errorf("process span links %v, want one link to the send span", l)
		}
	})
}

func TestTracingWithoutCreationContextStartsRoot(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		rec, tp, opts := newTracerProvider(t)
		c := hopper.NewClient(s, nil) // no TracingEnqueue
		w := hopper.NewWorker(s, testConfig())
		w.Use(middleware.Tracing(opts))
		hopper.Handle(w, echoHandler)
		// The worker runs under a span of its own: attempts must not become
		// its children.
		runCtx, runSpan := tp.Tracer("test").Start(context.Background(), "worker")
		defer runSpan.End()
		ctx, cancel := context.WithCancel(runCtx)
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()
		defer func() { cancel(); <-done }()

		if _, err := hopper.Enqueue(t.Context(), c, Echo{}, nil); err != nil {
			t.Fatal(err)
		}
		p := waitSpans(t, rec, "process default", 1)[0]
		if p.Parent().IsValid() || len(p.Links()) != 0 || p.SpanContext().TraceID() == runSpan.SpanContext().TraceID() {
			t.Errorf("process span parent %v links %v, want a root span with no link", p.Parent(), p.Links())
		}
	})
}

// TestTracingOutcomes runs the middleware around a handler directly, for
// each kind of result.
func TestTracingOutcomes(t *testing.T) {
	cancelled, cancel := context.WithCancelCause(t.Context())
	cancel(hopper.ErrCancelled)
	timedOut, stop := context.WithTimeout(t.Context(), -1)
	defer stop()
	tests := []struct {
		name      string
		ctx       context.Context
		attempt   int
		err       error
		outcome   string
		errorType string // "" for none
	}{
		{"ack", t.Context(), 1, nil, "ack", ""},
		{"retry", t.Context(), 1, errors.New("x"), "retry", "*errors.errorString"},
		{"last attempt", t.Context(), 3, errors.New("x"), "garbage", "*errors.errorString"},
		{"permanent", t.Context(), 1, hopper.Permanent(errFail), "garbage", "planned"},
		{"snooze", t.Context(), 1, hopper.Snooze(time.Minute), "snooze", ""},
		{"panic", t.Context(), 1, &hopper.PanicError{Value: "p", Stack: []byte("stack")}, "retry", "panic"},
		{"timeout", timedOut, 1, timedOut.Err(), "retry", "timeout"},
		{"cancelled", cancelled, 1, cancelled.Err(), "cancel", "cancelled"},
		{"unknown kind", t.Context(), 1, hopper.Permanent(hopper.ErrUnknownKind), "garbage", "unknown_kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, _, opts := newTracerProvider(t)
			h := middleware.Tracing(opts)(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { return tt.err }))
			job := &hopper.JobRecord{ID: "j", Queue: "q", Kind: "k", Attempt: tt.attempt, JobSpec: hopper.JobSpec{MaxRetries: 2}}
			if err := h.Handle(tt.ctx, job); err != tt.err {
				t.Fatalf("Handle returned %v, want the handler's %v", err, tt.err)
			}
			sp := waitSpans(t, rec, "process q", 1)[0]
			want := map[attribute.Key]any{kOutcome: tt.outcome, kErrorType: nil}
			wantCode := codes.Unset
			if tt.errorType != "" {
				want[kErrorType] = tt.errorType
				wantCode = codes.Error
			}
			checkAttrs(t, "span", sp.Attributes(), want)
			if sp.Status().Code != wantCode {
				t.Errorf("status %v, want %v", sp.Status().Code, wantCode)
			}
		})
	}
}
