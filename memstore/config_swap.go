package memstore

import (
	"context"

	"github.com/hopperq/hopper/store"
)

var _ store.ConfigSwapper = (*Store)(nil)

// CompareAndSwapQueueConfig replaces the config of queue with cfg, as
// SetQueueConfig does, only when the config held now equals old, under
// the queue's lock (see store.ConfigSwapper).
func (s *Store) CompareAndSwapQueueConfig(ctx context.Context, queue string, old, cfg store.QueueConfig) (bool, error) {
	if err := store.ValidateQueueConfig(queue, cfg); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	q := s.queue(queue, true)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.cfg != old {
		return false, nil
	}
	q.setConfig(cfg)
	return true, nil
}
