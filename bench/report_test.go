package main

import (
	"math"
	"testing"
)

// TestFormatNumber checks decimals and thousands separators.
func TestFormatNumber(t *testing.T) {
	tests := []struct {
		v        float64
		decimals int
		want     string
	}{
		{0, 0, "0"},
		{999, 0, "999"},
		{1000, 0, "1,000"},
		{1234567.891, 2, "1,234,567.89"},
		{-1234.5, 1, "-1,234.5"},
		{-0.01, 1, "0.0"},
		{0.5, 0, "0"},
		{math.NaN(), 2, "–"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.v, tt.decimals); got != tt.want {
			t.Errorf("formatNumber(%v, %d) = %q, want %q", tt.v, tt.decimals, got, tt.want)
		}
	}
}

// TestFormatRatio checks that small ratios keep significant digits.
func TestFormatRatio(t *testing.T) {
	tests := []struct {
		r    float64
		want string
	}{
		{1.5, "1.50"}, {12.345, "12.35"}, {0.1, "0.10"}, {0.0123, "0.012"}, {0.00079, "0.00079"},
	}
	for _, tt := range tests {
		if got := formatRatio(tt.r); got != tt.want {
			t.Errorf("formatRatio(%v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}
