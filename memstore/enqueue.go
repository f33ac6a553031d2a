package memstore

import (
	"context"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// Enqueue adds jobs, each to pending when due in the future or to the back of
// ready otherwise, and returns one result per job in order.
//
// Every job is first checked with store.ValidateJobs: one invalid (or nil) job
// fails the whole call with its error and nothing is added. Then, per job, in
// this order: an ID already present in the queue in any state (done and
// garbage included) gives a duplicate naming that ID; a unique key held by a
// live job (whose UniqueFor has not run out) gives a duplicate naming the
// holder; a periodic tick not later than the schedule's last recorded tick
// (compared at millisecond resolution) gives a duplicate with an empty ID. A
// job that passes records its tick and takes its unique key in the same step.
// Jobs earlier in the same call count: the same ID twice adds one job.
// A duplicate with NewJob.Replace changes the waiting job that holds the ID
// or key as store.Replace's table says (replace.go).
//
// The due time is RunAt when set, else now+Delay, rounded up to the
// millisecond; the record's RunAt is that due time (so now when neither
// RunAt nor a positive Delay is given) and EnqueuedAt is now, on the store's
// clock. Args and the JobSpec are copied.
func (s *Store) Enqueue(ctx context.Context, jobs []*store.NewJob) ([]store.EnqueueResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := store.ValidateJobs(jobs); err != nil {
		return nil, err
	}
	res := make([]store.EnqueueResult, len(jobs))
	now, nowMs := s.now()
	l := queueLock{s: s}
	for i, nj := range jobs {
		res[i] = l.get(nj.Queue, true).enqueue(nj, now, nowMs)
	}
	l.release()
	return res, nil
}

// enqueue adds one valid job. q.mu must be held.
func (q *queue) enqueue(nj *store.NewJob, now time.Time, nowMs int64) store.EnqueueResult {
	if _, ok := q.jobs[nj.ID]; ok {
		res, _ := q.replace(nj.ID, nj, now, nowMs)
		return res
	}
	if k := nj.UniqueKey; k != "" {
		if h, ok := q.unique[k]; ok && (h.until == 0 || h.until > nowMs) {
			// A key a running job holds passes to nj when nj asks for a
			// change: the running job cannot take it.
			if res, running := q.replace(h.id, nj, now, nowMs); !running {
				return res
			}
		}
	}
	if nj.Replace&store.ReplaceOnly != 0 {
		return store.EnqueueResult{ID: nj.ID, Duplicate: true}
	}
	if nj.Schedule != "" {
		tick := nj.Tick.Truncate(time.Millisecond)
		if last, ok := q.ticks[nj.Schedule]; ok && !tick.After(last) {
			return store.EnqueueResult{Duplicate: true}
		}
		q.ticks[nj.Schedule] = tick
	}

	dueMs := nowMs + mstime.Ceil(nj.Delay)
	if !nj.RunAt.IsZero() {
		dueMs = mstime.CeilUnix(nj.RunAt)
	}
	j := q.newJob()
	args := j.rec.Args
	if nj.Args == nil {
		args = nil
	} else if args = append(args, nj.Args...); args == nil {
		args = []byte{}
	}
	j.rec = store.JobRecord{
		ID:         nj.ID,
		Queue:      q.name,
		Kind:       nj.Kind,
		Args:       args,
		JobSpec:    nj.JobSpec.Clone(),
		EnqueuedAt: now,
		RunAt:      atMs(now, nowMs, dueMs),
	}
	q.jobs[nj.ID] = j
	q.births++
	j.born = q.births
	q.indexKind(j)
	if k := nj.UniqueKey; k != "" {
		h := uniqueHold{id: nj.ID}
		if nj.UniqueFor > 0 {
			h.until = nowMs + mstime.Ceil(nj.UniqueFor)
		}
		q.unique[k] = h
	}
	st := store.StateReady
	if dueMs > nowMs {
		st = store.StatePending
		q.attach(j, st, dueMs)
	} else {
		q.attach(j, st, 0)
	}
	if ev := q.emit(store.EventEnqueued, j, now); ev != nil {
		ev.State = st
	}
	return store.EnqueueResult{ID: nj.ID, State: st}
}
