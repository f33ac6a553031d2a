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
// The data's mark ({<prefix>}:lost, a value no two writes share) tells a
// running store that the data it started on is gone. Every store's check
// writes it when it is missing (on a fresh Redis with the layout key),
// and reads it as its base. readShared, which a store that claims or
// enqueues runs every partsRefresh, reads it again with the layout key:
//   - the mark gone: the data was lost. The store writes a new mark and,
//     when its check found or stored the layout key (layoutAt 1 or more)
//     and that is gone too, puts its layout back (SET NX), and warns;
//   - the mark not the base (another store wrote a new one, or a process
//     started on the emptied Redis and wrote its own first): the store
//     registers at once the queues it registered before, and declares
//     its partitioned queues again.
// A layout key deleted on purpose (ErrLayout's advice for data of an old
// release) leaves the mark, and nothing is put back.

// lostKey is the key of the data's mark.
func (g globalKeys) lostKey() string { return g.tag + "lost" }

// lossWatch is the data's mark a Store last saw.
type lossWatch struct {
	mu   sync.Mutex
	seen bool   // the mark was read at least once
	mark string // its value then
}

// newMark returns a mark no other write makes: the time and the store's
// claimer name.
func (s *Store) newMark() string {
	return strconv.FormatInt(time.Now().UnixMilli(), 10) + " " + s.claimer
}

// baseMark takes the data's mark the check read (lost; nil when it did
// not) as the store's base, writing one when there is none. A failure
// leaves the base to readShared's first read.
func (s *Store) baseMark(ctx context.Context, lost *redis.StringCmd) {
	var mark string
	if lost != nil {
		mark, _ = lost.Result()
	}
	if mark == "" {
		var err error
		if mark, err = s.setMark(ctx); err != nil {
			return
		}
	}
	s.loss.mu.Lock()
	s.loss.seen, s.loss.mark = true, mark
	s.loss.mu.Unlock()
}

// setMark writes a new data's mark unless there is one, and returns the
// mark that holds.
func (s *Store) setMark(ctx context.Context) (string, error) {
	mark := s.newMark()
	old, err := s.rdb.SetArgs(ctx, s.g.lostKey(), mark, redis.SetArgs{Mode: "NX", Get: true}).Result()
	switch {
	case errors.Is(err, redis.Nil):
		return mark, nil // written
	case err != nil:
		return "", err
	}
	return old, nil
}

// noteShared acts on readShared's reads of the layout key and the data's
// mark (lost), both of them commands that ran.
func (s *Store) noteShared(ctx context.Context, layout, lost *redis.StringCmd) {
	mark, err := lost.Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return
	}
	if mark == "" {
		// The data this store started on is gone.
		if mark, err = s.setMark(ctx); err != nil {
			return
		}
		restored := errors.Is(layout.Err(), redis.Nil) && s.restoreLayout(ctx)
		s.opts.Logger.Warn("redisstore: Redis lost its data while this process ran (a restart without persistence, a flush, evicted keys): the jobs stored before are lost; registering this process's queues again",
			"prefix", s.opts.Prefix, "layout_put_back", restored)
	}
	s.loss.mu.Lock()
	changed := s.loss.seen && mark != s.loss.mark
	s.loss.seen, s.loss.mark = true, mark
	s.loss.mu.Unlock()
	if changed {
		s.registerAgain(ctx)
	}
}

// restoreLayout puts the layout key back when this store's check found
// or stored it (layoutAt of 1 or more: a store whose ACL denied the key,
// or that runs on unmarked data of layout 0, leaves it). It reports
// whether it did.
func (s *Store) restoreLayout(ctx context.Context) bool {
	at := s.layoutAt.Load()
	if at < 1 {
		return false
	}
	ok, err := s.rdb.SetNX(ctx, s.g.layoutKey(), strconv.Itoa(int(at)), 0).Result()
	return err == nil && ok
}

// registerAgain registers at once the queues this store registered
// before (with their sentinels and marks: registerCmds) and declares its
// partitioned queues again, after the data's mark changed. A failure
// leaves the queues to their next enqueue, which registers them since
// they are forgotten here first.
func (s *Store) registerAgain(ctx context.Context) {
	var queues []string
	s.registered.Range(func(k, _ any) bool {
		queues = append(queues, k.(string))
		s.registered.Delete(k)
		return true
	})
	var parts partitions
	if m := s.parts.Load(); m != nil {
		parts = *m
	}
	if len(queues) == 0 && len(parts) == 0 {
		return
	}
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for q, n := range parts {
			_ = p.Process(ctx, onceAny{redis.NewBoolCmd(ctx, "hsetnx", s.g.partsKey(), q, strconv.Itoa(n))})
		}
		if len(queues) > 0 {
			s.registerCmds(ctx, p, queues, true)
		}
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
		"prefix", s.opts.Prefix, "queues", len(queues), "partitioned", len(parts))
}
