package memstore

import (
	"context"
	"time"

	"github.com/hopperq/hopper/store"
)

// durationKey is a kind and a duration bucket.
type durationKey struct {
	kind   string
	bucket int
}

// AddDurations adds handler durations to the current hour of the store's
// clock (see store.Durations), dropping hours older than
// store.DurationsKept.
func (s *Store) AddDurations(ctx context.Context, counts []store.DurationCount) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.ValidateDurationCounts(counts); err != nil {
		return err
	}
	_, nowMs := s.now()
	hour := nowMs / 3_600_000
	s.rmu.Lock()
	defer s.rmu.Unlock()
	if s.durations == nil {
		s.durations = map[string]map[int64]map[durationKey]int64{}
	}
	for _, c := range counts {
		if c.Count == 0 {
			continue
		}
		hours := s.durations[c.Queue]
		if hours == nil {
			hours = map[int64]map[durationKey]int64{}
			s.durations[c.Queue] = hours
		}
		if hours[hour] == nil {
			hours[hour] = map[durationKey]int64{}
			for h := range hours {
				if h <= hour-int64(store.DurationsKept/time.Hour) {
					delete(hours, h)
				}
			}
		}
		hours[hour][durationKey{c.Kind, c.Bucket}] += c.Count
	}
	return nil
}

// GetDurationCounts returns queue's duration counts per kind and bucket since
// the hour holding since (see store.Durations).
func (s *Store) GetDurationCounts(ctx context.Context, queue string, since time.Time) ([]store.DurationCount, error) {
	if err := store.ValidateQueue(queue); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	from := since.UnixMilli() / 3_600_000
	sum := map[durationKey]int64{}
	s.rmu.Lock()
	for h, m := range s.durations[queue] {
		if h < from {
			continue
		}
		for k, n := range m {
			sum[k] += n
		}
	}
	s.rmu.Unlock()
	out := make([]store.DurationCount, 0, len(sum))
	for k, n := range sum {
		out = append(out, store.DurationCount{Queue: queue, Kind: k.kind, Bucket: k.bucket, Count: n})
	}
	return out, nil
}
