package redisstore

import "time"

// flightControl chooses how many merged round trips an enqueue batcher
// keeps in flight: one or two (flightMax).
//
// Which carries more jobs a second depends on the machine, not on the
// program. One in flight merges every caller's job into each round trip,
// which costs the client and Redis least a job, but the callers wait for
// each other: where a round trip's wake-ups are slow, the client and
// Redis idle in turn. Two in flight overlap one round trip's wait with
// the next one's callers, at the price of smaller merges. Measured with
// bench/instr -producers 8 (medians of alternated runs): on the machine
// of 2026-12-02 one in flight was the faster (200,000 jobs in 5.13 s
// against 5.50 s); on the one of 2026-12-04, a KVM guest where a
// loopback round trip took 70-90 µs, two were (100,000 jobs in 1.94 s
// against 2.30 s, ten runs each).
//
// So the batcher measures. While calls keep coming, it counts the jobs
// its round trips carry over periods of at least period. After
// flightProbeEvery counted periods at one limit (flightProbeLen the
// first time, at one in flight) it runs flightProbeLen at the other, a
// probe, and then keeps the limit that carried more jobs a second over
// its periods (the probed one on a tie): a period's count varies by a
// fifth from one to the next here, so single periods are not compared.
// A batcher that goes idle (nothing queued, nothing in flight) goes on
// counting when its next round trip ends less than a quarter of a
// period after it went idle; when it ends a quarter period or more
// after, the running period ends uncounted, and a probe running is
// undone: below what the batcher can carry, both limits carry what the
// callers send. Callers that pause that long more often than a probe
// lasts keep the batcher at one in flight. A lone caller's batcher,
// idle between its round trips, counts periods too; either limit
// carries its one call the same.
//
// A flightControl is guarded by its batcher's mutex. Its zero value is
// not ready: use newFlightControl.
type flightControl struct {
	limit  int           // round trips allowed in flight: 1 to flightMax
	period time.Duration // the least length of a counted period; 0: the limit never changes
	start  time.Time     // when the running period began; zero: none is running
	jobs   int           // jobs carried by the round trips that ended in the running period
	idleAt time.Time     // when the batcher last went idle; zero: busy since
	// winJobs and winTime add up the counted periods at the limit in
	// force since it last changed or was last probed against.
	winJobs int
	winTime time.Duration
	periods int     // counted periods in the window
	probing bool    // the window is a probe of limit against base
	probed  bool    // a probe has run: the first comes after flightProbeLen periods
	base    float64 // jobs a second of the window before the probe
	// switches counts the changes of limit (tests read it).
	switches int
}

const (
	// flightMax is the most round trips a batcher keeps in flight.
	flightMax = 2
	// flightPeriod is the least length of a counted period: at the
	// shared harness's W1 rate it spans a hundred or more round trips.
	flightPeriod = 20 * time.Millisecond
	// flightProbeEvery is how many counted periods run at a limit before
	// the other is probed, and flightProbeLen how many a probe runs: in
	// steady state the slower limit runs one period in five.
	flightProbeEvery = 16
	flightProbeLen   = 4
)

// newFlightControl returns a control at one round trip in flight that
// counts periods of at least period (0: that never changes its limit).
func newFlightControl(period time.Duration) flightControl {
	return flightControl{limit: 1, period: period}
}

// sent records a round trip that carried n jobs and ended at now. It may
// change the limit.
func (f *flightControl) sent(n int, now time.Time) {
	if f.period <= 0 {
		return
	}
	if !f.idleAt.IsZero() {
		gap := now.Sub(f.idleAt)
		f.idleAt = time.Time{}
		if gap >= f.period/4 {
			f.start = time.Time{}
			if f.probing {
				f.probing = false
				f.setLimit(f.other())
				f.newWindow()
			}
		}
	}
	if f.start.IsZero() {
		// The period begins with this round trip's end: the jobs it
		// carried were sent before.
		f.start, f.jobs = now, 0
		return
	}
	f.jobs += n
	elapsed := now.Sub(f.start)
	if elapsed < f.period {
		return
	}
	f.counted(f.jobs, elapsed)
	f.start, f.jobs = now, 0
}

// counted adds a counted period that carried jobs in elapsed to the
// window, and ends the window when it is long enough.
func (f *flightControl) counted(jobs int, elapsed time.Duration) {
	f.winJobs += jobs
	f.winTime += elapsed
	f.periods++
	rate := float64(f.winJobs) / f.winTime.Seconds()
	switch {
	case f.probing && f.periods >= flightProbeLen:
		f.probing = false
		if rate < f.base {
			f.setLimit(f.other()) // the probe lost: back to the limit before it
		}
	case !f.probing && (f.periods >= flightProbeEvery || !f.probed && f.periods >= flightProbeLen):
		f.probing, f.probed, f.base = true, true, rate
		f.setLimit(f.other())
	default:
		return
	}
	f.newWindow()
}

// newWindow starts counting a window of periods afresh.
func (f *flightControl) newWindow() { f.winJobs, f.winTime, f.periods = 0, 0, 0 }

// idle records that the batcher has nothing queued and nothing in flight
// from now on.
func (f *flightControl) idle(now time.Time) {
	if f.period > 0 {
		f.idleAt = now
	}
}

// other returns the limit a probe tries: the one not in force.
func (f *flightControl) other() int { return flightMax + 1 - f.limit }

func (f *flightControl) setLimit(l int) {
	if l != f.limit {
		f.limit = l
		f.switches++
	}
}
