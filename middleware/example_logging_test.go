package middleware_test

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/middleware"
)

type Sync struct{ Account string }

func (Sync) Kind() string { return "sync" }

// Logging writes one record per attempt: a warning for the failed first
// attempt, then an info record when the retry succeeds.
func ExampleLogging() {
	// Times and durations vary from run to run: leave them out here.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" {
				return slog.Attr{}
			}
			return a
		},
	}))

	store := memstore.New(nil)
	w := hopper.NewWorker(store, &hopper.WorkerConfig{
		Backoff: func(int, error) time.Duration { return 0 },
		Logger:  slog.New(slog.DiscardHandler),
	})
	w.Use(middleware.Logging(logger, nil))
	done := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Sync]) error {
		if job.Attempt == 1 {
			return errors.New("upstream unavailable")
		}
		close(done)
		return nil
	})
	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- w.Run(ctx) }()

	client := hopper.NewClient(store, nil)
	if _, err := hopper.Enqueue(ctx, client, Sync{Account: "acme"}, &hopper.EnqueueOpts{ID: "sync-acme"}); err != nil {
		panic(err)
	}
	<-done
	stop()
	<-stopped
	// Output:
	// level=WARN msg="job failed" queue=default id=sync-acme kind=sync attempt=1 outcome=retry error="upstream unavailable"
	// level=INFO msg="job done" queue=default id=sync-acme kind=sync attempt=2 outcome=ack
}
