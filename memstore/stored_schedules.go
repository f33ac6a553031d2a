package memstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/hopperq/hopper/store"
)

// PutSchedule adds or replaces a stored schedule (see store.ScheduleStore),
// keeping a copy of its job.
func (s *Store) PutSchedule(ctx context.Context, sc store.StoredSchedule) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := sc.Validate(nil); err != nil {
		return err
	}
	now, _ := s.now()
	sc.UpdatedAt = now
	sc.Job = copyNewJob(sc.Job)
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.stored == nil {
		s.stored = make(map[scheduleKey]store.StoredSchedule)
	}
	s.stored[scheduleKey{sc.Name, sc.Queue}] = sc
	s.storedVer++
	return nil
}

// DeleteSchedule removes a stored schedule and reports whether there was
// one.
func (s *Store) DeleteSchedule(ctx context.Context, queue, name string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	k := scheduleKey{name, queue}
	if _, ok := s.stored[k]; !ok {
		return false, nil
	}
	delete(s.stored, k)
	s.storedVer++
	return true, nil
}

// ListStoredSchedules returns copies of the stored schedules, sorted by queue
// then name, and their version.
func (s *Store) ListStoredSchedules(ctx context.Context) ([]store.StoredSchedule, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s.rmu.Lock()
	out := make([]store.StoredSchedule, 0, len(s.stored))
	for _, sc := range s.stored {
		sc.Job = copyNewJob(sc.Job)
		out = append(out, sc)
	}
	ver := s.storedVer
	s.rmu.Unlock()
	slices.SortFunc(out, func(a, b store.StoredSchedule) int {
		return cmp.Or(cmp.Compare(a.Queue, b.Queue), cmp.Compare(a.Name, b.Name))
	})
	return out, ver, nil
}

// SchedulesVersion returns the stored schedules' version.
func (s *Store) SchedulesVersion(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return s.storedVer, nil
}
