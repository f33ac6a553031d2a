package redisstore

import (
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

// TestFlightControlKeepsTheFasterLimit: a batcher whose calls keep coming
// spends most of its time at the limit of round trips in flight that
// carries more jobs a second, whichever that is, and goes on probing the
// other (so that it would notice when the machine changed).
func TestFlightControlKeepsTheFasterLimit(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rate   [flightMax + 1]float64
		faster int
	}{
		{"one in flight faster", [flightMax + 1]float64{0, 50000, 40000}, 1},
		{"two in flight faster", [flightMax + 1]float64{0, 40000, 50000}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFlightControl(flightPeriod)
			m := &machine{rate: tc.rate, perTrip: 7, now: time.Unix(1e9, 0)}
			at := m.run(&f, 10*time.Second)
			slower := flightMax + 1 - tc.faster
			if at[tc.faster] < 3*at[slower] {
				t.Errorf("%v at limit %d (the faster), %v at limit %d: want at least three quarters of the time at the faster", at[tc.faster], tc.faster, at[slower], slower)
			}
			if at[slower] == 0 {
				t.Errorf("the slower limit %d was never probed in 10 s", slower)
			}
		})
	}
}

// TestFlightControlFollowsAChange: when the other limit becomes the
// faster one, the batcher moves to it at its next probe.
func TestFlightControlFollowsAChange(t *testing.T) {
	f := newFlightControl(flightPeriod)
	m := &machine{rate: [flightMax + 1]float64{0, 50000, 40000}, perTrip: 7, now: time.Unix(1e9, 0)}
	m.run(&f, 2*time.Second)
	if f.limit != 1 {
		t.Fatalf("limit %d after 2 s where one in flight is faster, want 1", f.limit)
	}
	m.rate = [flightMax + 1]float64{0, 40000, 50000}
	at := m.run(&f, 2*time.Second)
	if f.limit != 2 || at[2] < at[1] {
		t.Errorf("limit %d after 2 s more where two in flight are faster (%v at 1, %v at 2), want 2, most of the time", f.limit, at[1], at[2])
	}
}

// TestFlightControlIdle: a gap of a quarter of a period or more with
// nothing in flight ends the running period uncounted and undoes a probe;
// a shorter one does neither.
func TestFlightControlIdle(t *testing.T) {
	now := time.Unix(1e9, 0)
	f := newFlightControl(flightPeriod)
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
	if !f.probing || f.limit != 2 {
		t.Fatalf("after a gap of an eighth of a period: probing %v at limit %d, want a probe at 2", f.probing, f.limit)
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
	f := newFlightControl(0)
	m := &machine{rate: [flightMax + 1]float64{0, 40000, 50000}, perTrip: 7, now: time.Unix(1e9, 0)}
	if at := m.run(&f, 2*time.Second); at[2] != 0 || f.switches != 0 {
		t.Errorf("a fixed control spent %v at two in flight and switched %d times, want none", at[2], f.switches)
	}
}
