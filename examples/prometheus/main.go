// Command prometheus exports hopper's metrics to Prometheus through the
// OpenTelemetry Prometheus exporter, and serves them on /metrics for a
// Prometheus server to scrape. A worker runs two job kinds while a
// producer enqueues a few jobs a second; one payment in ten is refused
// for good (hopper.Permanent), so the dead-jobs panel and alert have
// something to show.
//
// What it exports (docs/operations.md has the table): the worker
// middleware's attempt metrics (middleware.Metrics), the queue depths and
// latencies (middleware.RegisterQueueMetrics) and the live workers per
// queue (middleware.RegisterWorkerMetrics). grafana-dashboard.json is a
// Grafana dashboard over them and alerts.yml Prometheus alert rules; the
// test checks that every metric they name is one this program emits.
//
// It runs on the in-memory store, or on Redis when HOPPER_REDIS_URL is set
// (for example redis://localhost:6379/0), and listens on
// HOPPER_METRICS_ADDR (default localhost:2112):
//
//	go run -C examples/prometheus .
//	curl -s localhost:2112/metrics | grep hopper
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/redis/go-redis/v9"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
	"github.com/hopperq/hopper/redisstore"
)

// Resize is a job that always succeeds.
type Resize struct{ Image string }

func (Resize) Kind() string { return "resize" }

// Charge is a job that is refused for good when Refuse is set: it goes
// straight to the dead jobs (garbage).
type Charge struct {
	Cents  int
	Refuse bool
}

func (Charge) Kind() string { return "charge" }

// Queues the example works on.
var queues = map[string]int{"images": 1, "payments": 2}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx); err != nil {
		log.Fatal(err)
	}
}

// run serves the pipeline's metrics, with a worker and a producer, until
// ctx is done.
func run(ctx context.Context) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	store, closeStore, err := openStore()
	if err != nil {
		return err
	}
	defer closeStore()
	p, err := newPipeline(store)
	if err != nil {
		return err
	}
	defer p.Shutdown(context.Background())

	addr := os.Getenv("HOPPER_METRICS_ADDR")
	if addr == "" {
		addr = "localhost:2112"
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", p.Handler)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	// The worker and the producer stop with ctx; run returns once both
	// did, before the deferred Shutdown and closeStore: a worker that
	// stops removes its record from the store (else hopper_workers counts
	// it until the record lapses), which needs the store open.
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { runErr = p.Worker.Run(ctx) })
	wg.Go(func() { produce(ctx, p.Client) })
	slog.Info("serving metrics", "url", "http://"+addr+"/metrics")
	err = srv.ListenAndServe()
	stop() // the server failed to start: stop the worker too
	wg.Wait()
	if !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return runErr
}

// produce enqueues a resize and a charge every 200 ms until ctx is done;
// every tenth charge is refused.
func produce(ctx context.Context, client *hopper.Client) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := hopper.Enqueue(ctx, client, Resize{Image: fmt.Sprint(i, ".png")}, &hopper.EnqueueOpts{Queue: "images"}); err != nil {
			slog.Warn("enqueue", "error", err)
		}
		if _, err := hopper.Enqueue(ctx, client, Charge{Cents: 100 + i, Refuse: i%10 == 9}, &hopper.EnqueueOpts{Queue: "payments"}); err != nil {
			slog.Warn("enqueue", "error", err)
		}
	}
}

// Pipeline is the example's metrics pipeline: an OpenTelemetry meter
// provider whose only reader is the Prometheus exporter, registered on a
// registry of its own that Handler serves, and a worker and client on the
// store that record into it.
type Pipeline struct {
	// Handler serves the registry in the Prometheus exposition formats.
	Handler http.Handler
	// Worker runs Resize and Charge jobs with the metrics middleware; the
	// caller runs it.
	Worker *hopper.Worker
	// Client enqueues jobs.
	Client *hopper.Client

	mp         *sdkmetric.MeterProvider
	unregister []func() error
}

// newPipeline builds the pipeline on store. Shutdown releases it.
func newPipeline(store hopper.Store) (*Pipeline, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
	p := &Pipeline{
		Handler: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		Client:  hopper.NewClient(store, nil),
		mp:      mp,
	}
	// Depths, latencies and workers describe the whole store: register
	// them in one process per store (here, the only one).
	unq, err := middleware.RegisterQueueMetrics(store, &middleware.QueueMetricsConfig{MeterProvider: mp})
	if err != nil {
		return nil, err
	}
	unw, err := middleware.RegisterWorkerMetrics(store, &middleware.WorkerMetricsConfig{MeterProvider: mp})
	if err != nil {
		_ = unq()
		return nil, err
	}
	p.unregister = []func() error{unq, unw}

	p.Worker = hopper.NewWorker(store, &hopper.WorkerConfig{
		Queues:      queues,
		Concurrency: 8,
		Logger:      slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	p.Worker.Use(middleware.Recover(nil), middleware.Metrics(&middleware.MetricsConfig{MeterProvider: mp}))
	hopper.Handle(p.Worker, func(ctx context.Context, job *hopper.Job[Resize]) error {
		return nil
	})
	hopper.Handle(p.Worker, func(ctx context.Context, job *hopper.Job[Charge]) error {
		if job.Args.Refuse {
			return hopper.Permanent(errors.New("card refused"))
		}
		return nil
	})
	return p, nil
}

// Shutdown unregisters the store callbacks and shuts the meter provider
// down; run it after the worker has stopped.
func (p *Pipeline) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range p.unregister {
		errs = append(errs, f())
	}
	errs = append(errs, p.mp.Shutdown(ctx))
	return errors.Join(errs...)
}

// openStore opens Redis when HOPPER_REDIS_URL is set, else an in-memory
// store.
func openStore() (hopper.Store, func(), error) {
	url := os.Getenv("HOPPER_REDIS_URL")
	if url == "" {
		return memstore.New(nil), func() {}, nil
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, fmt.Errorf("HOPPER_REDIS_URL: %w", err)
	}
	rdb := redis.NewClient(opt)
	return redisstore.New(rdb, &redisstore.Config{Prefix: "hopper-prometheus-example"}), func() { _ = rdb.Close() }, nil
}
