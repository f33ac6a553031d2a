// Command otel shows hopper's OpenTelemetry middleware end to end: a
// producer enqueues jobs under a span of its own, a worker runs them, and
// the trace crosses from one to the other through the jobs' metadata.
//
// Spans and metrics are written to standard output by the stdout exporters,
// one JSON document each; the worker's slog records go to standard error.
// Every span shares the trace ID printed at the end: the "create" spans of
// the batch are children of the producer's "signup" span, and each
// "process" span (one per attempt; one job fails once and is retried) is a
// child of its job's "create" span.
//
// It runs on the in-memory store, or on Redis when HOPPER_REDIS_URL is set
// (for example redis://localhost:6379/0), with keys under the prefix
// "hopper-otel-example":
//
//	go run -C examples/otel .
//	HOPPER_REDIS_URL=redis://localhost:6379/0 go run -C examples/otel .
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
	"github.com/hopperq/hopper/redisstore"
)

// SendWelcome is the job: a welcome email for a new user.
type SendWelcome struct {
	User string
}

func (SendWelcome) Kind() string { return "send_welcome" }

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// OpenTelemetry: the SDK with stdout exporters, installed as the
	// globals the middleware use by default.
	traceExp, err := stdouttrace.New(stdouttrace.WithPrettyPrint())
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(traceExp)) // print each span as it ends
	metricExp, err := stdoutmetric.New(stdoutmetric.WithPrettyPrint())
	if err != nil {
		return err
	}
	// One export at shutdown, after the jobs ran.
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExp, sdkmetric.WithInterval(time.Hour))))
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))

	store, closeStore, err := openStore()
	if err != nil {
		return err
	}
	defer closeStore()
	const queue = "emails"
	unregister, err := middleware.RegisterQueueMetrics(store, &middleware.QueueMetricsConfig{Queues: []string{queue}})
	if err != nil {
		return err
	}
	defer unregister()

	// The worker: tracing outermost, then metrics and logging.
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Queues:  map[string]int{queue: 1},
		Backoff: func(int, error) time.Duration { return 10 * time.Millisecond },
		Logger:  logger,
	})
	w.Use(
		middleware.Tracing(nil),
		middleware.Metrics(nil),
		middleware.Logging(logger, nil),
	)
	var wg sync.WaitGroup
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendWelcome]) error {
		// The handler's own spans nest under the attempt's span.
		_, span := otel.Tracer("example").Start(ctx, "render and send")
		defer span.End()
		if job.Args.User == "bob" && job.Attempt == 1 {
			return errors.New("smtp: 421 try again later") // retried once
		}
		wg.Done()
		return nil
	})
	runCtx, stopWorker := context.WithCancel(ctx)
	defer stopWorker()
	stopped := make(chan error, 1)
	go func() { stopped <- w.Run(runCtx) }()

	// The producer: enqueue a batch under a span of its own.
	client := hopper.NewClient(store, nil)
	client.Use(middleware.TracingEnqueue(nil))
	users := []SendWelcome{{User: "ann"}, {User: "bob"}, {User: "cyd"}}
	wg.Add(len(users))
	pctx, signup := otel.Tracer("example").Start(ctx, "signup")
	_, err = hopper.EnqueueMany(pctx, client, users, &hopper.EnqueueOpts{Queue: queue, MaxRetries: 3})
	signup.End()
	if err != nil {
		return err
	}

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("jobs did not finish: %w", ctx.Err())
	}
	stopWorker()
	if err := <-stopped; err != nil {
		return err
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		return err
	}
	if err := mp.Shutdown(context.Background()); err != nil { // exports the metrics
		return err
	}
	fmt.Fprintf(os.Stderr, "\nproducer and worker spans share trace ID %s\n", signup.SpanContext().TraceID())
	return nil
}

// openStore returns a Redis store when HOPPER_REDIS_URL is set, else an
// in-memory one.
func openStore() (hopper.Store, func(), error) {
	url := os.Getenv("HOPPER_REDIS_URL")
	if url == "" {
		return memstore.New(nil), func() {}, nil
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, fmt.Errorf("HOPPER_REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opts)
	return redisstore.New(rdb, &redisstore.Config{Prefix: "hopper-otel-example"}), func() { _ = rdb.Close() }, nil
}
