package memstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// Finish ends claimed attempts and returns one error per request, in order:
// nil; an error wrapping store.ErrJobNotFound when the queue has no job with
// that ID; one wrapping store.ErrLeaseLost when the job exists but the
// token is not that of its current claim (the job was reclaimed, released,
// finished or claimed again); or the error of AttemptEnd.Validate. A
// request that fails changes nothing. A claim finished twice in one call:
// the first request wins, the others report ErrLeaseLost. A request sent
// again after it was applied returns nil and changes nothing while the
// job is where it put it under that claim (store.Store's Finish: an ack's
// job kept in done; a death's or cancel's in garbage; a retry's in retry,
// or in garbage cancelled).
// An expired lease that was not reclaimed yet still finishes.
//
// Outcomes, all on the store's clock:
//
//   - Ack deletes the job, or keeps it in done with its Result for the
//     request's Retention, else the queue's. Counted as done in
//     Throughput.
//   - Retry records Error and moves the job to retry, due after Delay. The
//     store does not check MaxRetries here: the worker chose the outcome.
//   - Garbage records Error and moves the job to garbage.
//   - Snooze moves the job to pending, due after Delay, and uncounts the
//     attempt.
//   - Release puts the job back at the front of ready, where it was claimed
//     from, and uncounts the attempt.
//   - Cancel records Error (ErrCancelled's text when nil) and moves the job to
//     garbage marked Cancelled.
//
// Retry and garbage and cancel count as failed in Throughput. A job flagged
// by Cancel that finishes with Retry, Snooze or Release is cancelled
// instead. The unique key is released when the job leaves for done,
// garbage or deletion. A zero AttemptError.At is stamped with now and a zero
// Attempt with the job's attempt.
func (s *Store) Finish(ctx context.Context, reqs []store.AttemptEnd) ([]error, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	errs := make([]error, len(reqs))
	now, nowMs := s.now()
	l := queueLock{s: s}
	var rel released
	for i := range reqs {
		r := &reqs[i]
		if err := r.Validate(); err != nil {
			errs[i] = err
			continue
		}
		q := l.get(r.Queue, false)
		if q == nil {
			errs[i] = fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, r.ID, r.Queue)
			continue
		}
		errs[i] = q.finish(r, now, nowMs, &rel)
		if errs[i] == errAppliedBefore {
			errs[i] = nil
			if endedEarlierInCall(reqs[:i], errs[:i], r.Ref()) {
				errs[i] = fmt.Errorf("%w: job %q of queue %q finished twice in one call", store.ErrLeaseLost, r.ID, r.Queue)
			}
		}
	}
	rel.attach()
	l.release()
	s.settleWorkflows()
	return errs, nil
}

// released holds the jobs one Finish call released, in request order.
type released []releasedJob

type releasedJob struct {
	q *queue
	j *job
}

// attach puts the released jobs back at the head of their queues, the
// last first, so that a batch released in one call (a worker handing back
// what it had claimed) keeps its order at the head. Their queues' locks
// must be held.
func (rel released) attach() {
	for i := len(rel) - 1; i >= 0; i-- {
		rel[i].q.attachFront(rel[i].j)
	}
}

// finish ends one claim; a released job goes to rel, for rel.attach.
// q.mu must be held.
func (q *queue) finish(r *store.AttemptEnd, now time.Time, nowMs int64, rel *released) error {
	j := q.jobs[r.ID]
	if j == nil {
		return fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, r.ID, q.name)
	}
	if j.rec.State != store.StateUnack || j.rec.Token != r.Token {
		if j.endedBy == r.Token && endedIn(r.Outcome, j) {
			return errAppliedBefore // nothing changes
		}
		return fmt.Errorf("%w: job %q of queue %q, token %d", store.ErrLeaseLost, r.ID, q.name, r.Token)
	}
	q.detach(j)
	q.leaveUnack(j)
	out := r.Outcome
	if j.rec.Cancelled {
		out = out.OnCancelled()
	}
	switch out {
	case store.OutcomeAck:
		addThroughput(&q.tput, nowMs, 1, 0)
		keep := r.Retention
		if keep <= 0 {
			keep = q.cfg.Retention
		}
		q.emit(store.EventSucceeded, j, now)
		q.taskNote(j, wfSucceeded, r.Result)
		if keep <= 0 {
			q.endedAcked(j, now, r.Result)
			q.forget(j)
			return nil
		}
		q.releaseUnique(j)
		j.rec.FinishedAt = now
		j.rec.Result = cloneBytes(r.Result)
		q.attach(j, store.StateDone, nowMs+mstime.Ceil(keep))
		j.endedBy = r.Token
		q.ended(j)
	case store.OutcomeRetry:
		addThroughput(&q.tput, nowMs, 0, 1)
		if r.Error != nil {
			addError(j, *r.Error, now)
		}
		due := nowMs + mstime.Ceil(r.Delay)
		j.rec.RunAt = atMs(now, nowMs, due)
		q.attach(j, store.StateRetry, due)
		j.endedBy = r.Token
		q.emitError(store.EventRetried, j, now)
	case store.OutcomeGarbage:
		addThroughput(&q.tput, nowMs, 0, 1)
		if r.Error != nil {
			addError(j, *r.Error, now)
		}
		q.toGarbage(j, now, nowMs)
		j.endedBy = r.Token
		q.emitError(store.EventDead, j, now)
	case store.OutcomeSnooze:
		j.rec.Attempt--
		due := nowMs + mstime.Ceil(r.Delay)
		j.rec.RunAt = atMs(now, nowMs, due)
		q.attach(j, store.StatePending, due)
		q.emit(store.EventSnoozed, j, now)
		if r.Outcome == store.OutcomeSnooze && r.Hold > 0 {
			if g := j.rec.Group; g != "" {
				q.ready.hold(g, nowMs+mstime.Ceil(r.Hold)) // its group alone
			} else {
				q.heldUntil = max(q.heldUntil, nowMs+mstime.Ceil(r.Hold))
			}
		}
	case store.OutcomeRelease:
		j.rec.Attempt--
		j.rec.State = store.StateReady // not in unack: a second request for it fails
		*rel = append(*rel, releasedJob{q, j})
		q.emit(store.EventReleased, j, now)
	case store.OutcomeCancel:
		addThroughput(&q.tput, nowMs, 0, 1)
		e := store.AttemptError{Error: store.ErrCancelled.Error()}
		if r.Error != nil && r.Outcome != store.OutcomeSnooze && r.Outcome != store.OutcomeRelease {
			e = *r.Error // snooze and release carry no error
		}
		addError(j, e, now)
		j.rec.Cancelled = true
		q.toGarbage(j, now, nowMs)
		j.endedBy = r.Token
		q.emitError(store.EventCancelled, j, now)
	}
	return nil
}

// errAppliedBefore is queue.finish's answer to a request that an earlier
// one of its claim applied: nil for Finish, unless that earlier request
// came in the same call (endedEarlierInCall).
var errAppliedBefore = errors.New("memstore: applied before")

// endedEarlierInCall reports whether one of a call's earlier requests
// (reqs, with their results errs) ended the claim ref: the request that
// finds its end applied is then the same claim ended twice in one call,
// refused as redisstore refuses it. Read on that path alone, no other
// request pays for it.
func endedEarlierInCall(reqs []store.AttemptEnd, errs []error, ref store.LeaseRef) bool {
	for j := range reqs {
		if errs[j] == nil && reqs[j].Ref() == ref {
			return true
		}
	}
	return false
}

// endedIn reports whether j is where an end with outcome o leaves it:
// done for an ack; garbage for a death or a cancel; retry for a retry, or
// garbage cancelled (the cancel flag turned the retry into a cancel, or
// Cancel moved the job on from retry).
func endedIn(o store.Outcome, j *job) bool {
	switch st := j.rec.State; o {
	case store.OutcomeAck:
		return st == store.StateDone
	case store.OutcomeRetry:
		return st == store.StateRetry || st == store.StateGarbage && j.rec.Cancelled
	case store.OutcomeGarbage, store.OutcomeCancel:
		return st == store.StateGarbage
	}
	return false
}

// Extend moves the lease deadline of each ref whose token is current to
// now+lease (rounded up to the millisecond), expired or not, and reports
// Held, the Cancel flag and the new Deadline. A held ref's Progress is
// stored with the job and emitted as a progress event (see
// store.LeaseRef). A ref whose token is stale, or
// whose job or queue does not exist, gets a zero LeaseStatus (Held false)
// and changes nothing; an invalid ref gets the error of LeaseRef.Validate.
// A lease below a millisecond fails the call with an error wrapping
// store.ErrInvalidConfig.
func (s *Store) Extend(ctx context.Context, refs []store.LeaseRef, lease time.Duration) ([]store.LeaseStatus, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if lease < store.MinLease {
		return nil, fmt.Errorf("%w: lease %v must be at least 1ms", store.ErrInvalidConfig, lease)
	}
	out := make([]store.LeaseStatus, len(refs))
	now, nowMs := s.now()
	deadlineMs := nowMs + mstime.Ceil(lease)
	deadline := atMs(now, nowMs, deadlineMs)
	l := queueLock{s: s}
	for i, r := range refs {
		if err := r.Validate(); err != nil {
			out[i].Err = err
			continue
		}
		q := l.get(r.Queue, false)
		if q == nil {
			continue
		}
		j := q.jobs[r.ID]
		if j == nil || j.rec.State != store.StateUnack || j.rec.Token != r.Token {
			continue
		}
		earlier := deadlineMs < j.at
		j.at = deadlineMs
		j.rec.Deadline = deadline
		q.unack.fix(j)
		if earlier && j.idx == 0 {
			q.signalSchedule() // a shortened lease now expires first
		}
		if r.Progress != nil {
			q.progress(j, r.Progress, now)
		}
		out[i] = store.LeaseStatus{Held: true, Cancel: j.rec.Cancelled, Deadline: deadline}
	}
	l.release()
	return out, nil
}
