package main

import (
	"math"
	"slices"
	"time"
)

// percentile returns the p-th percentile (0 < p ≤ 100) of xs by the
// nearest-rank method: the smallest value at least p % of the values are
// less than or equal to. It sorts a copy; an empty slice gives NaN.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return percentileSorted(s, p)
}

// percentileSorted is percentile for an already sorted slice.
func percentileSorted(s []float64, p float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// median returns the middle value of xs, the mean of the two middle values
// for an even count, or NaN for an empty slice. NaNs in xs are ignored.
func median(xs []float64) float64 {
	s := finite(xs)
	if len(s) == 0 {
		return math.NaN()
	}
	slices.Sort(s)
	mid := len(s) / 2
	if len(s)%2 == 1 {
		return s[mid]
	}
	return (s[mid-1] + s[mid]) / 2
}

// minMax returns the smallest and largest of xs, ignoring NaNs; both are
// NaN when nothing is left.
func minMax(xs []float64) (lo, hi float64) {
	s := finite(xs)
	if len(s) == 0 {
		return math.NaN(), math.NaN()
	}
	return slices.Min(s), slices.Max(s)
}

// finite returns a new slice of the values of xs that are not NaN.
func finite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			out = append(out, x)
		}
	}
	return out
}

// millis converts durations to float milliseconds, the unit the latency
// tables use.
func millis(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = float64(d) / float64(time.Millisecond)
	}
	return out
}

// nan marks a value that was not measured.
var nan = math.NaN()

// putPercentiles stores p50, p90, p99, max and min of xs (milliseconds)
// under the keys p50_ms … min_ms; NaNs are ignored.
func putPercentiles(m metrics, xs []float64) {
	s := finite(xs)
	if len(s) == 0 {
		return
	}
	slices.Sort(s)
	m.set("p50_ms", percentileSorted(s, 50))
	m.set("p90_ms", percentileSorted(s, 90))
	m.set("p99_ms", percentileSorted(s, 99))
	m.set("max_ms", s[len(s)-1])
	m.set("min_ms", s[0])
}
