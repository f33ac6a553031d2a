package memstore

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// workerEntry is a worker's record and when it expires, in Unix ms.
type workerEntry struct {
	info    store.WorkerInfo
	expires int64
}

// Heartbeat records w as live until ttl (rounded up to the millisecond) from
// now on the store's clock, replacing its previous record; HeartbeatAt is set
// to now. The record is a deep copy. A record that fails
// store.ValidateHeartbeat gives its error.
func (s *Store) Heartbeat(ctx context.Context, w store.WorkerInfo, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.ValidateHeartbeat(w, ttl); err != nil {
		return err
	}
	now, nowMs := s.now()
	w = copyWorker(w)
	w.HeartbeatAt = now
	s.rmu.Lock()
	defer s.rmu.Unlock()
	s.workers[w.ID] = workerEntry{info: w, expires: nowMs + mstime.Ceil(ttl)}
	return nil
}

// ListWorkers lists deep copies of the live worker records, sorted by ID. A
// record whose ttl has run out (its expiry is not after now) is not listed,
// and is forgotten.
func (s *Store) ListWorkers(ctx context.Context) ([]store.WorkerInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, nowMs := s.now()
	s.rmu.Lock()
	out := make([]store.WorkerInfo, 0, len(s.workers))
	for id, e := range s.workers {
		if e.expires <= nowMs {
			delete(s.workers, id)
			continue
		}
		out = append(out, copyWorker(e.info))
	}
	s.rmu.Unlock()
	slices.SortFunc(out, func(a, b store.WorkerInfo) int { return strings.Compare(a.ID, b.ID) })
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
func copyWorker(w store.WorkerInfo) store.WorkerInfo {
	if w.Queues != nil {
		w.Queues = maps.Clone(w.Queues)
	}
	if w.Running != nil {
		w.Running = slices.Clone(w.Running)
	}
	return w
}
