package redisstore

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// machine stands for a client and a server on which a batcher with l
// round trips in flight carries rate[l] jobs a second, in round trips of
// perTrip jobs (tripAt[l] when set): run feeds f the round trips of d
// (it changes f's limit as it goes) and returns how long f spent at each
// limit.
type machine struct {
	rate    [flightMax + 1]float64
	perTrip int
	tripAt  [flightMax + 1]int
	now     time.Time
	// carry: for a period after a change of limit, round trips run at
	// the rate of the limit before it. slowed: for this long after a
	// change of limit, at half the rate of the limit (on top of carry).
	carry     bool
	slowed    time.Duration
	last      int       // the limit of the last round trip
	before    int       // the limit before the last change
	changedAt time.Time // when the limit last changed
}

func (m *machine) run(f *flightControl, d time.Duration) (at [flightMax + 1]time.Duration) {
	end := m.now.Add(d)
	for m.now.Before(end) {
		l := f.limit
		if l != m.last {
			m.before, m.last, m.changedAt = m.last, l, m.now
		}
		jobs := m.perTrip
		if m.tripAt[l] > 0 {
			jobs = m.tripAt[l]
		}
		rate := m.rate[l]
		if m.carry && m.before > 0 && m.now.Sub(m.changedAt) < flightPeriod {
			rate = m.rate[m.before]
		}
		if m.before > 0 && m.now.Sub(m.changedAt) < m.slowed {
			rate /= 2
		}
		trip := time.Duration(float64(jobs) / rate * float64(time.Second))
		m.now = m.now.Add(trip)
		at[l] += trip
		f.sent(jobs, m.now)
	}
	return at
}

// outsideProbes runs f on m for d, a millisecond at a time, and returns
// how long f spent at limit l while no probe ran: where f chose l.
func (m *machine) outsideProbes(f *flightControl, l int, d time.Duration) time.Duration {
	var chosen time.Duration
	for range int(d / time.Millisecond) {
		at := m.run(f, time.Millisecond)
		if !f.probing && f.limit == l {
			chosen += at[l]
		}
	}
	return chosen
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

// TestFlightControlTriesEveryLimitFirst: a burst of 0.6 s ends at
// the fastest limit, whichever that is: the first probes try each.
func TestFlightControlTriesEveryLimitFirst(t *testing.T) {
	for _, faster := range []int{1, 2, flightMax} {
		r := rates(40000, 40000, 40000)
		r[faster] = 50000
		f := newFlightControl(flightPeriod, flightMax)
		m := &machine{rate: r, perTrip: 7, now: time.Unix(1e9, 0)}
		m.run(&f, 600*time.Millisecond)
		if f.limit != faster {
			t.Errorf("limit %d after 0.6 s where %d in flight are faster, want %d", f.limit, faster, faster)
		}
	}
}

// TestFlightControlAbandonsASlowChallenger: a limit that carries far
// less than the one in force is left after its probe's first counted
// period, in the first probes of a burst and in the later ones, while a
// challenger a little slower runs its whole probe.
func TestFlightControlAbandonsASlowChallenger(t *testing.T) {
	f := newFlightControl(flightPeriod, flightMax)
	m := &machine{rate: rates(50000, 50000, 20000), perTrip: 7, now: time.Unix(1e9, 0), carry: true}
	at := m.run(&f, 600*time.Millisecond)
	// Its probe's first period, uncounted, and its first counted one
	// (a round trip past each).
	if most := 2*flightPeriod + 2*time.Millisecond; at[flightMax] > most {
		t.Errorf("%v at %d in flight, which carry 0.4× one, in a burst of 0.6 s: want at most %v", at[flightMax], flightMax, most)
	}
	if f.limit != 1 {
		t.Errorf("limit %d after 0.6 s, want 1", f.limit)
	}
	// Without abandonment about a tenth of the time goes to eight; with
	// every probe of it abandoned, a thirtieth; with one in three run
	// whole (flightAbandonRun), a twentieth.
	at = m.run(&f, 10*time.Second)
	if at[flightMax] == 0 || at[flightMax] > (at[1]+at[2])/16 {
		t.Errorf("%v at %d in flight, %v at one and two, in 10 s: want it probed, and at most a sixteenth of the time", at[flightMax], flightMax, at[1]+at[2])
	}
	if f.abandoned < 4 {
		t.Errorf("%d probes abandoned in 10.6 s, want at least 4", f.abandoned)
	}

	f = newFlightControl(flightPeriod, flightMax)
	m = &machine{rate: rates(50000, 45000, 45000), perTrip: 7, now: time.Unix(1e9, 0), carry: true}
	m.run(&f, 10*time.Second)
	if f.abandoned != 0 {
		t.Errorf("%d probes abandoned where the others carry 0.9× one, want none", f.abandoned)
	}
}

// TestFlightControlAbandonsAgainstTheCurrentRate: a challenger is held
// against what the limit in force carries now, not against its estimate
// from before the machine slowed down: where every limit got slower and
// another became the faster, the batcher still moves to it.
func TestFlightControlAbandonsAgainstTheCurrentRate(t *testing.T) {
	f := newFlightControl(flightPeriod, flightMax)
	m := &machine{rate: rates(50000, 40000, 40000), perTrip: 7, now: time.Unix(1e9, 0), carry: true}
	m.run(&f, 2*time.Second)
	if f.limit != 1 {
		t.Fatalf("limit %d after 2 s where one in flight is faster, want 1", f.limit)
	}
	// Below three quarters of one's estimate (50,000), above one's rate.
	m.rate = rates(30000, 31000, 36000)
	m.run(&f, 4*time.Second)
	if f.limit != flightMax {
		t.Errorf("limit %d after 4 s more where %d in flight carry 36,000 jobs a second and one 30,000, want %d", f.limit, flightMax, flightMax)
	}
}

// TestFlightControlReferenceSettles: the first period after a change of
// limit, which runs at the rate of the limit before it, stays out of the
// rate a challenger is held against: where one in flight carries twice
// what the others do, a burst abandons both their first probes.
func TestFlightControlReferenceSettles(t *testing.T) {
	f := newFlightControl(flightPeriod, flightMax)
	m := &machine{rate: rates(73000, 36000, 36000), perTrip: 7, now: time.Unix(1e9, 0), carry: true}
	at := m.run(&f, 600*time.Millisecond)
	if most := 2*flightPeriod + 2*time.Millisecond; at[2] > most || at[flightMax] > most {
		t.Errorf("%v at two and %v at %d in flight, which carry half what one does, in a burst of 0.6 s: want at most %v each", at[2], at[flightMax], flightMax, most)
	}
}

// TestFlightControlAbandonedEstimatesDropped: an abandoned challenger's
// estimate is dropped, and a probe keeps the better of its own two
// limits, so that a limit that got slower is not chosen later on an
// estimate from before (at the end of another limit's probe).
func TestFlightControlAbandonedEstimatesDropped(t *testing.T) {
	mostNotChosen(t, rates(50000, 49000, 45000), 2*time.Second, rates(30000, 30000, 20000), "where it carries two thirds of the others")
}

// TestFlightControlEstimatesOfOneProbe: a whole probe of a limit whose
// estimate was dropped compares it with this probe's rate of the limit
// in force, not with an estimate that still holds rates from before the
// machine sped up: eight, abandoned while slow, is not chosen when it
// runs whole on a machine twice as fast where it is the slowest.
func TestFlightControlEstimatesOfOneProbe(t *testing.T) {
	mostNotChosen(t, rates(50000, 49000, 30000), 5*time.Second, rates(100000, 85000, 80000), "where it is the slowest")
}

// mostNotChosen runs a batcher for d on a machine of rates before, then
// on one of rates after, and fails t when it spends any of the next 10 s
// at the most in flight outside its probes (chosen at the end of one):
// why says why it should not be.
func mostNotChosen(t *testing.T, before [flightMax + 1]float64, d time.Duration, after [flightMax + 1]float64, why string) {
	t.Helper()
	f := newFlightControl(flightPeriod, flightMax)
	m := &machine{rate: before, perTrip: 7, now: time.Unix(1e9, 0), carry: true}
	m.run(&f, d)
	m.rate = after
	if chosen := m.outsideProbes(&f, flightMax, 10*time.Second); chosen > 0 {
		t.Errorf("%v at %d in flight outside its probes in 10 s, %s: want none", chosen, flightMax, why)
	}
}

// TestFlightControlSlowSwitchStillMeasured: a limit whose first counted
// period is slowed at every switch to it (not by chance) is abandoned
// at most flightAbandonRun probes in a row, so it is still measured and
// chosen where it is the faster.
func TestFlightControlSlowSwitchStillMeasured(t *testing.T) {
	f := newFlightControl(flightPeriod, flightMax)
	m := &machine{rate: rates(40000, 50000, 42000), perTrip: 7, now: time.Unix(1e9, 0), slowed: 2 * flightPeriod}
	at := m.run(&f, 10*time.Second)
	if f.limit != 2 || at[2] < at[1]+at[flightMax] {
		t.Errorf("limit %d after 10 s; %v at two in flight (the faster), %v at one, %v at %d: want 2, and most of the time at two", f.limit, at[2], at[1], at[flightMax], flightMax)
	}
}

// TestFlightControlPrefersFewer: where every limit carries the same (the
// callers set the pace), or a higher one carries less than flightMargin
// more, the batcher stays at one in flight, which costs least a job, and
// goes on probing the others.
func TestFlightControlPrefersFewer(t *testing.T) {
	for _, r := range [][flightMax + 1]float64{rates(50000, 50000, 50000), rates(50000, 50500, 51000)} {
		f := newFlightControl(flightPeriod, flightMax)
		m := &machine{rate: r, perTrip: 7, now: time.Unix(1e9, 0)}
		at := m.run(&f, 10*time.Second)
		if at[1] < 3*(at[2]+at[flightMax]) {
			t.Errorf("rates %v: %v at one in flight, %v at two, %v at %d: want at least three quarters of the time at one", r, at[1], at[2], at[flightMax], flightMax)
		}
		if at[2] == 0 || at[flightMax] == 0 {
			t.Errorf("rates %v: a limit was never probed (%v at two, %v at %d)", r, at[2], at[flightMax], flightMax)
		}
	}
}

// TestFlightControlRates: a probe compares jobs a second, not jobs a
// period: a limit whose round trips are long makes long periods that
// carry more jobs each, and is still the slower.
func TestFlightControlRates(t *testing.T) {
	f := newFlightControl(flightPeriod, flightMax)
	m := &machine{rate: rates(50000, 40000, 40000), perTrip: 7, now: time.Unix(1e9, 0)}
	// Trips of 15 ms at two and at the most: periods of 30 ms.
	m.tripAt[2], m.tripAt[flightMax] = 600, 600
	at := m.run(&f, 10*time.Second)
	// The slower limits' long periods make their probes long too.
	if at[1] < 2*(at[2]+at[flightMax]) {
		t.Errorf("%v at one in flight (the faster), %v at two, %v at %d: want at least two thirds of the time at one", at[1], at[2], at[flightMax], flightMax)
	}
}

// TestFlightControlChallengersInTurn: the probes try the limits not in
// force in turn, whether each probe wins or loses, so that none goes
// untried for long.
func TestFlightControlChallengersInTurn(t *testing.T) {
	for _, wins := range []bool{false, true} {
		f := newFlightControl(flightPeriod, flightMax)
		tried := map[int]int{}
		for range 6 {
			l := f.challenger()
			if l == f.limit {
				t.Fatalf("challenger %d is the limit in force", l)
			}
			tried[l]++
			if wins {
				f.limit = l
			}
		}
		for _, l := range f.limits[:f.nlimits] {
			if !wins && l == 1 {
				continue // in force throughout
			}
			if tried[l] < 2 {
				t.Errorf("probes that win %v: limit %d tried %d times in 6 probes, want at least 2", wins, l, tried[l])
			}
		}
	}
}

// TestFlightControlUndoneProbeTriedAgain: a first probe undone by an
// idle gap does not use up the first round of probes: 0.6 s of
// calls after it still ends at the fastest limit.
func TestFlightControlUndoneProbeTriedAgain(t *testing.T) {
	now := time.Unix(1e9, 0)
	f := newFlightControl(flightPeriod, flightMax)
	for !f.probing {
		now = now.Add(flightPeriod / 10)
		f.sent(7, now)
	}
	f.idle(now)
	now = now.Add(time.Second)
	f.sent(7, now)
	if f.probing || f.limit != 1 {
		t.Fatalf("after a gap of a second: probing %v at limit %d, want no probe, limit 1", f.probing, f.limit)
	}
	// Two is the fastest: the undone probe's challenger, tried again.
	m := &machine{rate: rates(40000, 50000, 42000), perTrip: 7, now: now}
	m.run(&f, 600*time.Millisecond)
	if f.limit != 2 {
		t.Errorf("limit %d 0.6 s after the undone probe where two in flight are faster, want 2", f.limit)
	}
}

// TestFlightControlProbeLength: a probe runs flightProbeBlocks blocks of
// flightProbeBlock periods, the challenger's first, and counts all but
// the first period of each.
func TestFlightControlProbeLength(t *testing.T) {
	now := time.Unix(1e9, 0)
	f := newFlightControl(flightPeriod, flightMax)
	for !f.probing {
		now = now.Add(flightPeriod) // a round trip a period
		f.sent(7, now)
	}
	var seq []int
	var counted [2]int
	for f.probing {
		seq = append(seq, f.limit)
		counted = f.probeJobs
		now = now.Add(flightPeriod)
		f.sent(7, now)
	}
	var want []int
	for b := range flightProbeBlocks {
		for range flightProbeBlock {
			want = append(want, 2-b%2)
		}
	}
	if !slices.Equal(seq, want) {
		t.Errorf("the first probe's periods ran at limits %v, want %v", seq, want)
	}
	// The last period's jobs were added as the probe ended.
	perSide := flightProbeBlocks / 2 * (flightProbeBlock - 1)
	if got := counted[0] + counted[1] + 7; got != 2*perSide*7 {
		t.Errorf("the probe counted %d jobs, want %d: %d periods a limit of 7", got, 2*perSide*7, perSide)
	}
}

// TestFlightControlSettles: the first period after a switch of limit,
// which runs at the rate of the limit before it, is not counted, so a
// small lead is still seen.
func TestFlightControlSettles(t *testing.T) {
	f := newFlightControl(flightPeriod, flightMax)
	// The most in flight carries 4 % more: above flightMargin, but not
	// once each limit's first periods are counted at the other's rate.
	m := &machine{rate: rates(48000, 48000, 50000), perTrip: 7, now: time.Unix(1e9, 0), carry: true}
	at := m.run(&f, 10*time.Second)
	if at[flightMax] < 3*(at[1]+at[2]) {
		t.Errorf("%v at %d in flight (the faster), %v at one, %v at two: want at least three quarters of the time at %d", at[flightMax], flightMax, at[1], at[2], flightMax)
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
	at := m.run(&f, 4*time.Second)
	if f.limit != flightMax || at[flightMax] < at[1]+at[2] {
		t.Errorf("limit %d after 4 s more where %d in flight are faster (%v at 1, %v at 2, %v at %d), want %d, most of the time", f.limit, flightMax, at[1], at[2], at[flightMax], flightMax, flightMax)
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
	// The pool a client's options give, with go-redis's defaults (no
	// connection is made).
	cpus := runtime.GOMAXPROCS(0)
	for _, tc := range []struct {
		name   string
		client redis.UniversalClient
		want   int
	}{
		{"client", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", PoolSize: 6}), 6},
		{"client, default pool", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}), 10 * cpus},
		{"client, MaxActiveConns", redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", PoolSize: 30, MaxActiveConns: 4}), 4},
		{"cluster, default pool", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}}), 5 * cpus},
		{"cluster", redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, PoolSize: 12}), 12},
		{"ring, default pool", redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}}), 10 * cpus},
	} {
		if got := poolSize(tc.client); got != tc.want {
			t.Errorf("%s: poolSize %d, want %d", tc.name, got, tc.want)
		}
		_ = tc.client.Close()
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
