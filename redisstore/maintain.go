package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// Maintain runs the scheduler's duties on one queue in one script call
// (see store.Store), in this order: promote due pending and retry jobs to
// the back of ready (oldest due first), reclaim expired leases (back to
// the head of ready, each to the head of its group or priority level, by
// lease deadline then ID, or to garbage when the attempts are used up or
// the job was cancelled; an error is recorded either way), collect done
// jobs past their retention, then garbage past opts.GarbageMaxAge and
// beyond opts.GarbageMaxCount (oldest first).
func (s *Store) Maintain(ctx context.Context, queue string, opts store.MaintainOpts) (_ store.MaintainResult, err error) {
	defer func() { err = s.closedCheck(ctx, err) }() // a closed client is final for a Scheduler too
	if err := s.begin(ctx, queue); err != nil {
		return store.MaintainResult{}, err
	}
	opts, err = opts.Normalize()
	if err != nil {
		return store.MaintainResult{}, err
	}
	if parts := s.partNames(queue); parts != nil {
		return s.maintainParts(ctx, parts, opts)
	}
	return s.maintainOne(ctx, queue, opts)
}

// maintainParts maintains every partition of a queue, one call each, and
// sums what they did: More and Backlog when any partition says so, Idle
// when all do, NextIn the soonest. It stops at the first error.
func (s *Store) maintainParts(ctx context.Context, parts []string, opts store.MaintainOpts) (store.MaintainResult, error) {
	sum := store.MaintainResult{Idle: true}
	for _, p := range parts {
		r, err := s.maintainOne(ctx, p, opts)
		if err != nil {
			return store.MaintainResult{}, err
		}
		sum.Promoted += r.Promoted
		sum.Reclaimed += r.Reclaimed
		sum.Collected += r.Collected
		sum.More = sum.More || r.More
		sum.Backlog = sum.Backlog || r.Backlog
		if !r.Idle && (sum.Idle || r.NextIn < sum.NextIn) {
			sum.NextIn = r.NextIn
			sum.Idle = false
		}
	}
	return sum, nil
}

// maintainOne maintains one queue or partition.
func (s *Store) maintainOne(ctx context.Context, queue string, opts store.MaintainOpts) (store.MaintainResult, error) {
	batch := opts.Batch
	c := shapedCall("maintain", queue, variant{wf: "record"}, nil, batch, mstime.Ceil(opts.GarbageMaxAge), opts.GarbageMaxCount)
	v, err := s.runShaped(ctx, c).Int64Slice()
	if err == nil && len(v) != 7 {
		err = fmt.Errorf("unexpected reply of %d values", len(v))
	}
	if err != nil {
		return store.MaintainResult{}, wrap("maintain "+strconv.Quote(queue), err)
	}
	res := store.MaintainResult{
		Promoted:  int(v[0]),
		Reclaimed: int(v[1]),
		Collected: int(v[2]),
		More:      v[3] == 1,
		Backlog:   v[6] == 1,
	}
	if v[4] < 0 {
		res.Idle = true
	} else {
		res.NextIn = time.Duration(v[4]) * time.Microsecond
	}
	if v[5] > 0 {
		// Reclaimed workflow tasks died: apply their ends now.
		s.deliverEnds(ctx, []queueEnds{{queue: queue}})
	}
	return res, nil
}
