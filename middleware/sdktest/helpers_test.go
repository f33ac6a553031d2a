package sdktest_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
)

// Echo is the test job kind. Fail makes its handler fail on the attempts
// listed.
type Echo struct {
	N    int   `msgpack:"n"`
	Fail []int `msgpack:"fail,omitempty"`
}

func (Echo) Kind() string { return "echo" }

// Block is a job kind whose handler blocks until released.
type Block struct{ N int }

func (Block) Kind() string { return "block" }

// startWorker runs w until the test ends and checks that Run returned nil.
func startWorker(t testing.TB, w *hopper.Worker) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Worker.Run returned %v, want nil", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("Worker.Run did not return within 30s of its context being cancelled")
		}
	})
}

// testConfig is a worker config with fast retries for tests.
func testConfig() *hopper.WorkerConfig {
	return &hopper.WorkerConfig{
		Queues:          map[string]int{hopper.DefaultQueue: 1},
		Concurrency:     4,
		Lease:           5 * time.Second,
		ShutdownTimeout: 5 * time.Second,
		Backoff:         func(int, error) time.Duration { return 0 },
		Logger:          testutil.Logger(),
	}
}

// echoHandler fails the attempts listed in the job's args.
func echoHandler(ctx context.Context, j *hopper.Job[Echo]) error {
	for _, a := range j.Args.Fail {
		if a == j.Attempt {
			return errFail
		}
	}
	return nil
}

var errFail = &failError{}

type failError struct{}

func (*failError) Error() string     { return "planned failure" }
func (*failError) ErrorType() string { return "planned" }

// newTracerProvider returns a tracer provider that records every span, and
// tracing options using it with W3C trace context.
func newTracerProvider(t testing.TB) (*tracetest.SpanRecorder, *sdktrace.TracerProvider, *middleware.TracingConfig) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return rec, tp, &middleware.TracingConfig{TracerProvider: tp, Propagator: propagation.TraceContext{}}
}

// spansNamed returns the ended spans with that name, by start time.
func spansNamed(rec *tracetest.SpanRecorder, name string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == name {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].StartTime().Before(out[j].StartTime()) })
	return out
}

// waitSpans waits until n spans with that name have ended.
func waitSpans(t testing.TB, rec *tracetest.SpanRecorder, name string, n int) []sdktrace.ReadOnlySpan {
	t.Helper()
	var got []sdktrace.ReadOnlySpan
	testutil.EventuallyTrue(t, 10*time.Second, "spans named "+name, func() bool {
		got = spansNamed(rec, name)
		return len(got) >= n
	})
	if len(got) != n {
		t.Fatalf("%d spans named %q, want %d", len(got), name, n)
	}
	return got
}

// attrs returns a span's attributes by key.
func attrs(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// checkAttrs reports every attribute of want that kvs lacks or holds with
// another value; a want value of the invalid type means "must be absent".
func checkAttrs(t testing.TB, what string, kvs []attribute.KeyValue, want map[attribute.Key]any) {
	t.Helper()
	got := attrs(kvs)
	for k, w := range want {
		v, ok := got[k]
		if w == nil {
			if ok {
				t.Errorf("%s: %s = %v, want it absent", what, k, v.Emit())
			}
			continue
		}
		if !ok {
			t.Errorf("%s: no attribute %s (want %v)", what, k, w)
			continue
		}
		if v.AsInterface() != w {
			t.Errorf("%s: %s = %#v, want %#v", what, k, v.AsInterface(), w)
		}
	}
}

// newMeterProvider returns a meter provider read by a manual reader.
func newMeterProvider(t testing.TB) (*sdkmetric.ManualReader, *sdkmetric.MeterProvider) {
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	return r, mp
}

// collect reads every metric, by name.
func collect(t testing.TB, r *sdkmetric.ManualReader) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// match reports whether set holds every attribute of want.
func match(set attribute.Set, want map[attribute.Key]string) bool {
	for k, w := range want {
		v, ok := set.Value(k)
		if !ok || v.Emit() != w {
			return false
		}
	}
	return true
}

// prepared is an Echo job with ID id for queue q and metadata meta, as
// enqueue middleware sees it.
func prepared(t testing.TB, id, q string, meta map[string]string) *hopper.PreparedJob {
	t.Helper()
	p, err := hopper.Prepare(hopper.NewClient(memstore.New(nil), nil), Echo{}, &hopper.EnqueueOpts{ID: id, Queue: q, Meta: meta})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
