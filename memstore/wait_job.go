package memstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

var _ store.JobWaiter = (*Store)(nil)

// jobWatch is one WatchJob call waiting. Its fields are guarded by the
// queue's mutex.
type jobWatch struct {
	ch   chan store.JobEnd // one slot: it receives once
	done bool
	stop func() bool // unregisters the context's callback
}

// send delivers the watch's end once. q.mu must be held.
func (w *jobWatch) send(end store.JobEnd) {
	if w.done {
		return
	}
	w.done = true
	w.ch <- end
	close(w.ch)
	if w.stop != nil {
		w.stop()
	}
}

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
		return nil, fmt.Errorf("%w: %s/%s", store.ErrJobNotFound, queue, id)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	j := q.jobs[id]
	if j == nil {
		return nil, fmt.Errorf("%w: %s/%s", store.ErrJobNotFound, queue, id)
	}
	w := &jobWatch{ch: make(chan store.JobEnd, 1)}
	if st := j.rec.State; st == store.StateDone || st == store.StateGarbage {
		w.send(store.JobEnd{Job: copyRecord(&j.rec)})
		return w.ch, nil
	}
	if q.awaited == nil {
		q.awaited = make(map[string][]*jobWatch)
	}
	q.awaited[id] = append(q.awaited[id], w)
	w.stop = context.AfterFunc(ctx, func() {
		q.mu.Lock()
		defer q.mu.Unlock()
		if ws := slices.DeleteFunc(q.awaited[id], func(x *jobWatch) bool { return x == w }); len(ws) > 0 {
			q.awaited[id] = ws
		} else {
			delete(q.awaited, id)
		}
		w.send(store.JobEnd{Err: ctx.Err()})
	})
	return w.ch, nil
}

// ended hands j's end to its watchers. q.mu must be held.
func (q *queue) ended(j *job) {
	if len(q.awaited) == 0 {
		return
	}
	ws, ok := q.awaited[j.rec.ID]
	if !ok {
		return
	}
	delete(q.awaited, j.rec.ID)
	for _, w := range ws {
		w.send(store.JobEnd{Job: copyRecord(&j.rec)})
	}
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
		w.send(store.JobEnd{Err: fmt.Errorf("%w: %s/%s was deleted", store.ErrJobNotFound, q.name, j.rec.ID)})
	}
}
