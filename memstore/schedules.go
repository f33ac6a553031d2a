package memstore

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// scheduleKey identifies a registered schedule: ticks are recorded per name
// and queue, so the same name may be registered for several queues.
type scheduleKey struct{ name, queue string }

// RegisterSchedules records s for inspection, replacing any record with the
// same Name and Queue. LastTick is ignored: Schedules fills it from the tick
// guard of Enqueue. A list that fails store.ValidateSchedules gives its
// error and nothing is recorded.
func (s *Store) RegisterSchedules(ctx context.Context, scheds []store.ScheduleInfo) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.ValidateSchedules(scheds); err != nil {
		return err
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	for _, sc := range scheds {
		k := scheduleKey{sc.Name, sc.Queue}
		if sc.Stored {
			// A stored schedule deleted since its scheduler read it: not
			// registered again (ScheduleInfo.Stored). rmu guards both.
			if _, ok := s.stored[k]; !ok {
				continue
			}
			sc.Stored = false
		}
		s.schedules[k] = sc
	}
	return nil
}

// ListSchedules lists the registered schedules sorted by Name, then Queue, each
// with LastTick set to the latest tick Enqueue recorded for its name in its
// queue (zero if none).
func (s *Store) ListSchedules(ctx context.Context) ([]store.ScheduleInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.rmu.Lock()
	out := make([]store.ScheduleInfo, 0, len(s.schedules))
	for _, sc := range s.schedules {
		out = append(out, sc)
	}
	s.rmu.Unlock()
	for i := range out {
		sc := &out[i]
		sc.LastTick = lastTick(s.lookup(sc.Queue), sc.Name)
	}
	slices.SortFunc(out, func(a, b store.ScheduleInfo) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Queue, b.Queue))
	})
	return out, nil
}

// lastTick returns the latest tick recorded for schedule name in q, zero when
// none (or q is nil).
func lastTick(q *queue, name string) time.Time {
	if q == nil {
		return time.Time{}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ticks[name]
}
