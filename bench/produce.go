package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
)

// produce runs fn for ids 0..n-1 from the given number of goroutines, which
// take the next id from a shared counter. The first error stops every
// producer and is returned.
func produce(ctx context.Context, n, producers int, fn func(ctx context.Context, id int) error) error {
	var next atomic.Int64
	g, ctx := errgroup.WithContext(ctx)
	for range producers {
		g.Go(func() error {
			for {
				id := int(next.Add(1) - 1)
				if id >= n {
					return nil
				}
				if err := fn(ctx, id); err != nil {
					return fmt.Errorf("job %d: %w", id, err)
				}
			}
		})
	}
	return g.Wait()
}

// sleepCtx sleeps for d, or less if ctx is done first; it returns ctx's
// error in that case.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errShutdownHung is returned when workers do not stop within
// shutdownLimit.
var errShutdownHung = errors.New("worker shutdown did not return")

// shutdownLimit bounds how long stopping a system's workers may take. Both
// libraries' own shutdown timeouts are shorter.
const shutdownLimit = 30 * time.Second

// stopWithin calls stop and waits at most shutdownLimit for it. A hung stop
// is left running in the background.
func stopWithin(stop func() error) error {
	done := make(chan error, 1)
	go func() { done <- stop() }()
	select {
	case err := <-done:
		return err
	case <-time.After(shutdownLimit):
		return fmt.Errorf("%w within %s", errShutdownHung, shutdownLimit)
	}
}
