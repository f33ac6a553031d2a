package main

import (
	"math"
	"testing"
)

// sameFloat reports whether a and b are equal, counting two NaNs as equal.
func sameFloat(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b))
}

// TestPercentile checks the nearest-rank percentile.
func TestPercentile(t *testing.T) {
	ten := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"empty", nil, 50, math.NaN()},
		{"one value", []float64{7}, 99, 7},
		{"p50 of ten", ten, 50, 5},
		{"p90 of ten", ten, 90, 9},
		{"p99 of ten", ten, 99, 10},
		{"p100 is the max", ten, 100, 10},
		{"tiny p is the min", ten, 0.001, 1},
		{"p50 of two", []float64{3, 1}, 50, 1},
		{"p99 of 1000", seq(1000), 99, 990},
		{"negative values", []float64{-3, -1, -2}, 50, -2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := percentile(tt.xs, tt.p); !sameFloat(got, tt.want) {
				t.Errorf("percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
			}
		})
	}
}

// TestPercentileKeepsInput checks that percentile does not reorder its
// argument.
func TestPercentileKeepsInput(t *testing.T) {
	xs := []float64{3, 1, 2}
	percentile(xs, 50)
	if xs[0] != 3 || xs[1] != 1 || xs[2] != 2 {
		t.Errorf("input reordered to %v", xs)
	}
}

// TestMedian checks median and minMax, NaNs ignored.
func TestMedian(t *testing.T) {
	tests := []struct {
		name           string
		xs             []float64
		med, min, maxv float64
	}{
		{"empty", nil, math.NaN(), math.NaN(), math.NaN()},
		{"only NaN", []float64{math.NaN()}, math.NaN(), math.NaN(), math.NaN()},
		{"one", []float64{4}, 4, 4, 4},
		{"odd", []float64{9, 1, 5}, 5, 1, 9},
		{"even", []float64{4, 1, 3, 2}, 2.5, 1, 4},
		{"NaN ignored", []float64{1, math.NaN(), 3}, 2, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := median(tt.xs); !sameFloat(got, tt.med) {
				t.Errorf("median = %v, want %v", got, tt.med)
			}
			lo, hi := minMax(tt.xs)
			if !sameFloat(lo, tt.min) || !sameFloat(hi, tt.maxv) {
				t.Errorf("minMax = %v, %v, want %v, %v", lo, hi, tt.min, tt.maxv)
			}
		})
	}
}

// TestPutPercentiles checks the keys a latency distribution is stored
// under.
func TestPutPercentiles(t *testing.T) {
	m := metrics{}
	putPercentiles(m, append(seq(100), math.NaN()))
	want := metrics{"p50_ms": 50, "p90_ms": 90, "p99_ms": 99, "max_ms": 100, "min_ms": 1}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	empty := metrics{}
	putPercentiles(empty, nil)
	if len(empty) != 0 {
		t.Errorf("no values gave %v", empty)
	}
}

// seq returns 1, 2, …, n.
func seq(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i + 1)
	}
	return out
}
