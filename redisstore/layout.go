package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// The layout version: which shape of keys and values the data under one
// prefix has. It is stored in the key {<prefix>}:layout (keyTable), a
// decimal integer. A Redis without that key but with hopper keys under
// the prefix holds layout 0, written by hopper before v0.1.0.

// LayoutVersion is the layout this release writes: 2, where a grouped
// queue keeps each group's ready jobs in a list of its own (layout 1,
// hopper v0.1.0, kept them all in one sorted set). A Store on a fresh
// Redis stores it; on a Redis at an older readable layout it runs, writes
// what that layout's releases read, and logs that `hopper migrate up`
// should run.
const LayoutVersion = 2

// oldestReadable is the oldest layout this release reads: 0, so that a
// rolling deploy can run workers of the release before and of this one on
// one Redis until every worker runs this release and `hopper migrate up`
// has run. A variable so that tests can raise it.
var oldestReadable = 0

// OldestReadableLayout returns the oldest layout this release reads (0):
// a Store refuses a Redis whose stored layout is older, with an error
// wrapping ErrLayout that names `hopper migrate up`.
func OldestReadableLayout() int { return oldestReadable }

// layoutWrittenBy names the release that writes LayoutVersion, for
// messages.
const layoutWrittenBy = "v0.2.0"

// ErrLayout is wrapped by the error of every call of a Store whose Redis
// holds a layout this release cannot read: one written by a newer release
// (upgrade hopper), or one older than OldestReadableLayout (run
// `hopper migrate up` with a release that reads it). It is final: the
// Store does not check again, and Temporary reports false; a
// hopper.Worker or Scheduler on the Store stops and its Run returns the
// error (StoreFinal). Migrate and Layout still work on such a Store.
var ErrLayout error = &finalError{"redisstore: unsupported data layout"}

// layoutKey is the key of the stored layout version.
func (g globalKeys) layoutKey() string { return g.tag + "layout" }

// layoutRedoKey is the key of the migration steps to run again: the From
// of the first, after a migration forced past workers of an older
// release (layout_migrate.go).
func (g globalKeys) layoutRedoKey() string { return g.tag + "layoutredo" }

// readLayout reads the stored layout: the version, whether the key exists
// and, when it does not, whether the prefix holds any hopper data. read,
// when not nil, is the reply of the layout's GET that the check sent with
// its other reads (readNode), which it drops when it loaded anything
// after them (nodeReads.stale); one that holds an error is read again.
func (s *Store) readLayout(ctx context.Context, read *redis.StringCmd) (stored int, marked, fresh bool, err error) {
	if read == nil || (read.Err() != nil && !errors.Is(read.Err(), redis.Nil)) {
		read = s.rdb.Get(ctx, s.g.layoutKey())
	}
	v, err := read.Result()
	switch {
	case err == nil:
		n, perr := strconv.Atoi(v)
		if perr != nil || n < 0 {
			return 0, true, false, fmt.Errorf("%w: the key %s holds %q, not a layout version; set it to the layout of the data, %d if hopper %s or newer wrote it (redis-cli SET %s %d), or delete it if an older release did (then run hopper migrate up)",
				ErrLayout, s.g.layoutKey(), v, LayoutVersion, layoutWrittenBy, s.g.layoutKey(), LayoutVersion)
		}
		return n, true, false, nil
	case !errors.Is(err, redis.Nil):
		return 0, false, false, err
	}
	fresh, err = s.isFresh(ctx)
	if err != nil {
		return 0, false, false, err
	}
	if fresh {
		return LayoutVersion, false, true, nil
	}
	return 0, false, false, nil
}

// isFresh reports whether the prefix holds no hopper data: none of the
// store-wide keys exist (the queue registry, which every queue's first
// write adds to, the workers, the schedules), nor the workflow index.
// The partition counts are left out: the check itself declares
// Config.Partitions before it reads the layout, and they are no data.
// Each EXISTS names keys of one slot, so it runs on the master that holds
// them, on a Cluster too.
func (s *Store) isFresh(ctx context.Context) (bool, error) {
	n, err := s.rdb.Exists(ctx, s.g.queues, s.g.workers, s.g.schedules, s.g.stored, s.g.storedVer).Result()
	if err != nil || n > 0 {
		return false, err
	}
	n, err = s.rdb.Exists(ctx, s.wfi.all).Result()
	return n == 0, err
}

// checkLayout runs in the start-up check, after the server passed: on a
// fresh Redis it stores LayoutVersion; a readable older layout is logged;
// any other is refused with an error wrapping ErrLayout.
func (s *Store) checkLayout(ctx context.Context, read *redis.StringCmd) error {
	for range 3 {
		stored, marked, fresh, err := s.readLayout(ctx, read)
		read = nil // a second pass reads afresh
		if err != nil {
			return err
		}
		if fresh && !marked {
			ok, err := s.rdb.SetNX(ctx, s.g.layoutKey(), strconv.Itoa(LayoutVersion), 0).Result()
			if err != nil {
				return err
			}
			if ok {
				s.layoutAt.Store(LayoutVersion)
				return nil
			}
			continue // another process stored one first: read it
		}
		if err := layoutErr(stored); err != nil {
			return err
		}
		s.layoutAt.Store(int32(stored))
		if stored < LayoutVersion {
			s.opts.Logger.Warn(fmt.Sprintf("redisstore: the data in Redis has layout %d, written by hopper before %s; this release (layout %d) reads it. Once every worker runs %s or newer, run `hopper migrate up` once", stored, layoutWrittenBy, LayoutVersion, layoutWrittenBy),
				"prefix", s.opts.Prefix, "stored", stored, "current", LayoutVersion)
		}
		return nil
	}
	return errors.New("the layout key changed while it was read")
}

// layoutErr refuses a stored layout this release cannot read.
func layoutErr(stored int) error {
	switch {
	case stored > LayoutVersion:
		return fmt.Errorf("%w: the data in Redis has layout %d, newer than this release of hopper reads (layout %d, %s): upgrade hopper to the release that wrote it or newer",
			ErrLayout, stored, LayoutVersion, layoutWrittenBy)
	case stored < oldestReadable:
		return fmt.Errorf("%w: the data in Redis has layout %d, older than this release of hopper reads (layouts %d to %d): run `hopper migrate up` (see `hopper migrate status`) to bring it to layout %d",
			ErrLayout, stored, oldestReadable, LayoutVersion, LayoutVersion)
	}
	return nil
}
