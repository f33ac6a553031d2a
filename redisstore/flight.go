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
// probe weighing flightWeight), and the batcher keeps the limit of the
// highest estimate, a higher limit only when it beats a lower one by
// flightMargin (where the callers set the pace, every limit carries the
// same, and the lower costs less). A challenger that carries far less
// than the limit in force in its first counted period (flightAbandon)
// ends its probe there. It starts at one in flight and
// probes each other limit once, one period apart, so that a burst of
// 0.6 s has tried them all (a probe undone by an idle gap is tried
// again). A batcher that goes idle (nothing queued, nothing in flight)
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
	probes     int // probes finished: the first nlimits-1 follow one period each
	turn       int // the index in limits of the last challenger
	// est holds, for each of limits, its rate over the probes that
	// measured it (measured), each probe weighing flightWeight.
	est      [3]float64
	measured [3]bool
	// runJobs and runTime add up the periods counted at the limit in
	// force since the last probe; ref is their rate when the running
	// probe began, what its challenger is held against (flightAbandon).
	runJobs int
	runTime time.Duration
	ref     float64
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
	// one period in six.
	flightProbeEvery  = 24
	flightProbeBlock  = 3
	flightProbeBlocks = 4
	// flightMargin is how much higher a higher limit's estimate must be
	// than a lower one's for the higher to be kept: between limits that
	// carry the same, the difference is noise, and the lower costs Redis
	// and the client less a job.
	flightMargin = 0.03
	// flightAbandon: a probe whose challenger carries less than this
	// share of what the limit in force carried since the last probe (its
	// rate now: an estimate from before the machine slowed down would
	// abandon every challenger) in its first counted period is abandoned
	// there, two periods after it began, not twelve. A limit that carries half what the one in force does
	// (8 in flight on the machine of 2026-12-05, where one or two carried
	// about 73,000 jobs a second and 8 about 36,000) cost a burst of 0.7 s
	// a tenth of its jobs in the first probes, and every later probe half
	// its length. Periods at one limit spread by up to a third from one to
	// the next on some machines: a faster challenger abandoned by chance
	// is tried again at a later probe.
	flightAbandon = 0.75
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
				f.setLimit(f.prev)
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
		if f.periods == 2 && rate(jobs, elapsed) < f.ref*flightAbandon {
			// The challenger's first counted period: far below what the
			// limit in force carries, it is not worth the probe's other
			// periods. Its estimate stays as it was.
			f.probing, f.periods, f.probes = false, 0, f.probes+1
			f.abandoned++
			f.setLimit(f.prev)
			return
		}
		if f.periods < flightProbeBlock*flightProbeBlocks {
			if pos == flightProbeBlock-1 {
				f.setLimit(f.prev + f.chal - f.limit) // the other one, for the next block
			}
			return
		}
		f.probing, f.periods, f.probes = false, 0, f.probes+1
		f.note(f.prev, rate(f.probeJobs[0], f.probeTime[0]))
		f.note(f.chal, rate(f.probeJobs[1], f.probeTime[1]))
		f.setLimit(f.best())
		return
	}
	f.runJobs += jobs
	f.runTime += elapsed
	wait := flightProbeEvery
	if f.probes < f.nlimits-1 {
		wait = 1
	}
	if f.nlimits > 1 && f.periods >= wait {
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
	for i, x := range f.limits[:f.nlimits] {
		if x == l && f.measured[i] {
			f.est[i] += (rate - f.est[i]) * flightWeight
		} else if x == l {
			f.est[i], f.measured[i] = rate, true
		}
	}
}

// best returns the limit of the highest estimate, of those measured, a
// higher limit only when its estimate beats a lower one's by
// flightMargin: where the callers, not the limit, set the pace, every
// limit carries the same, and the lower costs less.
func (f *flightControl) best() int {
	b := -1
	for i := range f.limits[:f.nlimits] {
		if f.measured[i] && (b < 0 || f.est[i] > f.est[b]*(1+flightMargin)) {
			b = i
		}
	}
	return f.limits[b]
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
