package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/mstime"

	"github.com/hopperq/hopper"
)

// workerEntry is a worker's record and when it expires, in Unix ms.
type workerEntry struct {
	info    hopper.WorkerInfo
	expires int64
}

// Heartbeat records w as live until ttl (rounded up to the millisecond) from
// now on the store's clock, replacing its previous record; HeartbeatAt is set
// to now. The record is a deep copy. An empty ID gives an error wrapping
// hopper.ErrInvalidConfig, as does a ttl below a millisecond.
func (s *Store) Heartbeat(ctx context.Context, w hopper.WorkerInfo, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if w.ID == "" {
		return fmt.Errorf("%w: WorkerInfo.ID is empty", hopper.ErrInvalidConfig)
	}
	if ttl < time.Millisecond {
		return fmt.Errorf("%w: heartbeat ttl %v must be at least 1ms", hopper.ErrInvalidConfig, ttl)
	}
	now, nowMs := s.now()
	w = copyWorker(w)
	w.HeartbeatAt = now
	s.rmu.Lock()
	defer s.rmu.Unlock()
	s.workers[w.ID] = workerEntry{info: w, expires: nowMs + mstime.Ceil(ttl)}
	return nil
}

// Workers lists deep copies of the live worker records, sorted by ID. A
// record whose ttl has run out (its expiry is not after now) is not listed,
// and is forgotten.
func (s *Store) Workers(ctx context.Context) ([]hopper.WorkerInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, nowMs := s.now()
	s.rmu.Lock()
	out := make([]hopper.WorkerInfo, 0, len(s.workers))
	for id, e := range s.workers {
		if e.expires <= nowMs {
			delete(s.workers, id)
			continue
		}
		out = append(out, copyWorker(e.info))
	}
	s.rmu.Unlock()
	slices.SortFunc(out, func(a, b hopper.WorkerInfo) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// RemoveWorker deletes the record of worker id; an unknown id is not an
// error.
func (s *Store) RemoveWorker(ctx context.Context, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.rmu.Lock()
	delete(s.workers, id)
	s.rmu.Unlock()
	return nil
}

// copyWorker returns a deep copy of w.
func copyWorker(w hopper.WorkerInfo) hopper.WorkerInfo {
	if w.Queues != nil {
		w.Queues = maps.Clone(w.Queues)
	}
	if w.Running != nil {
		w.Running = slices.Clone(w.Running)
	}
	return w
}
