package redisstore

import (
	"context"
	"fmt"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// SetOldestReadableLayout makes this release refuse layouts older than n
// until the returned restore is called, as a later release that dropped
// reading them would.
func SetOldestReadableLayout(n int) (restore func()) {
	old := oldestReadable
	oldestReadable = n
	return func() { oldestReadable = old }
}

// SetMigrateHooks sets the hooks Migrate calls: after writing a queue
// (an error interrupts the step there) and between reading a queue's
// settings and writing them. Nil for none.
func SetMigrateHooks(after func(queue string) error, read func(queue string)) (restore func()) {
	a, r := migrateHook, migrateReadHook
	migrateHook, migrateReadHook = after, read
	return func() { migrateHook, migrateReadHook = a, r }
}

// LayoutKey returns the key of the stored layout version.
func LayoutKey(s *Store) string { return s.g.layoutKey() }

// WorkersKey returns the key of the worker registry of s.
func WorkersKey(s *Store) string { return s.g.workers }

// MarksKey returns the key of queue's marks (what the scripts read).
func MarksKey(s *Store, queue string) string { return s.queueKeys(queue).marks }

// RateTermFields are the marks' fields this release derives from the
// settings, which a release before v0.1.0 did not write.
var RateTermFields = configTermFields

// HeartbeatAsOlder records worker w as a release before v0.1.0 does: a
// record without a layout version.
func HeartbeatAsOlder(ctx context.Context, s *Store, w store.WorkerInfo, ttl time.Duration) error {
	b, err := msgpack.Marshal(&workerRecord{ID: w.ID, Host: w.Host, PID: w.PID, Queues: w.Queues, Concurrency: w.Concurrency, StartedAt: w.StartedAt})
	if err != nil {
		return err
	}
	if err := s.prepareAdmin(ctx); err != nil {
		return err
	}
	err = s.run(ctx, fullScript("heartbeat"), []string{s.g.workers, s.g.worker(w.ID)}, w.ID, b, mstime.Ceil(ttl)).Err()
	if err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}

// PartsKey returns the key of s's partition counts.
func PartsKey(s *Store) string { return s.g.partsKey() }
