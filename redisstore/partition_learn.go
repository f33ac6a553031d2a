package redisstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// A store reads the partition counts at its start-up check
// (syncPartitions). Another process may declare a queue partitioned
// later (Config.Partitions): a store that went on taking the queue as
// unpartitioned would write its jobs where the partitioned queue's
// workers never look. So a store asks before it first enqueues to a
// queue (learnQueues: registering the queue and reading its count in one
// script, which a declaration cannot come between, as it refuses a queue
// registered unpartitioned), and its claims and enqueues read the counts
// again every partsRefresh (refreshShared), so that a worker started
// before the declaration claims from the partitions too.

// partsRefresh is how often a store reads the partition counts and the
// stored layout again.
const partsRefresh = 10 * time.Second

// learnQueues runs before the first enqueue of this store to each queue
// of jobs that it does not know partitioned: one script call for them
// all (lua/queues_register.lua), which registers each queue, or answers
// the count of one declared partitioned since the check, which the store
// then routes to its partitions. A failed call is logged and the enqueue
// goes on as before (its pipeline registers the queue). Cost: one round
// trip, once per queue a process enqueues to (a process's first call
// makes three: the check's reads, this, the enqueue). The counts the
// check read do not serve: processes that start together (a deploy)
// would miss a declaration made by one of them between another's check
// and its first enqueue, which a test of 200 such starts did 139 times.
func (s *Store) learnQueues(ctx context.Context, jobs []*store.NewJob) {
	var names []string
	last := ""
	for _, j := range jobs {
		q := j.Queue
		if q == last {
			continue // a batch's jobs mostly share a queue: one look each run
		}
		last = q
		if _, seen := s.learned.Load(q); seen || s.partCount(q) > 0 {
			continue
		}
		if _, _, part := store.SplitPartition(q); part {
			continue
		}
		if !slices.Contains(names, q) {
			names = append(names, q)
		}
	}
	if len(names) == 0 {
		return
	}
	args := make([]any, len(names))
	for i, q := range names {
		args[i] = q
	}
	// Once, as refreshShared's read: the enqueue waits for it.
	cmd := s.callOn(ctx, s.rdb, true, fullScript("queues_register"), []string{s.g.queues, s.g.partsKey()}, args...)
	s.observe(cmd.Err())
	counts, err := cmd.Int64Slice()
	if err != nil {
		// Once: a store whose ACL user may not run it (the store-wide
		// keys denied) would otherwise pay a failing round trip at every
		// enqueue.
		s.opts.Logger.Warn("redisstore: registering queues before their first enqueue failed; they are taken as the start-up check found them",
			"queues", names, "error", err)
		for _, q := range names {
			s.learned.Store(q, true)
		}
		return
	}
	learnt := map[string]int{}
	for i, q := range names {
		if counts[i] > 1 {
			learnt[q] = int(counts[i])
		}
		s.learned.Store(q, true)
	}
	s.addParts(learnt)
}

// refreshShared reads again, when the last read is partsRefresh old,
// what other processes may have changed since the check (Claim and
// Enqueue call it): the partition counts, so that a queue declared
// partitioned is claimed from and enqueued to its partitions, and the
// stored layout, so that after a Migrate to layout 2 the queues this
// store registers (again every registerEvery) are marked to keep their
// groups' jobs in lists (registerCmds). A failed read is tried again at
// the next call past the period. The caller waits for the read up to
// refreshWait, no longer: the store-wide keys live on one node, and a
// node that stopped answering held, every partsRefresh, one claim or
// enqueue of every queue, whichever node held it, for its context's
// whole bound (a claim then failed); the read goes on by itself for the
// calls that follow. Cost: a clock read and an atomic load a call, and
// one round trip and a goroutine every partsRefresh.
func (s *Store) refreshShared(ctx context.Context) {
	now := time.Now().UnixNano()
	last := s.partsRead.Load()
	if now-last < int64(partsRefresh) || !s.partsRead.CompareAndSwap(last, now) {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.readShared(last)
	}()
	t := time.NewTimer(refreshWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// refreshWait is how long a call waits for refreshShared's read: a
// healthy node answers well within it.
const refreshWait = 50 * time.Millisecond

// readShared is refreshShared's read; on failure it sets the time of the
// last read back to last, so that the next call past the period reads
// again. Its commands go once (onceAny) and without a deadline but the
// client's read timeout: no caller waits for it past refreshWait.
func (s *Store) readShared(last int64) {
	ctx := context.Background()
	var parts *redis.MapStringStringCmd
	var layout, lost *redis.StringCmd
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		parts = redis.NewMapStringStringCmd(ctx, "hgetall", s.g.partsKey())
		layout = redis.NewStringCmd(ctx, "get", s.g.layoutKey())
		lost = redis.NewStringCmd(ctx, "get", s.g.lostKey())
		_ = p.Process(ctx, onceAny{parts})
		_ = p.Process(ctx, onceAny{layout})
		_ = p.Process(ctx, onceAny{lost})
		return nil
	})
	s.observe(err)
	if err != nil && parts.Err() != nil && !redis.IsPermissionError(parts.Err()) {
		s.partsRead.Store(last)
		return
	}
	if v, err := layout.Int(); err == nil && v > int(s.layoutAt.Load()) && v <= LayoutVersion {
		s.layoutAt.Store(int32(v))
	}
	s.noteShared(ctx, layout, lost) // Redis lost its data? (layout_restore.go)
	all, err := parts.Result()
	if err != nil {
		return
	}
	learnt := map[string]int{}
	for q, v := range all {
		n, err := strconv.Atoi(v)
		if err == nil && n > 1 && n <= store.MaxPartitions && store.ValidateQueue(q) == nil && s.partCount(q) == 0 {
			learnt[q] = n
		}
	}
	s.addParts(learnt)
}

// learnFromNames reads the partition counts again, at most once a
// second, when queue names listed from the registry hold a partition of a
// queue the store does not know partitioned: another process declared it
// since the store's last read, and its partitions' keys carry tags this
// store would not make until it learns the count (a scheduler's sweep
// over the registry, an Inspector's listing).
func (s *Store) learnFromNames(ctx context.Context, names []string) {
	for _, name := range names {
		q, _, ok := store.SplitPartition(name)
		if !ok || s.partCount(q) > 0 {
			continue
		}
		if last := s.partsRead.Load(); time.Now().UnixNano()-last >= int64(time.Second) {
			s.partsRead.CompareAndSwap(last, 0)
			s.refreshShared(ctx)
		}
		return
	}
}

// addParts adds queues declared partitioned since the check to the
// store's counts (a count, once recorded, never changes).
func (s *Store) addParts(learnt map[string]int) {
	if len(learnt) == 0 {
		return
	}
	for {
		old := s.parts.Load()
		m := make(partitions, len(learnt))
		if old != nil {
			m = maps.Clone(*old)
		}
		var added []string
		for q, n := range learnt {
			if m[q] == 0 {
				m[q] = n
				added = append(added, q)
			}
		}
		if len(added) == 0 {
			return
		}
		if s.parts.CompareAndSwap(old, &m) {
			s.forgetPartitionNames(added)
			s.opts.Logger.Info(fmt.Sprintf("redisstore: queues declared partitioned by another process since this store started; using their partitions from now on: %v", added))
			return
		}
	}
}

// forgetPartitionNames drops what the store cached under the partition
// names of queues just learnt partitioned: keys made before, with the tag
// of a queue of that name (queueKeys caches none such since, but a call
// in flight may have), and the shape and registration learnt on them.
func (s *Store) forgetPartitionNames(queues []string) {
	for _, q := range queues {
		for i := range s.partCount(q) {
			name := store.PartitionName(q, i)
			s.keys.Delete(name)
			s.shapes.m.Delete(name)
			s.registered.Delete(name)
		}
	}
}
