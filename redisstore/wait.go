package redisstore

import (
	"context"
	"time"

	"github.com/hopperq/hopper/store"
)

// WaitReady blocks until jobs may have become claimable in some of queues
// (see store.Store), until timeout passes, or until ctx is done, and
// returns those queues. Scripts that make jobs claimable publish the
// queue's name, and every Store holds one subscription for all its waiters
// and queues (notify.go): an idle worker sends no command while it waits,
// a frozen one takes no wake-up from the others, and a job wakes idle
// workers within a round trip. A queue waited on for the first time, and
// every queue after the subscription was lost and made again, is returned
// once at once. A timeout of zero or less returns at once.
func (s *Store) WaitReady(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	got, err := s.wait(ctx, kindReady, queues, timeout)
	return got, s.closedCheck(ctx, err)
}

// WaitSchedule blocks until the next due time of some of queues may have
// moved earlier (see store.Store), the same way as WaitReady: published by
// a delayed enqueue that became the earliest, a retry or snooze that did,
// a lease earlier than every other (a claim onto an empty unack set), a
// done retention that expires first, and the first garbage job.
func (s *Store) WaitSchedule(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	got, err := s.wait(ctx, kindSched, queues, timeout)
	return got, s.closedCheck(ctx, err)
}

func (s *Store) wait(ctx context.Context, k notifyKind, queues []string, timeout time.Duration) ([]string, error) {
	if err := store.ValidateQueues(queues); err != nil {
		return nil, err
	}
	if len(queues) == 0 {
		if timeout > 0 {
			sleepCtx(ctx, timeout)
		}
		return nil, nil
	}
	if err := s.begin(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, err
	}
	return s.notify.wait(ctx, k, queues, timeout)
}

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
