package redisstore

import (
	"context"

	"github.com/hopperq/hopper/store"
)

var _ store.ConfigSwapper = (*Store)(nil)

// CompareAndSwapQueueConfig replaces queue's settings with cfg only when
// the settings stored equal old, in one script call with the check
// (lua/config.lua; see store.ConfigSwapper). On a partitioned queue the
// check is on the first partition, whose settings GetQueueStats reports.
func (s *Store) CompareAndSwapQueueConfig(ctx context.Context, queue string, old, cfg store.QueueConfig) (bool, error) {
	return s.swapConfig(ctx, queue, &old, cfg)
}
