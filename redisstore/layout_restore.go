package redisstore

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// After Redis lost its data while processes ran (a restart without
// persistence, a FLUSHALL, keys evicted), the running processes wrote
// their jobs again, but not the layout key, which only the start-up check
// writes, nor the queue registry, which a store fills again only every
// registerEvery: every process started later took the data for layout 0,
// "written by hopper before v0.1.0", and the queues were missing from
// the dashboard, ListQueues and a standalone Scheduler's sweep (whose
// delayed jobs then ran 30–43 s late) for up to a minute (an outside
// trial).
//
// readShared, which every store that claims or enqueues runs every
// partsRefresh, reads the layout key and the loss mark with the partition
// counts. A store whose check found or stored the layout key and that
// finds it gone puts it back (SET NX: its layout, which it writes) and
// writes the loss mark; every store that sees the loss mark change
// registers at once the queues it registered before, so the registry
// is whole again within partsRefresh of the first call after the loss.

// lostKey is the key of the loss mark: when a store last found the
// layout key gone and put it back (Unix ms, and the store's claimer name
// so that two losses in one millisecond differ).
func (g globalKeys) lostKey() string { return g.tag + "lost" }

// lossWatch is what a Store last saw of the loss mark.
type lossWatch struct {
	mu   sync.Mutex
	seen bool   // the mark was read at least once
	mark string // its value then ("" for none)
}

// base takes the loss mark the check read (lost, nil when it did not) as
// what the store saw first: a loss marked before the store started asks
// nothing of it. Without it, readShared's first read is taken so.
func (w *lossWatch) base(lost *redis.StringCmd) {
	if lost == nil {
		return
	}
	mark, err := lost.Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return
	}
	w.mu.Lock()
	w.seen, w.mark = true, mark
	w.mu.Unlock()
}

// noteShared acts on readShared's reads of the layout key and the loss
// mark (lost), both of them commands that ran.
func (s *Store) noteShared(ctx context.Context, layout, lost *redis.StringCmd) {
	mark, err := lost.Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return
	}
	restored := false
	if errors.Is(layout.Err(), redis.Nil) {
		if m, ok := s.restoreLayout(ctx); ok {
			mark, restored = m, true
		}
	}
	s.loss.mu.Lock()
	changed := restored || s.loss.seen && mark != s.loss.mark
	s.loss.seen, s.loss.mark = true, mark
	s.loss.mu.Unlock()
	if changed {
		s.registerAgain(ctx)
	}
}

// restoreLayout puts the layout key back when this store's check found
// or stored it (layoutAt of 1 or more: a store whose ACL denied the key,
// or that runs on unmarked data of layout 0, leaves it), and writes the
// loss mark. It reports the mark, and false when another store put the
// key back first or the writes failed.
func (s *Store) restoreLayout(ctx context.Context) (string, bool) {
	at := s.layoutAt.Load()
	if at < 1 {
		return "", false
	}
	ok, err := s.rdb.SetNX(ctx, s.g.layoutKey(), strconv.Itoa(int(at)), 0).Result()
	if err != nil || !ok {
		return "", false
	}
	mark := strconv.FormatInt(time.Now().UnixMilli(), 10) + " " + s.claimer
	if err := s.rdb.Set(ctx, s.g.lostKey(), mark, 0).Err(); err != nil {
		return "", false
	}
	s.opts.Logger.Warn("redisstore: the data layout key was gone: Redis lost its data while this process ran (a restart without persistence, a flush, evicted keys); jobs stored before are lost. Put the layout back and registering the queues again",
		"prefix", s.opts.Prefix, "layout", at, "key", s.g.layoutKey())
	return mark, true
}

// registerAgain registers at once the queues this store registered
// before (with their sentinels and marks: registerCmds), after the loss
// mark changed. A failure leaves them to their next enqueue, which
// registers them since they are forgotten here first.
func (s *Store) registerAgain(ctx context.Context) {
	var queues []string
	s.registered.Range(func(k, _ any) bool {
		queues = append(queues, k.(string))
		s.registered.Delete(k)
		return true
	})
	if len(queues) == 0 {
		return
	}
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		s.registerCmds(ctx, p, queues, true)
		return nil
	})
	if err != nil {
		return
	}
	now := time.Now()
	for _, q := range queues {
		s.markRegistered(q, now)
	}
	s.opts.Logger.Info("redisstore: registered this process's queues again after Redis lost its data",
		"prefix", s.opts.Prefix, "queues", len(queues))
}
