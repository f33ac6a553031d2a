package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper/store"
)

// RequeueJobs moves jobs in state from (pending, retry, garbage or done) to the
// back of ready, due now, and returns how many moved. With ids nil it moves
// every job in from, in that state's list order; otherwise ids not in from
// are skipped. Attempts and error history are kept; RunAt becomes now, and
// FinishedAt, Result and the Cancelled flag are cleared (requeueing is an
// explicit request to run the job again). A job requeued from garbage or
// done does not take its unique key again: the key was released when it
// finished and may be held by another job by now.
func (s *Store) RequeueJobs(ctx context.Context, queue string, from store.JobState, ids []string) (int, error) {
	if err := store.ValidateRequeue(queue, from); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	q := s.lookup(queue)
	if q == nil {
		return 0, nil
	}
	now, _ := s.now()
	defer s.settleWorkflows() // after q.unlock
	q.mu.Lock()
	defer q.unlock()
	return q.each(from, ids, func(j *job) { q.requeue(j, now) }), nil
}

// requeue moves j to the back of ready, due now (see Requeue). A task's
// job requeued from garbage re-opens its task. q.mu must be held.
func (q *queue) requeue(j *job, now time.Time) {
	if j.rec.State == store.StateGarbage {
		q.taskNote(j, wfRequeued, nil)
	}
	q.detach(j)
	j.rec.RunAt = now
	j.rec.FinishedAt = time.Time{}
	j.rec.Result = nil
	j.rec.Cancelled = false
	q.attach(j, store.StateReady, 0)
	q.emit(store.EventRequeued, j, now)
}

// DeleteJobs removes jobs in state from, which may be any state but unack, and
// returns how many it removed; their unique keys are released. With ids nil
// it removes every job in from; otherwise ids not in from are skipped.
func (s *Store) DeleteJobs(ctx context.Context, queue string, from store.JobState, ids []string) (int, error) {
	if err := store.ValidateDelete(queue, from); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	q := s.lookup(queue)
	if q == nil {
		return 0, nil
	}
	now, _ := s.now()
	defer s.settleWorkflows() // after q.unlock
	q.mu.Lock()
	defer q.unlock()
	return q.each(from, ids, func(j *job) {
		if st := j.rec.State; st != store.StateDone && st != store.StateGarbage {
			q.taskNote(j, wfFailed, nil) // a task's job deleted before it ended
		}
		q.emit(store.EventDeleted, j, now)
		q.detach(j)
		q.deleted(j)
		q.forget(j)
	}), nil
}

// each calls fn, which must take the job out of from, for every job of ids
// that is in from, or with ids nil for every job in from, and returns how
// many. q.mu must be held.
func (q *queue) each(from store.JobState, ids []string, fn func(*job)) int {
	n := 0
	if ids == nil {
		// At most the jobs in from now: fn takes each out of from, and
		// bounding the loop keeps it finite whatever fn does.
		for left := q.count(from); left > 0; left-- {
			var j *job
			if from == store.StateReady {
				j = q.ready.first()
			} else {
				j = q.heapOf(from).peek()
			}
			if j == nil {
				return n
			}
			fn(j)
			n++
		}
	}
	for _, id := range ids {
		if j := q.jobs[id]; j != nil && j.rec.State == from {
			fn(j)
			n++
		}
	}
	return n
}

// CancelJob stops the job id and returns the state it was in. A job waiting in
// pending, ready or retry moves to garbage at once, marked Cancelled, with an
// AttemptError of ErrCancelled's text and its unique key released. A job in unack is
// only flagged: Extend reports it to its worker, which finishes it with
// OutcomeCancel, and a flagged job finished with Retry, Snooze or Release,
// or reclaimed after its lease expired, goes to garbage cancelled too. A job
// in garbage or done is left as it is. An unknown job gives an error wrapping
// store.ErrJobNotFound.
func (s *Store) CancelJob(ctx context.Context, queue, id string) (store.JobState, error) {
	if err := store.ValidateQueue(queue); err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	q := s.lookup(queue)
	if q == nil {
		return "", fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
	}
	now, nowMs := s.now()
	defer s.settleWorkflows() // after q.unlock
	q.mu.Lock()
	defer q.unlock()
	j := q.jobs[id]
	if j == nil {
		return "", fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
	}
	return q.cancel(j, now, nowMs), nil
}

// cancel stops j (see Cancel) and returns the state it was in. q.mu must
// be held.
func (q *queue) cancel(j *job, now time.Time, nowMs int64) store.JobState {
	st := j.rec.State
	switch st {
	case store.StatePending, store.StateReady, store.StateRetry:
		q.detach(j)
		j.rec.Cancelled = true
		addError(j, store.AttemptError{Error: store.ErrCancelled.Error()}, now)
		q.toGarbage(j, now, nowMs)
		q.emitError(store.EventCancelled, j, now)
	case store.StateUnack:
		j.rec.Cancelled = true
	}
	return st
}
