package redisstore

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/hopperq/hopper/store"
)

// The operations on a partitioned queue as a whole (Config.Partitions):
// each runs on every partition, or on the one that holds the job.

// firstFound runs f on each partition in turn and returns the first result
// that is not store.ErrJobNotFound (or that error when no partition holds
// the job).
func firstFound[T any](parts []string, f func(part string) (T, error)) (T, error) {
	var v T
	var err error
	for _, p := range parts {
		v, err = f(p)
		if !errors.Is(err, store.ErrJobNotFound) {
			return v, err
		}
	}
	return v, err
}

// sumParts runs f on every partition and adds what they report; it stops
// at the first error, returning the sum so far.
func sumParts(parts []string, f func(part string) (int, error)) (int, error) {
	total := 0
	for _, p := range parts {
		n, err := f(p)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// partHolding returns the partition of queue whose job hash holds id, or
// the partition of id as a routing key when none does (a job that ended
// and was removed, or was never enqueued).
func (s *Store) partHolding(ctx context.Context, queue string, parts []string, id string) (string, error) {
	for _, p := range parts {
		ok, err := s.rdb.HExists(ctx, s.queueKeys(p).jobs, id).Result()
		if err != nil {
			return "", wrap("find job "+id, err)
		}
		if ok {
			return p, nil
		}
	}
	return store.PartitionName(queue, partIndex(id, len(parts))), nil
}

// partsStats sums the statistics of a partitioned queue: counts and rate
// use add up, the latency is the largest, the configuration is the first
// partition's (SetQueueConfig gives all the same).
func (s *Store) partsStats(ctx context.Context, queue string, parts []string) (store.QueueStats, error) {
	sum := store.QueueStats{Queue: queue}
	for i, p := range parts {
		st, err := s.GetQueueStats(ctx, p)
		if err != nil {
			return store.QueueStats{}, err
		}
		sum.Counts.Add(st.Counts)
		if i == 0 {
			sum.Config = st.Config
		}
		sum.Latency = max(sum.Latency, st.Latency)
		sum.RateUsed += st.RateUsed
		if st.HeldUntil.After(sum.HeldUntil) {
			sum.HeldUntil = st.HeldUntil
		}
		sum.KindIndexBuilding = sum.KindIndexBuilding || st.KindIndexBuilding
	}
	return sum, nil
}

// setPartsConfig gives every partition of queue the configuration cfg,
// when old is nil or equals the first partition's (the one GetQueueStats
// reports): a compare-and-swap on the first partition, then a write of
// the others, so two swaps at once on a partitioned queue may leave the
// later partitions with the settings of the one that wrote them last. A
// queue-wide cap or rate limit cannot hold across slots: it is refused.
func (s *Store) setPartsConfig(ctx context.Context, queue string, parts []string, old *store.QueueConfig, cfg store.QueueConfig) (bool, error) {
	if cfg.MaxRunning > 0 || cfg.RateLimit > 0 {
		return false, fmt.Errorf("%w: queue %q has %d partitions: MaxRunning and RateLimit would count each partition apart; use GroupMaxRunning or GroupRateLimit, which hold exactly (a group lives in one partition)", store.ErrInvalidConfig, queue, len(parts))
	}
	for i, p := range parts {
		if ok, err := s.swapOneConfig(ctx, p, old, cfg); err != nil || !ok {
			return false, err
		}
		if i == 0 {
			old = nil
		}
	}
	return true, nil
}

// partsGroups lists the groups of every partition (a group lives in one),
// sorted by name, at most limit (0 or less: all).
func (s *Store) partsGroups(ctx context.Context, parts []string, limit int) ([]store.GroupStats, error) {
	var all []store.GroupStats
	for _, p := range parts {
		g, err := s.ListGroups(ctx, p, limit)
		if err != nil {
			return nil, err
		}
		all = append(all, g...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].Group < all[j].Group })
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	return all, nil
}

// partsThroughput adds up the throughput points of every partition.
func (s *Store) partsThroughput(ctx context.Context, parts []string, since time.Time) ([]store.ThroughputPoint, error) {
	type at struct {
		m time.Time
		d time.Duration
	}
	idx := map[at]int{}
	var out []store.ThroughputPoint
	for _, p := range parts {
		pts, err := s.GetThroughput(ctx, p, since)
		if err != nil {
			return nil, err
		}
		for _, pt := range pts {
			k := at{pt.Minute, pt.Span}
			if i, ok := idx[k]; ok {
				out[i].Done += pt.Done
				out[i].Failed += pt.Failed
				continue
			}
			idx[k] = len(out)
			out = append(out, pt)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Minute.Before(out[j].Minute) })
	return out, nil
}
