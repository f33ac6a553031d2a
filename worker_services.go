package hopper

import (
	"context"
	"errors"
	"log/slog"

	"golang.org/x/sync/errgroup"
)

// runServices starts WorkerConfig.Services beside a worker. It returns the
// context the worker runs with, which ends when parent does or a service
// fails (its cause is then that failure), and wait, which ends that
// context, waits for every service to return and reports the first
// failure.
func runServices(parent context.Context, services []func(context.Context) error, log *slog.Logger) (ctx context.Context, wait func() error) {
	if len(services) == 0 {
		return parent, func() error { return nil }
	}
	parent, stop := context.WithCancel(parent)
	g, ctx := errgroup.WithContext(parent)
	for i, s := range services {
		g.Go(func() error {
			err := s(ctx)
			switch {
			case err == nil:
			case ctx.Err() == nil:
				log.Error("hopper: worker service failed; shutting the worker down", slog.Int("service", i), slog.Any("error", err))
				return err // the group ends ctx with err as its cause
			case !errors.Is(err, context.Canceled):
				log.Warn("hopper: worker service returned an error while stopping", slog.Int("service", i), slog.Any("error", err))
			}
			return nil
		})
	}
	return ctx, func() error {
		stop()
		return g.Wait()
	}
}
