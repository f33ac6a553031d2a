package redisstore

import (
	"context"
	"fmt"
	"strconv"

	"github.com/hopperq/hopper/store"
)

// adminBatch is how many jobs one script call of Requeue or Delete moves
// when asked for all of a state, so that no call blocks Redis for long.
const adminBatch = 500

// RequeueJobs moves jobs in state from (pending, retry, garbage or done) to the
// back of ready, keeping their attempts (see store.Store). A requeued
// garbage job is no longer marked cancelled; a requeued done job loses its
// result. Unique keys released when the jobs finished are not taken again.
// With ids nil the state is emptied in batches of 500 jobs, each batch one
// atomic step.
func (s *Store) RequeueJobs(ctx context.Context, queue string, from store.JobState, ids []string) (int, error) {
	if err := store.ValidateRequeue(queue, from); err != nil {
		return 0, err
	}
	if err := s.begin(ctx, queue); err != nil {
		return 0, err
	}
	if parts := s.partNames(queue); parts != nil {
		return sumParts(parts, func(p string) (int, error) { return s.RequeueJobs(ctx, p, from, ids) })
	}
	n, err := s.batchAdmin(ctx, "requeue", fullScript("requeue"), queue, from, ids)
	if n > 0 && from == store.StateGarbage {
		s.deliverEnds(ctx, endsOf(queue, ids))
	}
	return n, err
}

// DeleteJobs removes jobs in state from, any state but unack (see
// store.Store), releasing their unique keys. Deleting given ready jobs
// costs a scan of the ready list per job. With ids nil the state is emptied
// in batches of 500 jobs.
func (s *Store) DeleteJobs(ctx context.Context, queue string, from store.JobState, ids []string) (int, error) {
	if err := store.ValidateDelete(queue, from); err != nil {
		return 0, err
	}
	if err := s.begin(ctx, queue); err != nil {
		return 0, err
	}
	if parts := s.partNames(queue); parts != nil {
		return sumParts(parts, func(p string) (int, error) { return s.DeleteJobs(ctx, p, from, ids) })
	}
	n, err := s.batchAdmin(ctx, "delete", fullScript("delete"), queue, from, ids)
	if n > 0 && from != store.StateGarbage && from != store.StateDone {
		s.deliverEnds(ctx, endsOf(queue, ids))
	}
	return n, err
}

// batchAdmin runs the requeue or delete script on ids, in slices of
// adminBatch, or with ids nil on everything in batches until a batch comes
// back short.
func (s *Store) batchAdmin(ctx context.Context, op string, sc *script, queue string, from store.JobState, ids []string) (int, error) {
	keys := s.scriptKeys(sc, s.queueKeys(queue), "")
	total := 0
	if ids == nil {
		for {
			n, err := s.run(ctx, sc, keys, "all", string(from), adminBatch).Int()
			if err != nil {
				return total, wrap(op, err)
			}
			total += n
			if n < adminBatch {
				return total, nil
			}
		}
	}
	for len(ids) > 0 {
		part := ids[:min(len(ids), adminBatch)]
		ids = ids[len(part):]
		args := make([]any, 0, 2+len(part))
		args = append(args, "ids", string(from))
		for _, id := range part {
			args = append(args, id)
		}
		n, err := s.run(ctx, sc, keys, args...).Int()
		if err != nil {
			return total, wrap(op, err)
		}
		total += n
	}
	return total, nil
}

// cancelledText is the error recorded for a waiting job that Cancel moved
// to garbage.
var cancelledText = store.ErrCancelled.Error()

// CancelJob stops a job (see store.Store): a pending, ready or retry job moves
// to garbage at once, marked cancelled, with ErrCancelled's text in its
// errors and its unique key released; a running job is flagged, which its
// worker sees through Extend and which Finish and reclaim honour; garbage
// and done stay as they are. Cancelling a ready job scans the ready list.
func (s *Store) CancelJob(ctx context.Context, queue, id string) (store.JobState, error) {
	if err := s.begin(ctx, queue); err != nil {
		return "", err
	}
	if parts := s.partNames(queue); parts != nil {
		return firstFound(parts, func(p string) (store.JobState, error) { return s.CancelJob(ctx, p, id) })
	}
	st, err := s.runQ(ctx, fullScript("cancel"), queue, id, cancelledText).Text()
	if err != nil {
		return "", wrap("cancel job "+strconv.Quote(id), err)
	}
	if st == "" {
		return "", fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
	}
	if st != "unack" && st != "garbage" && st != "done" {
		s.deliverEnds(ctx, endsOf(queue, []string{id}))
	}
	return store.JobState(st), nil
}
