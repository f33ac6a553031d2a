package store_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func TestNormalizeRateSmooth(t *testing.T) {
	for _, tc := range []struct {
		cfg  store.QueueConfig
		want string // in the error; "" for none
	}{
		{store.QueueConfig{RateLimit: 100, RateSmooth: true, RateBurst: 5}, ""},
		{store.QueueConfig{GroupRateLimit: 100, GroupRateSmooth: true}, ""},
		{store.QueueConfig{RateLimit: 100, RateBurst: 5}, "RateBurst 5 needs RateSmooth"},
		{store.QueueConfig{RateLimit: 100, RateSmooth: true, RateBurst: -1}, "RateBurst -1 is negative"},
		{store.QueueConfig{RateSmooth: true}, "RateSmooth needs a RateLimit"},
		{store.QueueConfig{RateLimit: 2000, RateSmooth: true}, "below a millisecond"},
		{store.QueueConfig{GroupRateSmooth: true}, "GroupRateSmooth needs a GroupRateLimit"},
		{store.QueueConfig{GroupRateLimit: 5, GroupRateBurst: 1}, "GroupRateBurst 1 needs GroupRateSmooth"},
	} {
		_, err := tc.cfg.Normalize()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v.Normalize(): %v, want no error", tc.cfg, err)
		case tc.want != "" && (!errors.Is(err, store.ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v.Normalize(): %v, want ErrInvalidConfig saying %q", tc.cfg, err, tc.want)
		}
	}
}

// The terms' promise, checked against the worst a worker may do within
// them: every start as early or as late as its bound allows, chosen to
// crowd one window. A sliding window: starts within Guard after claims
// that no window of Window holds more than Limit of. The smooth mode:
// starts within Guard after slots Interval apart (Tolerance early with a
// burst), so no window of k × Period/Limit, k ≥ 10, holds more than
// k + burst.
func TestRateTermsHoldForStarts(t *testing.T) {
	for _, limit := range []int{1, 10, 100, 400, 1000} {
		period := time.Second
		cfg := store.QueueConfig{RateLimit: limit, RatePeriod: period}
		tr := cfg.QueueRate()
		// Claims of Limit at once, each batch as soon as the window lets
		// it; the first batch's handlers start at the end of the guard
		// plus the room left for a worker's path from its check to the
		// handler (10 ms at a period of 1 s), the next batch's at once:
		// the two batches crowd together.
		path := period / 100
		gap := tr.Window - tr.Guard - path
		if gap < period {
			t.Errorf("limit %d per %v: batches of claims %v apart once the first started late, want at least the period", limit, period, gap)
		}
		for _, burst := range []int{0, 3} {
			cfg := store.QueueConfig{RateLimit: limit, RatePeriod: period, RateSmooth: true, RateBurst: burst}
			tr := cfg.QueueRate()
			if limit == 1000 {
				// Normalize allows it; the guard's floor of 1 ms then needs
				// windows of more intervals, which the docs say.
				continue
			}
			step := period / time.Duration(limit)
			// Slots Interval apart; the first burst+1 starts may come
			// Tolerance early. Worst case: job j starts at slot_j + G for
			// the first of a window and at slot_j - Tolerance for the
			// others.
			for k := 10; k <= 30; k++ {
				w := time.Duration(k) * step
				// k+burst+1 starts spanning the least: the first late by
				// G, the last early by Tolerance, k+burst intervals of
				// slots between them.
				span := time.Duration(k+burst)*tr.Interval - tr.Tolerance - tr.Guard
				if span < w {
					t.Errorf("limit %d per %v smooth, burst %d: %d starts fit in %v, less than a window of %d intervals (%v)",
						limit, period, burst, k+burst+1, span, k, w)
				}
			}
		}
	}
}
