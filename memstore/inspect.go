package memstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// ListQueues lists, sorted by name, every queue a job was enqueued to or whose
// config was set since the store was created. Queues emptied since are
// still listed.
func (s *Store) ListQueues(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m := *s.queues.Load()
	names := make([]string, 0, len(m))
	for name, q := range m {
		if q.seen.Load() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// GetQueueStats reports the jobs per state of queue, its config as last set
// (zero fields stay zero: RatePeriod zero means one second) and its
// latency: now minus the later of EnqueuedAt and RunAt of the job at the
// front of ready, zero when ready is empty. A queue never seen reports
// zeros.
func (s *Store) GetQueueStats(ctx context.Context, queue string) (store.QueueStats, error) {
	st := store.QueueStats{Queue: queue}
	if err := store.ValidateQueue(queue); err != nil {
		return st, err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	q := s.lookup(queue)
	if q == nil {
		return st, nil
	}
	now, nowMs, nowUs := s.nowUs()
	q.mu.Lock()
	defer q.mu.Unlock()
	st.Config = q.cfg
	if q.cfg.RateLimit > 0 {
		st.RateUsed = q.rate.inUse(nowUs, q.cfg.QueueRate())
	}
	if q.heldUntil > nowMs {
		st.HeldUntil = atMs(now, nowMs, q.heldUntil)
	}
	st.Counts = store.StateCounts{
		Pending: int64(len(q.pending)),
		Ready:   int64(q.ready.n),
		Unack:   int64(len(q.unack)),
		Retry:   int64(len(q.retry)),
		Garbage: int64(len(q.garbage)),
		Done:    int64(len(q.done)),
	}
	if j := q.ready.oldest(); j != nil {
		st.Latency = max(now.Sub(readySince(j)), 0)
	}
	return st, nil
}

// SetQueueConfig replaces the config of queue (creating the queue if need
// be); the next Claim uses it. The claims the rate limit counts stay
// counted whatever the change (a shorter RatePeriod counts fewer of them);
// removing the limit forgets them. Resuming or loosening a limit wakes
// WaitReady.
func (s *Store) SetQueueConfig(ctx context.Context, queue string, cfg store.QueueConfig) error {
	if err := store.ValidateQueueConfig(queue, cfg); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	q := s.queue(queue, true)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.setConfig(cfg)
	return nil
}

// setConfig replaces q's config and applies what follows from it; q.mu
// is held.
func (q *queue) setConfig(cfg store.QueueConfig) {
	if cfg.RateLimit == 0 {
		q.rate = rateLog{}
	}
	q.cfg = cfg
	q.setKindIndex(cfg.KindIndex)
	if q.ready.grouped() {
		q.ready.limitsChanged(cfg.GroupMaxRunning)
	}
	q.signalReady()
}

// GetJob returns a deep copy of the job id of queue, in whatever state it
// is: changing the copy changes nothing in the store. An unknown job gives
// an error wrapping store.ErrJobNotFound.
func (s *Store) GetJob(ctx context.Context, queue, id string) (*store.JobRecord, error) {
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q := s.lookup(queue); q != nil {
		q.mu.Lock()
		defer q.mu.Unlock()
		if j := q.jobs[id]; j != nil {
			return copyRecord(&j.rec), nil
		}
	}
	return nil, fmt.Errorf("%w: job %q of queue %q", store.ErrJobNotFound, id, queue)
}

// readySince returns when ready job j became ready: when it fell due, or
// when it was enqueued if it went straight to ready.
func readySince(j *job) time.Time {
	since := j.rec.EnqueuedAt
	if j.rec.RunAt.After(since) {
		since = j.rec.RunAt
	}
	return since
}
