package store

import "time"

// What a rate limit counts, and how it holds where handlers start.
//
// QueueConfig.RateLimit (and GroupRateLimit) counts handler starts. A
// store cannot see a start, only the claim before it, and a worker starts
// a claimed job a little later (the claim's reply travels back, the job
// waits for an executor). A store that let RateLimit claims through in any
// window of RatePeriod would let two bursts of claims, one at each edge of
// a window, land in one window of starts. So a store counts each claim for
// a little longer than the period (Window = Period + E, E a twentieth of
// the period), and tells the claimer, in ClaimResult.StartWithin, to
// start each job no later than a guard G after the moment it sent the
// claim or hand it back (OutcomeRelease, which costs no attempt). G is
// four fifths of E: the last fifth is left for the worker's own path from
// its check to the handler (decoding the arguments, middleware, being
// scheduled). Every handler then starts within E after its claim, and any
// window of Period of starts holds only claims from a window of
// Period + E: at most RateLimit. No clock is shared between worker and
// store: the worker measures G on its own clock from before its request
// left, which is no later than the store's claim.
//
// The smooth mode (QueueConfig.RateSmooth) paces starts instead, as a GCRA
// does: the jobs get slots Interval apart, a little more than
// Period/Limit, and a slot may be used up to Tolerance (RateBurst
// intervals) early. A claim takes the jobs whose earliest start falls
// within Lead of now, and says for each how long after the reply it may
// start (ClaimResult.StartAfter): the worker waits that long, measured
// from when the reply came, which is no earlier than the store's now, so
// no job starts before its slot; and it starts the job within the guard
// after its slot or hands it back. A claimer that comes a little late
// loses no slot, as it claims up to Lead ahead. Starts then lie within
// Guard after slots Interval apart, and the guard (two fifths of
// Period/Limit) and the worker's own path from its check to the handler
// (a tenth, left for argument decoding, middleware and scheduling) are
// paid for by the extra spacing (a twentieth) over ten intervals: no
// window of k × Period/Limit, for k ≥ 10, holds more than k + RateBurst
// starts (a shorter window at most one more).

// RateTerms is how a store enforces one rate limit (a queue's, or each of
// its groups'), derived from a QueueConfig by QueueRate or GroupRate: the
// rule of rate limits is written once, here, and stores apply the terms.
// The zero value means no limit.
type RateTerms struct {
	// Limit is the number of starts allowed per period; zero means none.
	Limit int
	// Window is how long a sliding-window limit counts each claim: the
	// period plus the guard. Zero in the smooth mode.
	Window time.Duration
	// Interval is the smooth mode's spacing of claims (a GCRA's emission
	// interval): Period/Limit plus a twentieth. Zero without it.
	Interval time.Duration
	// Tolerance is how far ahead of its slot the smooth mode lets a job
	// start: Burst intervals. Zero without it or a burst.
	Tolerance time.Duration
	// Lead is how far ahead of a job's earliest start the smooth mode
	// lets a claim take it: four intervals within [MinRateLead,
	// MaxRateLead]. Zero without it.
	Lead time.Duration
	// Guard is how long after sending a claim the claimer may start its
	// jobs (ClaimResult.StartWithin): in a sliding window four fifths of
	// Window - Period, the rest left for the worker's path to the handler.
	Guard time.Duration
}

// Smooth reports whether t paces claims (QueueConfig.RateSmooth) rather
// than counting them in a sliding window.
func (t RateTerms) Smooth() bool { return t.Interval > 0 }

// Guards of a rate limit: four fifths of a sliding window's extra (a
// twentieth of its period within [MinRateGuard, MaxRateGuard]), two
// fifths of a smooth Period/Limit within the same bounds.
const (
	// MinRateLead and MaxRateLead bound RateTerms.Lead: a paced job waits
	// at most MaxRateLead in its worker before it starts, and a worker
	// that comes up to MinRateLead late for a slot loses none.
	MinRateLead = 20 * time.Millisecond
	MaxRateLead = 100 * time.Millisecond
	// MinRateGuard is the shortest guard: a claim's round trip and the
	// hand-over to an idle executor fit in it on a loaded machine.
	MinRateGuard = time.Millisecond
	// MaxRateGuard is the longest guard: a worker that cannot start a job
	// within a second of claiming it hands it back.
	MaxRateGuard = time.Second
)

// QueueRate returns the terms of c's RateLimit (zero without one). c is
// taken as Normalize left it; a zero period means DefaultRatePeriod.
func (c QueueConfig) QueueRate() RateTerms {
	return rateTerms(c.RateLimit, c.RatePeriod, c.RateSmooth, c.RateBurst)
}

// GroupRate returns the terms of c's GroupRateLimit, each group's (zero
// without one).
func (c QueueConfig) GroupRate() RateTerms {
	return rateTerms(c.GroupRateLimit, c.GroupRatePeriod, c.GroupRateSmooth, c.GroupRateBurst)
}

// ClaimGuard is the StartWithin of a claim on a queue with config c: the
// shorter guard of its limits, zero when it has none.
func (c QueueConfig) ClaimGuard() time.Duration {
	q, g := c.QueueRate().Guard, c.GroupRate().Guard
	switch {
	case q == 0:
		return g
	case g == 0:
		return q
	}
	return min(q, g)
}

func rateTerms(limit int, period time.Duration, smooth bool, burst int) RateTerms {
	if limit <= 0 {
		return RateTerms{}
	}
	if period <= 0 {
		period = DefaultRatePeriod
	}
	if !smooth || period/time.Duration(limit) < time.Microsecond { // Normalize refuses the latter
		e := clampGuard(period / 20)
		return RateTerms{Limit: limit, Window: period + e, Guard: e - e/5}
	}
	t := period / time.Duration(limit)
	iv := t + t/20
	return RateTerms{Limit: limit, Interval: iv, Tolerance: time.Duration(burst) * iv, Lead: min(max(4*iv, MinRateLead), MaxRateLead),
		Guard: clampGuard(t * 2 / 5)}
}

func clampGuard(g time.Duration) time.Duration { return min(max(g, MinRateGuard), MaxRateGuard) }
