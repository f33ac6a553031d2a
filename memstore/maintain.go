package memstore

import (
	"context"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// Maintain runs the scheduler's duties on queue, in this order, each moving
// or deleting at most opts.Batch jobs (see MaintainOpts.Normalize):
//
//  1. Reclaim: unack jobs whose lease deadline is not after now go to
//     garbage when their Attempt exceeds MaxRetries (or they were
//     cancelled), otherwise back to the head of ready, each to the head of
//     its group or priority level, in the order they were claimed (see
//     store.Store's Maintain: the place of a redelivered job); either way
//     with an AttemptError of store.ErrLeaseExpired's text, counted as
//     failed in Throughput.
//  2. Promote: due pending and retry jobs go to the back of ready, the
//     earliest due first.
//  3. Collect done: done jobs whose retention has run out are deleted.
//  4. Collect garbage: garbage jobs finished at least GarbageMaxAge ago
//     (when set), then the oldest beyond GarbageMaxCount (when set), are
//     deleted.
//
// More is true when a duty stopped at its batch with due work left. NextIn is
// the time until the earliest pending or retry due time, lease deadline, done
// expiry or (with GarbageMaxAge) garbage expiry, zero when some are already
// due; Idle is true when there is none of these. A queue never seen is Idle.
// Negative options give an error wrapping store.ErrInvalidConfig.
func (s *Store) Maintain(ctx context.Context, queue string, opts store.MaintainOpts) (store.MaintainResult, error) {
	var res store.MaintainResult
	if err := ctx.Err(); err != nil {
		return res, err
	}
	if err := store.ValidateQueue(queue); err != nil {
		return res, err
	}
	opts, err := opts.Normalize()
	if err != nil {
		return res, err
	}
	batch := opts.Batch
	q := s.lookup(queue)
	if q == nil {
		res.Idle = true
		return res, nil
	}
	now, nowMs := s.now()
	ageMs := mstime.Ceil(opts.GarbageMaxAge)
	defer s.settleWorkflows() // after q.unlock
	q.mu.Lock()
	defer q.unlock()

	var back []*job // reclaimed for another attempt, in claim order
	for j := q.unack.peek(); j != nil && j.at <= nowMs && res.Reclaimed < batch; j = q.unack.peek() {
		if q.reclaim(j, now, nowMs) {
			back = append(back, j)
		}
		res.Reclaimed++
	}
	// To the head of ready, the last first: they keep their claim order
	// ahead of the jobs that were ready.
	for i := len(back) - 1; i >= 0; i-- {
		q.attachFront(back[i])
		q.emit(store.EventPromoted, back[i], now)
	}
	for res.Promoted < batch {
		j := q.nextDue()
		if j == nil || j.at > nowMs {
			break
		}
		q.detach(j)
		q.attach(j, store.StateReady, 0)
		q.emit(store.EventPromoted, j, now)
		res.Promoted++
	}
	n := 0
	for j := q.done.peek(); j != nil && j.at <= nowMs && n < batch; j = q.done.peek() {
		q.drop(j)
		n++
	}
	res.Collected = n
	n = 0
	for j := q.garbage.peek(); j != nil && n < batch && (ageMs > 0 && j.at+ageMs <= nowMs ||
		opts.GarbageMaxCount > 0 && len(q.garbage) > opts.GarbageMaxCount); j = q.garbage.peek() {
		q.drop(j)
		n++
	}
	res.Collected += n

	q.ready.forgetQuiet(nowMs, q.cfg.GroupRate())
	next, ok := q.nextEvent(ageMs)
	// Once a minute, the queue's depth and latency for its history.
	res.Backlog = q.sampleDepth(now, nowMs)
	res.Idle = !ok
	res.More = ok && next <= nowMs ||
		opts.GarbageMaxCount > 0 && len(q.garbage) > opts.GarbageMaxCount
	if ok {
		res.NextIn = untilMs(nowMs, next)
	}
	return res, nil
}

// sampleDepth records the queue's ready count and the latency of its
// oldest ready job in the minute of nowMs, once, and reports whether jobs
// are ready. q.mu must be held.
func (q *queue) sampleDepth(now time.Time, nowMs int64) bool {
	ready := int64(q.ready.n)
	if q.tput == nil && ready == 0 {
		return false
	}
	var lat time.Duration
	if j := q.ready.oldest(); j != nil {
		lat = max(now.Sub(readySince(j)), 0)
	}
	if q.tput == nil {
		q.tput = new(throughput)
	}
	q.tput.sample(nowMs, ready, lat)
	return ready > 0
}

// reclaim takes j, whose lease expired, out of unack, to garbage or, when
// it reports true, detached for another attempt, for the caller to put at
// the head of ready. q.mu must be held.
func (q *queue) reclaim(j *job, now time.Time, nowMs int64) bool {
	q.detach(j)
	q.leaveUnack(j)
	addThroughput(&q.tput, nowMs, 0, 1)
	addError(j, store.AttemptError{Error: store.ErrLeaseExpired.Error()}, now)
	o := store.OutcomeRetry
	if j.rec.Attempt > j.rec.MaxRetries {
		o = store.OutcomeGarbage
	}
	if j.rec.Cancelled {
		o = o.OnCancelled()
	}
	if o != store.OutcomeRetry {
		q.toGarbage(j, now, nowMs)
		typ := store.EventDead
		if j.rec.Cancelled {
			typ = store.EventCancelled
		}
		q.emitError(typ, j, now)
		return false
	}
	j.rec.RunAt = now
	q.emitError(store.EventRetried, j, now)
	return true
}

// nextDue returns the earliest of the pending and retry jobs, or nil.
func (q *queue) nextDue() *job {
	p, r := q.pending.peek(), q.retry.peek()
	if p == nil || r != nil && before(r, p) {
		return r
	}
	return p
}

// nextEvent returns the Unix ms at which Maintain has work next: a due
// pending or retry job, an expiring lease, an expiring done job or, when
// ageMs > 0, a garbage job reaching that age. ok is false when there is
// none. q.mu must be held.
func (q *queue) nextEvent(ageMs int64) (at int64, ok bool) {
	consider := func(j *job, add int64) {
		if j != nil && (!ok || j.at+add < at) {
			at, ok = j.at+add, true
		}
	}
	consider(q.nextDue(), 0)
	consider(q.unack.peek(), 0)
	consider(q.done.peek(), 0)
	if ageMs > 0 {
		consider(q.garbage.peek(), ageMs)
	}
	return at, ok
}
