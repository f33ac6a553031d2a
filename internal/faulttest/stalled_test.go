package faulttest

import (
	"testing"
	"time"
)

// TestStalled checks the reading of a worker's ticks that decides whether
// a lease that ran out is credited to a stall of its worker (run.check).
func TestStalled(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	every := func(from, to, step int) []time.Time { // ticks from..to
		var ts []time.Time
		for n := from; n <= to; n += step {
			ts = append(ts, ms(n))
		}
		return ts
	}
	gap := append(every(0, 400, 50), every(1200, 2000, 50)...) // silent from 400 to 1200
	for _, tc := range []struct {
		name     string
		ticks    []time.Time
		from, to int
		want     bool
		began    int
	}{
		{"ticking throughout", every(0, 2000, 50), 500, 800, false, 0},
		{"gap spans the window", gap, 500, 1000, true, 400},
		{"gap spans it exactly", gap, 400, 1200, true, 400},
		{"gap ends inside the window", gap, 500, 1300, false, 0},
		{"gap begins inside the window", gap, 300, 1000, false, 0},
		{"window inside the ticks after the gap", gap, 1300, 1600, false, 0},
		{"ended before the window", every(0, 400, 50), 500, 1000, true, 400},
		{"started after the window began", every(600, 2000, 50), 500, 1000, false, 0},
		{"no ticks", nil, 500, 1000, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			began, got := stalled(tc.ticks, ms(tc.from), ms(tc.to))
			if got != tc.want {
				t.Fatalf("stalled = %v, want %v", got, tc.want)
			}
			if got && len(tc.ticks) > 0 && !began.Equal(ms(tc.began)) {
				t.Fatalf("the stall began at %v, want %v", began.Sub(t0), ms(tc.began).Sub(t0))
			}
		})
	}
}
