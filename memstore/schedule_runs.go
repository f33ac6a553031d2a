package memstore

import (
	"context"
	"slices"

	"github.com/hopperq/hopper/store"
)

var _ store.ScheduleRuns = (*Store)(nil)

// RecordScheduleRun adds run to the schedule's runs, keeping the latest
// store.MaxScheduleRuns (see store.ScheduleRuns).
func (s *Store) RecordScheduleRun(ctx context.Context, queue, name string, run store.ScheduleRun) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.ValidateScheduleRun(queue, name, run); err != nil {
		return err
	}
	k := scheduleKey{name, queue}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.scheduleRuns == nil {
		s.scheduleRuns = map[scheduleKey][]store.ScheduleRun{}
	}
	runs := append([]store.ScheduleRun{run}, s.scheduleRuns[k]...)
	s.scheduleRuns[k] = runs[:min(len(runs), store.MaxScheduleRuns)]
	return nil
}

// ListScheduleRuns returns a copy of the schedule's runs, the latest
// first.
func (s *Store) ListScheduleRuns(ctx context.Context, queue, name string) ([]store.ScheduleRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	return slices.Clone(s.scheduleRuns[scheduleKey{name, queue}]), nil
}

// UnregisterSchedule forgets the schedule's registration and runs, and
// reports whether it was registered.
func (s *Store) UnregisterSchedule(ctx context.Context, queue, name string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	k := scheduleKey{name, queue}
	s.rmu.Lock()
	defer s.rmu.Unlock()
	_, ok := s.schedules[k]
	delete(s.schedules, k)
	delete(s.scheduleRuns, k)
	return ok, nil
}
