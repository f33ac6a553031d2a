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
// a little longer than the period (a guard G: Window = Period + G), and
// tells the claimer, in ClaimResult.StartWithin, to start each job no
// later than G after the moment it sent the claim or hand it back
// (OutcomeRelease, which costs no attempt). Every start then lies within
// G after its claim, and any window of Period of starts holds only claims
// from a window of Period + G: at most RateLimit. No clock is shared
// between worker and store: the worker measures G on its own clock from
// before its request left, which is no later than the store's claim.
//
// The smooth mode (QueueConfig.RateSmooth) paces claims instead: one every
// Interval, a little longer than Period/Limit, with a tolerance of
// RateBurst intervals plus a slack that absorbs a claimer that came late.
// The guard and the slack are paid for by the extra spacing over ten
// intervals: no window of k × Period/Limit, for k ≥ 10, holds more than
// k + RateBurst starts (a shorter window at most one more).

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
	// Tolerance is how far ahead of its pace the smooth mode lets a claim
	// be: Burst intervals plus the slack. Zero without it.
	Tolerance time.Duration
	// Guard is how long after sending a claim the claimer may start its
	// jobs (ClaimResult.StartWithin).
	Guard time.Duration
}

// Smooth reports whether t paces claims (QueueConfig.RateSmooth) rather
// than counting them in a sliding window.
func (t RateTerms) Smooth() bool { return t.Interval > 0 }

// Guards of a rate limit: a twentieth of a sliding window's period within
// [MinRateGuard, MaxRateGuard], a quarter of a smooth interval within the
// same bounds.
const (
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
	if !smooth {
		g := clampGuard(period / 20)
		return RateTerms{Limit: limit, Window: period + g, Guard: g}
	}
	t := period / time.Duration(limit)
	iv := t + t/20
	g := clampGuard(t / 4)
	return RateTerms{Limit: limit, Interval: iv, Tolerance: time.Duration(burst)*iv + t/4, Guard: g}
}

func clampGuard(g time.Duration) time.Duration { return min(max(g, MinRateGuard), MaxRateGuard) }
