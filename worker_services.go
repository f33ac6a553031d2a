package hopper

import (
	"context"
	"errors"
	"log/slog"
	"sync"
)

// runServices starts WorkerConfig.Services beside a worker. It returns the
// context the worker runs with, which ends when parent does or a service
// fails, and wait, which ends that context, waits for every service to
// return and reports the first failure.
func runServices(parent context.Context, services []func(context.Context) error, log *slog.Logger) (ctx context.Context, wait func() error) {
	if len(services) == 0 {
		return parent, func() error { return nil }
	}
	ctx, stop := context.WithCancelCause(parent)
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for i, s := range services {
		wg.Go(func() {
			err := s(ctx)
			switch {
			case err == nil:
			case ctx.Err() == nil:
				once.Do(func() { first = err })
				log.Error("hopper: worker service failed; shutting the worker down", slog.Int("service", i), slog.Any("error", err))
				stop(err)
			case !errors.Is(err, context.Canceled):
				log.Warn("hopper: worker service returned an error while stopping", slog.Int("service", i), slog.Any("error", err))
			}
		})
	}
	return ctx, func() error {
		stop(nil)
		wg.Wait()
		return first
	}
}
