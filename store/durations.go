package store

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Durations is implemented by stores that keep how long handlers ran, per
// queue and kind, as counts per duration bucket (DurationBucket) per hour
// of the store's clock, for DurationsKept. Workers record what they ran
// about once a minute, so nothing is written per job. Both of hopper's
// stores implement it; hopper.Inspector.GetKindDurations reads it.
//
// An optional capability: hopper finds it with As, which looks through a
// wrapper's Unwrap (see Wrapper).
type Durations interface {
	// AddDurations adds counts to the buckets of the current hour; a
	// count of 0 adds nothing. It checks every count first
	// (ValidateDurationCounts) and adds none when one is invalid. Both
	// methods refuse an invalid queue name with ErrInvalidQueue.
	AddDurations(ctx context.Context, counts []DurationCount) error
	// GetDurationCounts returns queue's counts per kind and bucket over the
	// hours from the one holding since until now (one entry per kind and
	// bucket, the hours summed).
	GetDurationCounts(ctx context.Context, queue string, since time.Time) ([]DurationCount, error)
}

// DurationsKept is how long stores keep duration counts: a day.
const DurationsKept = 24 * time.Hour

// DurationCount counts the attempts of one kind of one queue whose
// handlers ran for a duration in bucket Bucket.
type DurationCount struct {
	Queue, Kind string
	Bucket      int
	Count       int64
}

// Buckets of DurationBucket: four a doubling from 1 ms (each bucket's
// upper bound is about 19% above its lower one), up to MaxDurationBucket
// (about 4.6 hours and more).
const MaxDurationBucket = 96

// ValidateDurationCounts checks counts for Durations.AddDurations: each
// queue name must be valid (an error wrapping ErrInvalidQueue), each
// Bucket within 0 to MaxDurationBucket and each Count at least 0 (errors
// wrapping ErrInvalidConfig). It returns the first error, naming the
// count's index.
func ValidateDurationCounts(counts []DurationCount) error {
	for i, c := range counts {
		if err := ValidateQueue(c.Queue); err != nil {
			return err
		}
		if c.Bucket < 0 || c.Bucket > MaxDurationBucket {
			return fmt.Errorf("%w: duration count %d: bucket %d is outside 0 to %d (DurationBucket)", ErrInvalidConfig, i, c.Bucket, MaxDurationBucket)
		}
		if c.Count < 0 {
			return fmt.Errorf("%w: duration count %d: count %d is negative", ErrInvalidConfig, i, c.Count)
		}
	}
	return nil
}

// DurationBucket returns the bucket of d: 0 for a millisecond or less,
// then ceil(4·log2(ms)), at most MaxDurationBucket.
func DurationBucket(d time.Duration) int {
	ms := float64(d) / float64(time.Millisecond)
	if ms <= 1 {
		return 0
	}
	return min(int(math.Ceil(4*math.Log2(ms))), MaxDurationBucket)
}

// BucketUpper returns the upper bound of bucket b: the longest duration it
// holds.
func BucketUpper(b int) time.Duration {
	return time.Duration(math.Pow(2, float64(b)/4) * float64(time.Millisecond))
}
