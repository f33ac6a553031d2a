package memstore

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper/store"
)

// SetGroupLimit gives group of queue a cap of its own (see store.Groups);
// limit 0 removes it. The next Claim follows it; a loosened cap wakes
// WaitReady.
func (s *Store) SetGroupLimit(ctx context.Context, queue, group string, limit int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.ValidateGroupLimit(queue, group, limit); err != nil {
		return err
	}
	q := s.queue(queue, true)
	q.mu.Lock()
	defer q.mu.Unlock()
	if limit > 0 {
		if gs := q.ready.groups[group]; (gs == nil || gs.limit == 0) && q.ownLimits() >= store.MaxGroupLimits {
			return fmt.Errorf("%w: queue %q already has %d groups with caps of their own", store.ErrInvalidConfig, queue, store.MaxGroupLimits)
		}
	}
	if q.ready.setLimit(group, limit, q.cfg.GroupMaxRunning) {
		q.signalReady()
	}
	return nil
}

// ownLimits counts the groups of q with a cap of their own. q.mu must be
// held.
func (q *queue) ownLimits() int {
	n := 0
	for _, gs := range q.ready.groups {
		if gs.limit > 0 {
			n++
		}
	}
	return n
}

// ListGroups returns the groups of queue with ready or running jobs or a cap
// of their own, sorted by name (see store.Groups).
func (s *Store) ListGroups(ctx context.Context, queue string, limit int) ([]store.GroupStats, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	q := s.lookup(queue)
	if q == nil {
		return nil, nil
	}
	now, nowMs, _ := s.nowUs()
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []store.GroupStats
	for _, g := range q.ready.groupNames() {
		gs := q.ready.groups[g]
		held := gs.heldUntil > nowMs
		if gs.ready.n == 0 && gs.running == 0 && gs.limit == 0 && !held {
			continue
		}
		if limit > 0 && len(out) == limit {
			break
		}
		st := store.GroupStats{Group: g, Ready: int64(gs.ready.n), Running: int64(gs.running), Limit: gs.limit, Own: gs.limit > 0}
		if !st.Own {
			st.Limit = q.cfg.GroupMaxRunning
		}
		if held {
			st.HeldUntil = atMs(now, nowMs, gs.heldUntil)
		}
		out = append(out, st)
	}
	return out, nil
}
