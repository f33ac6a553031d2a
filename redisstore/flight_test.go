package redisstore

import (
	"slices"
	"testing"
	"time"
)

// machine stands for a client and a server on which a batcher with l
// round trips in flight carries rate[l] jobs a second, in round trips of
// perTrip jobs: run feeds f the round trips of d (it changes f's limit
// as it goes) and returns how long f spent at each limit.
type machine struct {
	rate    [flightMax + 1]float64
	perTrip int
	now     time.Time
}

func (m *machine) run(f *flightControl, d time.Duration) (at [flightMax + 1]time.Duration) {
	end := m.now.Add(d)
	for m.now.Before(end) {
		l := f.limit
		trip := time.Duration(float64(m.perTrip) / m.rate[l] * float64(time.Second))
		m.now = m.now.Add(trip)
		at[l] += trip
		f.sent(m.perTrip, m.now)
	}
	return at
}

// rates returns a machine's rates: jobs a second at one, two and
// flightMax round trips in flight.
func rates(one, two, most float64) (r [flightMax + 1]float64) {
	r[1], r[2], r[flightMax] = one, two, most
	return r
}

// TestFlightControlKeepsTheFasterLimit: a batcher whose calls keep coming
// spends most of its time at the limit of round trips in flight that
// carries more jobs a second, whichever that is, and goes on probing the
// others (so that it would notice when the machine changed).
func TestFlightControlKeepsTheFasterLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rate   [flightMax + 1]float64
		faster int
	}{
		{"one in flight faster", rates(50000, 40000, 42000), 1},
		{"two in flight faster", rates(40000, 50000, 42000), 2},
		{"the most in flight faster", rates(40000, 42000, 50000), flightMax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFlightControl(flightPeriod, flightMax)
			m := &machine{rate: tc.rate, perTrip: 7, now: time.Unix(1e9, 0)}
			at := m.run(&f, 10*time.Second)
			var others time.Duration
			for _, l := range []int{1, 2, flightMax} {
				if l == tc.faster {
					continue
				}
				others += at[l]
				if at[l] == 0 {
					t.Errorf("limit %d was never probed in 10 s", l)
				}
			}
			if at[tc.faster] < 3*others {
				t.Errorf("%v at limit %d (the faster), %v at the others: want at least three quarters of the time at the faster", at[tc.faster], tc.faster, others)
			}
		})
	}
}

// TestFlightControlTriesEveryLimitFirst: a burst of half a second ends at
// the fastest limit, whichever that is: the first probes try each.
func TestFlightControlTriesEveryLimitFirst(t *testing.T) {
	for _, faster := range []int{1, 2, flightMax} {
		r := rates(40000, 40000, 40000)
		r[faster] = 50000
		f := newFlightControl(flightPeriod, flightMax)
		m := &machine{rate: r, perTrip: 7, now: time.Unix(1e9, 0)}
		m.run(&f, 500*time.Millisecond)
		if f.limit != faster {
			t.Errorf("limit %d after half a second where %d in flight are faster, want %d", f.limit, faster, faster)
		}
	}
}

// TestFlightControlFollowsAChange: when another limit becomes the
// faster one, the batcher moves to it at its next probe of it.
func TestFlightControlFollowsAChange(t *testing.T) {
	f := newFlightControl(flightPeriod, flightMax)
	m := &machine{rate: rates(50000, 40000, 40000), perTrip: 7, now: time.Unix(1e9, 0)}
	m.run(&f, 2*time.Second)
	if f.limit != 1 {
		t.Fatalf("limit %d after 2 s where one in flight is faster, want 1", f.limit)
	}
	m.rate = rates(40000, 42000, 50000)
	at := m.run(&f, 3*time.Second)
	if f.limit != flightMax || at[flightMax] < at[1]+at[2] {
		t.Errorf("limit %d after 3 s more where %d in flight are faster (%v at 1, %v at 2, %v at %d), want %d, most of the time", f.limit, flightMax, at[1], at[2], at[flightMax], flightMax, flightMax)
	}
}

// TestFlightControlLimits: the limits a control chooses among follow the
// most the store allows, and a pool's size sets that most.
func TestFlightControlLimits(t *testing.T) {
	for _, tc := range []struct {
		most int
		want []int
	}{
		{1, []int{1}},
		{2, []int{1, 2}},
		{3, []int{1, 2, 3}},
		{flightMax, []int{1, 2, flightMax}},
	} {
		f := newFlightControl(flightPeriod, tc.most)
		if got := f.limits[:f.nlimits]; !slices.Equal(got, tc.want) {
			t.Errorf("most %d: limits %v, want %v", tc.most, got, tc.want)
		}
	}
	for _, tc := range []struct{ pool, most int }{{1, 1}, {4, 2}, {10, 5}, {20, flightMax}, {100, flightMax}} {
		if got := flightMost(tc.pool); got != tc.most {
			t.Errorf("flightMost(%d) = %d, want %d", tc.pool, got, tc.most)
		}
	}
	// With one limit there is nothing to probe.
	f := newFlightControl(flightPeriod, 1)
	m := &machine{rate: rates(40000, 50000, 50000), perTrip: 7, now: time.Unix(1e9, 0)}
	if m.run(&f, time.Second); f.switches != 0 {
		t.Errorf("a control with one limit switched %d times", f.switches)
	}
}

// TestFlightControlIdle: a gap of a quarter of a period or more with
// nothing in flight ends the running period uncounted and undoes a probe;
// a shorter one does neither.
func TestFlightControlIdle(t *testing.T) {
	now := time.Unix(1e9, 0)
	f := newFlightControl(flightPeriod, flightMax)
	// Count the first window at one in flight, up to the first probe.
	trip := flightPeriod / 10
	for !f.probing {
		now = now.Add(trip)
		f.sent(7, now)
	}
	if f.limit != 2 {
		t.Fatalf("probing limit %d, want 2", f.limit)
	}
	// A short gap: the probe goes on.
	f.idle(now)
	now = now.Add(flightPeriod / 8)
	f.sent(7, now)
	if !f.probing {
		t.Fatalf("after a gap of an eighth of a period: no probe running at limit %d, want the probe of 2 going on", f.limit)
	}
	// A long gap: the probe is undone, and the next round trip starts a
	// period rather than ending one.
	f.idle(now)
	now = now.Add(time.Second)
	f.sent(7, now)
	if f.probing || f.limit != 1 {
		t.Fatalf("after a gap of a second: probing %v at limit %d, want no probe, limit 1", f.probing, f.limit)
	}
	if f.jobs != 0 || !f.start.Equal(now) {
		t.Errorf("after a gap of a second the round trip's jobs were counted (%d), or no period began with its end", f.jobs)
	}
}

// TestFlightControlFixed: with a period of 0 the limit stays at one.
func TestFlightControlFixed(t *testing.T) {
	f := newFlightControl(0, flightMax)
	m := &machine{rate: rates(40000, 50000, 50000), perTrip: 7, now: time.Unix(1e9, 0)}
	if at := m.run(&f, 2*time.Second); at[2]+at[flightMax] != 0 || f.switches != 0 {
		t.Errorf("a fixed control spent %v at more than one in flight and switched %d times, want none", at[2]+at[flightMax], f.switches)
	}
}
