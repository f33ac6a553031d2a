package memstore

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper/store"
)

var _ store.JobWaiter = (*Store)(nil)

// WatchJob watches the job until it ends or ctx is done (see
// store.JobWaiter): acked, dead, cancelled or deleted. An acked job not
// kept in done ends as it was at its ack: State StateDone, FinishedAt and
// the Result the worker sent. Watching costs nothing to the queue's other
// jobs and no goroutine.
func (s *Store) WatchJob(ctx context.Context, queue, id string) (<-chan store.JobEnd, error) {
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if err := store.ValidateID(id); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := s.lookup(queue)
	if q == nil {
		return nil, fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	j := q.jobs[id]
	if j == nil {
		return nil, fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
	}
	if st := j.rec.State; st == store.StateDone || st == store.StateGarbage {
		return alreadyEnded(store.JobEnd{Job: copyRecord(&j.rec)}), nil
	}
	return q.awaited.add(ctx, &q.mu, id, func(err error) store.JobEnd { return store.JobEnd{Err: err} }), nil
}

// ended hands j's end to its watchers. q.mu must be held.
func (q *queue) ended(j *job) {
	if len(q.awaited) == 0 {
		return
	}
	q.awaited.end(j.rec.ID, func() store.JobEnd { return store.JobEnd{Job: copyRecord(&j.rec)} })
}

// endedAcked is ended for a job acked without retention, which is about
// to be forgotten: its watchers see it done with result.
func (q *queue) endedAcked(j *job, now time.Time, result []byte) {
	if len(q.awaited) == 0 {
		return
	}
	j.rec.State = store.StateDone
	j.rec.FinishedAt = now
	j.rec.Token, j.rec.Deadline = 0, time.Time{}
	j.rec.Result = result
	q.ended(j)
	j.rec.Result = nil
}

// deleted tells j's watchers that j was deleted. q.mu must be held.
func (q *queue) deleted(j *job) {
	if len(q.awaited) == 0 {
		return
	}
	ws, ok := q.awaited[j.rec.ID]
	if !ok {
		return
	}
	delete(q.awaited, j.rec.ID)
	for _, w := range ws {
		w.send(store.JobEnd{Err: fmt.Errorf("%w: job %q of queue %q was deleted", store.ErrJobNotFound, j.rec.ID, q.name)})
	}
}
