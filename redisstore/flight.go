package redisstore

import (
	"runtime"
	"time"

	"github.com/redis/go-redis/v9"
)

// flightControl chooses how many round trips an enqueue batcher keeps
// in flight: one, two, or the store's most (flightMax, fewer with a small
// pool: flightMost).
//
// Which carries more jobs a second depends on the machine and on the
// callers, not on the program. One in flight merges every caller's job
// into each round trip, which costs the client and Redis least a job,
// but the callers wait for each other: where a round trip's wake-ups are
// slow, the client and Redis idle in turn. Two in flight overlap one
// round trip's wait with the next one's callers, at the price of smaller
// merges. The most lets each of a few busy callers send its own jobs at
// once, as a client without a batcher does, at the price of Redis's CPU
// (a script call a job) and of a connection a caller. Measured with
// bench/instr (medians of alternated runs): on the machine of 2026-12-02
// one in flight was the faster (200,000 jobs from 8 producers in 5.13 s
// against 5.50 s); on the one of the morning of 2026-12-04, a KVM guest
// where a loopback round trip took 70-90 µs, two were (100,000 jobs in
// 1.94 s against 2.30 s); on the one of that afternoon, 8 in flight
// (8 producers: 1.33-1.40 s against 1.53-1.60 s at one or two, with
// Redis spending 9.5-9.8 µs a job against 6.3-7.3), but two with 32
// producers (0.61 s against 0.71 s at one and 0.76 s at 8).
//
// So the batcher measures. While calls keep coming, it counts the jobs
// its round trips carry over periods of at least period. After
// flightProbeEvery counted periods at one limit it runs a probe: the
// limit in force and another (the others in turn) alternate in blocks
// of flightProbeBlock periods, flightProbeBlocks blocks in all.
// Alternating compares the two under the same conditions: here a
// period's count varied from 25,000 to 105,000 jobs a second from one to
// the next at the same limit, and drifted over hundreds of
// milliseconds, a wider spread than between the limits. The first
// period of each block is not counted: it inherits what the other limit
// left (the round trips in flight, the queue, the machine's state), and
// measured, it ran at about the other limit's rate. Each limit's rate
// over the probe's counted periods goes into its estimate (the newest
// probe weighing flightWeight), and the batcher keeps, of the probe's
// two limits, the one of the higher estimate, the higher limit only when
// it beats the lower by flightMargin (where the callers set the pace,
// every limit carries the same, and the lower costs less); the other
// limits' estimates may be from before the machine changed. A
// challenger whose first counted period carries far less than the limit
// in force did between the probes (flightAbandon) ends its probe there,
// and its estimate is dropped until a whole probe measures it again; a
// limit so abandoned flightAbandonRun times in a row runs its next probe
// whole, so that one slowed at every switch is still measured. The
// first counted period after a change of limit is left out of the rate
// between probes, for the reason a block's first one is. The batcher
// starts at one in flight and probes each other limit once, one counted
// period after a probe that kept the limit, two after one that changed
// it or was abandoned (the first settles), so that a burst of 0.6 s has
// tried them all (a probe undone by an idle gap is tried again). A
// batcher that goes idle (nothing queued, nothing in flight)
// goes on counting when its next round trip ends less than a quarter of
// a period after it went idle; when it ends a quarter period or more
// after, the running period ends uncounted, and a probe running is
// undone: below what the batcher can carry, every limit carries what
// the callers send. Callers that pause that long more often than a
// probe lasts keep the batcher where it is. A lone caller's batcher,
// idle between its round trips, counts periods too; every limit carries
// its one call the same.
//
// A flightControl is guarded by its batcher's mutex. Its zero value is
// not ready: use newFlightControl.
type flightControl struct {
	limit   int           // round trips allowed in flight: one of limits
	period  time.Duration // the least length of a counted period; 0: the limit never changes
	limits  [3]int        // the limits it chooses among, ascending, nlimits of them
	nlimits int
	start   time.Time // when the running period began; zero: none is running
	jobs    int       // jobs carried by the round trips that ended in the running period
	idleAt  time.Time // when the batcher last went idle; zero: busy since
	// periods counts the counted periods since the last probe ended, or
	// of the probe running.
	periods int
	probing bool
	// prev and chal are the limits a probe compares: the one in force
	// before it and the one it tries; probeJobs and probeTime add up the
	// jobs carried and the time of each's periods in the probe.
	prev, chal int
	probeJobs  [2]int
	probeTime  [2]time.Duration
	// probes counts the probes finished: the first nlimits-1 follow one
	// counted period each (two after a switch).
	probes int
	turn   int // the index in limits of the last challenger
	// est holds, for each of limits, its rate over the probes that
	// measured it (measured), each probe weighing flightWeight. An
	// abandoned probe of a limit unsets its measured (flightAbandon); a
	// whole probe of such a limit unsets the limit in force's too, so
	// that both then hold that probe's rates alone.
	est      [3]float64
	measured [3]bool
	// runJobs and runTime add up the periods counted at the limit in
	// force since the last probe, but the first after a change of limit
	// (settling: that one is next); ref is their rate when the running
	// probe began, what its challenger is held against (flightAbandon).
	runJobs  int
	runTime  time.Duration
	ref      float64
	settling bool
	// abandonedRun counts, for each of limits, the probes of it
	// abandoned in a row.
	abandonedRun [3]int
	// switches counts the changes of limit, and abandoned the probes
	// abandoned after their first counted period (tests read both).
	switches, abandoned int
}

const (
	// flightMax is the most round trips a batcher keeps in flight: with
	// as many busy callers or fewer, each sends its own jobs at once.
	flightMax = 8
	// flightPeriod is the least length of a counted period: at the
	// shared harness's W1 rate it spans a hundred or more round trips.
	flightPeriod = 20 * time.Millisecond
	// flightProbeEvery is how many counted periods run at a limit
	// between probes. A probe runs flightProbeBlocks blocks of
	// flightProbeBlock periods, alternating its two limits (the
	// challenger first), and counts all but the first period of each
	// block: four periods a limit. In steady state the slower limits run
	// one period in six, or fewer where their probes are abandoned
	// (flightAbandon).
	flightProbeEvery  = 24
	flightProbeBlock  = 3
	flightProbeBlocks = 4
	// flightMargin is how much higher a higher limit's estimate must be
	// than a lower one's for the higher to be kept: between limits that
	// carry the same, the difference is noise, and the lower costs Redis
	// and the client less a job.
	flightMargin = 0.03
	// flightAbandon: a probe whose challenger, in its first counted
	// period, carries less than this share of what the limit in force
	// carried since the last probe is abandoned there, two periods after
	// it began, not twelve. (Held against the limit in force's estimate
	// instead, a machine that slowed down would abandon every challenger
	// below three quarters of a rate from before.) A limit that carries
	// half what the one in force does (8 in flight on the machine of
	// 2026-12-05, where one or two carried about 73,000 jobs a second and
	// 8 about 36,000) cost a burst of 0.7 s a tenth of its jobs in the
	// first probes, and the six periods of each later probe that ran at
	// it. A period's rate is noisy (see above): a faster challenger
	// abandoned by chance is tried again at a later probe, and run whole
	// after flightAbandonRun abandonments in a row.
	flightAbandon = 0.75
	// flightAbandonRun is how many probes of one limit in a row may be
	// abandoned; the next runs whole. A limit whose first counted period
	// is slowed at every switch to it (not only by chance) is then still
	// measured, at the cost of one whole probe in three of a limit that
	// is slower. Not in a burst: the third probe of a limit comes a
	// second or two after the first, so a burst shorter than that stays
	// off a faster limit slowed at every switch (a few per cent in a
	// model of it, where a limit slowed by chance or not at all is found
	// as before).
	flightAbandonRun = 2
	// flightWeight is the weight of a probe's rate in its limit's
	// estimate: a probe's four periods a limit still spread by a tenth
	// here, so the choice rests on the last few probes, not on one.
	flightWeight = 0.5
)

// newFlightControl returns a control at one round trip in flight that
// chooses among one, two and most (those of them above most left out;
// most is at least one) over periods of at least period (0: the limit
// stays at one).
func newFlightControl(period time.Duration, most int) flightControl {
	f := flightControl{limit: 1, period: period, limits: [3]int{1}, nlimits: 1}
	for _, l := range [...]int{min(2, most), most} {
		if l > f.limits[f.nlimits-1] {
			f.limits[f.nlimits] = l
			f.nlimits++
		}
	}
	return f
}

// flightMost returns the most round trips in flight for the batchers of
// a store whose client (or each of whose nodes) has a pool of pool
// connections: flightMax, or half the pool when that is fewer (at least
// one), so that the store's other calls still find connections. Each
// batcher (one a store on a plain client, one a hash slot on a Cluster)
// counts its own: a round trip in flight is a caller's, or a flusher's
// carrying queued callers, so the connections they hold are at most
// what those callers would hold without a batcher.
func flightMost(pool int) int {
	return max(1, min(flightMax, pool/2))
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
				// Undone, not counted: the next probe tries the
				// same challenger.
				f.probing, f.periods = false, 0
				f.turn = (f.turn + f.nlimits - 1) % f.nlimits
				// Nothing is in flight after the gap: nothing to settle.
				f.setLimit(f.prev)
				f.settling = false
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

// counted records a counted period that carried jobs in elapsed: a
// probe's, or one of those between probes.
func (f *flightControl) counted(jobs int, elapsed time.Duration) {
	f.periods++
	if f.probing {
		i := 0
		if f.limit == f.chal {
			i = 1
		}
		pos := (f.periods - 1) % flightProbeBlock // 0: the block's first period, not counted
		if pos > 0 {
			f.probeJobs[i] += jobs
			f.probeTime[i] += elapsed
		}
		if pos == 1 && f.limit == f.chal && f.periods == 2 {
			// The challenger's first counted period: far below what the
			// limit in force carries, it is not worth the probe's other
			// periods, unless the challenger was abandoned too often in a
			// row. Its estimate is dropped: from before the machine
			// changed, it could win the end of another probe. (Not
			// replaced by this period's rate: a period after a switch,
			// held against periods that followed none, may read low
			// for the switch alone.)
			ci := f.index(f.chal)
			if rate(jobs, elapsed) < f.ref*flightAbandon && f.abandonedRun[ci] < flightAbandonRun {
				f.probing, f.periods, f.probes = false, 0, f.probes+1
				f.abandoned++
				f.abandonedRun[ci]++
				f.measured[ci] = false
				f.switchTo(f.prev)
				return
			}
		}
		if f.periods < flightProbeBlock*flightProbeBlocks {
			if pos == flightProbeBlock-1 {
				f.setLimit(f.prev + f.chal - f.limit) // the other one, for the next block
			}
			return
		}
		f.probing, f.periods, f.probes = false, 0, f.probes+1
		ci := f.index(f.chal)
		if !f.measured[ci] {
			// The challenger's estimate is this probe's rate alone: so
			// is the limit in force's, else a blend with rates from
			// before the machine changed would be held against it.
			f.measured[f.index(f.prev)] = false
		}
		f.note(f.prev, rate(f.probeJobs[0], f.probeTime[0]))
		f.note(f.chal, rate(f.probeJobs[1], f.probeTime[1]))
		f.abandonedRun[ci] = 0
		f.switchTo(f.better(f.prev, f.chal))
		return
	}
	if f.settling {
		// The first period after a change of limit: it ran partly at
		// the limit before. Counted towards the next probe, not into its
		// reference.
		f.settling = false
	} else {
		f.runJobs += jobs
		f.runTime += elapsed
	}
	wait := flightProbeEvery
	if f.probes < f.nlimits-1 {
		wait = 1
	}
	if f.nlimits > 1 && f.periods >= wait && f.runTime > 0 {
		f.prev, f.chal = f.limit, f.challenger()
		f.probing, f.periods = true, 0
		f.ref = rate(f.runJobs, f.runTime)
		f.runJobs, f.runTime = 0, 0
		f.probeJobs, f.probeTime = [2]int{}, [2]time.Duration{}
		f.setLimit(f.chal)
	}
}

// rate returns jobs carried in elapsed as jobs a second.
func rate(jobs int, elapsed time.Duration) float64 {
	return float64(jobs) / elapsed.Seconds()
}

// note adds rate, measured in a probe at limit l, to l's estimate.
func (f *flightControl) note(l int, rate float64) {
	i := f.index(l)
	if f.measured[i] {
		f.est[i] += (rate - f.est[i]) * flightWeight
	} else {
		f.est[i], f.measured[i] = rate, true
	}
}

// better returns, of limits a and b (both measured), the one of the
// higher estimate, the higher limit only when its estimate beats the
// lower one's by flightMargin: where the callers, not the limit, set the
// pace, every limit carries the same, and the lower costs less. A probe
// chooses between its own two limits only: another's estimate may be
// from before the machine changed.
func (f *flightControl) better(a, b int) int {
	lo, hi := min(a, b), max(a, b)
	if f.est[f.index(hi)] > f.est[f.index(lo)]*(1+flightMargin) {
		return hi
	}
	return lo
}

// idle records that the batcher has nothing queued and nothing in flight
// from now on.
func (f *flightControl) idle(now time.Time) {
	if f.period > 0 {
		f.idleAt = now
	}
}

// challenger returns the limit the next probe tries: the limits not in
// force, in turn (the one after the last challenger in limits).
func (f *flightControl) challenger() int {
	for {
		f.turn = (f.turn + 1) % f.nlimits
		if l := f.limits[f.turn]; l != f.limit {
			return l
		}
	}
}

// switchTo ends a probe at limit l, the next period settling when that
// changes the limit (see runJobs).
func (f *flightControl) switchTo(l int) {
	f.settling = l != f.limit
	f.setLimit(l)
}

// index returns the index of limit l in limits.
func (f *flightControl) index(l int) int {
	for i, x := range f.limits[:f.nlimits] {
		if x == l {
			return i
		}
	}
	return 0
}

func (f *flightControl) setLimit(l int) {
	if l != f.limit {
		f.limit = l
		f.switches++
	}
}

// poolSize returns the connections client's pool holds at most (a
// Cluster's or a Ring's, per node): its PoolSize, or MaxActiveConns when
// that is set and smaller; 10 a CPU, go-redis's default, when it cannot
// tell (a client of another type).
func poolSize(client redis.UniversalClient) int {
	pool, active := 0, 0
	switch c := client.(type) {
	case *redis.Client:
		pool, active = c.Options().PoolSize, c.Options().MaxActiveConns
	case *redis.ClusterClient:
		pool, active = c.Options().PoolSize, c.Options().MaxActiveConns
	case *redis.Ring:
		pool, active = c.Options().PoolSize, c.Options().MaxActiveConns
	}
	if pool <= 0 {
		pool = 10 * runtime.GOMAXPROCS(0)
	}
	if active > 0 && active < pool {
		pool = active
	}
	return pool
}
