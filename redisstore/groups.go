package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hopperq/hopper/store"
)

// SetGroupLimit gives group of queue a cap of its own on running jobs,
// or removes it with limit 0 (see store.Groups). The next claim of every
// worker follows it; a loosened cap wakes idle workers.
func (s *Store) SetGroupLimit(ctx context.Context, queue, group string, limit int) error {
	if err := store.ValidateGroupLimit(queue, group, limit); err != nil {
		return err
	}
	if err := s.begin(ctx, queue); err != nil {
		return err
	}
	if q, _, ok := store.SplitPartition(queue); ok {
		// begin let through only a partition that exists.
		return fmt.Errorf("%w: %q is a partition of %q: set group %q's cap on %q, which keeps it in the group's partition", store.ErrInvalidConfig, queue, q, group, q)
	}
	if n := s.partCount(queue); n > 0 {
		queue = store.PartitionName(queue, partIndex(group, n)) // where the group's jobs go (route)
	}
	if err := s.register(ctx, queue); err != nil {
		return wrap("set the cap of group "+strconv.Quote(group), err)
	}
	ok, err := s.runQ(ctx, fullScript("group_limit"), queue, group, limit, store.MaxGroupLimits).Int()
	if err != nil {
		return wrap("set the cap of group "+strconv.Quote(group), err)
	}
	if ok == 0 {
		return fmt.Errorf("%w: queue %q already has %d groups with caps of their own", store.ErrInvalidConfig, queue, store.MaxGroupLimits)
	}
	return nil
}

// ListGroups returns the groups of queue with ready or running jobs, a cap
// of their own or a hold in force, sorted by name (see store.Groups); read
// by one script, in time linear in the queue's groups.
func (s *Store) ListGroups(ctx context.Context, queue string, limit int) ([]store.GroupStats, error) {
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if err := s.begin(ctx, queue); err != nil {
		return nil, err
	}
	if parts := s.partNames(queue); parts != nil {
		return s.partsGroups(ctx, parts, limit)
	}
	v, err := s.runQ(ctx, fullScript("groups"), queue, max(limit, 0)).Slice()
	if err == nil && (len(v) < 1 || (len(v)-1)%5 != 0) {
		err = fmt.Errorf("unexpected reply of %d values", len(v))
	}
	if err != nil {
		return nil, wrap("groups of "+strconv.Quote(queue), err)
	}
	def, _ := strconv.Atoi(fmt.Sprint(v[0]))
	out := make([]store.GroupStats, 0, (len(v)-1)/5)
	for i := 1; i+5 <= len(v); i += 5 {
		g := store.GroupStats{Limit: def}
		g.Group, _ = v[i].(string)
		g.Ready, _ = v[i+1].(int64)
		g.Running, _ = v[i+2].(int64)
		if own, _ := v[i+3].(string); own != "" {
			g.Limit, _ = strconv.Atoi(own)
			g.Own = true
		}
		if held, _ := v[i+4].(string); held != "" {
			if ms, err := strconv.ParseInt(held, 10, 64); err == nil {
				g.HeldUntil = time.UnixMilli(ms)
			}
		}
		out = append(out, g)
	}
	return out, nil
}
