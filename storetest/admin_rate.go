package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// What a rate limit promises a claimer (store.RateTerms): claims counted
// for the period plus a guard, or paced in the smooth mode, each claim
// telling its guard in StartWithin.

func rateCases() []adminCase {
	return []adminCase{
		{name: "RateLimitCountsGuard", fn: func(t *testing.T, s store.Store, a store.Admin) { testRateGuard(t, s, a, false) }},
		{name: "RateLimitPerGroupCountsGuard", fn: func(t *testing.T, s store.Store, a store.Admin) { testRateGuard(t, s, a, true) }},
		{name: "RateSmooth", fn: func(t *testing.T, s store.Store, a store.Admin) { testRateSmooth(t, s, a, false) }},
		{name: "RateSmoothPerGroup", fn: func(t *testing.T, s store.Store, a store.Admin) { testRateSmooth(t, s, a, true) }},
		{name: "RateSmoothBurst", fn: testRateSmoothBurst},
	}
}

// rateQueue makes a queue with cfg's rate limit on the queue, or the same
// on each group (with jobs of group "a"), and n jobs.
func rateQueue(t *testing.T, s store.Store, a store.Admin, perGroup bool, cfg store.QueueConfig, n int) string {
	t.Helper()
	q := newQueue(t)
	if perGroup {
		cfg = store.QueueConfig{GroupRateLimit: cfg.RateLimit, GroupRatePeriod: cfg.RatePeriod,
			GroupRateSmooth: cfg.RateSmooth, GroupRateBurst: cfg.RateBurst}
		addGroups(t, s, q, []string{"a"}, []int{n})
	} else {
		for _, id := range seqIDs("j", n) {
			add(t, s, job(q, id))
		}
	}
	setQueueConfig(t, a, q, cfg)
	return q
}

// claimAllFast claims from q as fast as claims come back until n jobs
// were claimed, and returns each claim's jobs' earliest starts on the
// store's clock (claim time plus StartAfter), oldest first. Every claim
// that returns jobs must say StartWithin guard.
func claimAllFast(t *testing.T, s store.Store, q string, n int, guard time.Duration) [][]time.Time {
	t.Helper()
	var got [][]time.Time
	total := 0
	for deadline := time.Now().Add(waitFor); total < n; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs claimed in %v under a rate limit", total, n, waitFor)
		}
		res := claim(t, s, q, 10, long)
		if len(res.Jobs) == 0 {
			continue
		}
		if res.StartWithin != guard {
			t.Fatalf("Claim under a rate limit: StartWithin %v, want the guard %v", res.StartWithin, guard)
		}
		if res.StartAfter != nil && len(res.StartAfter) != len(res.Jobs) {
			t.Fatalf("Claim returned %d jobs and %d StartAfter, want one each", len(res.Jobs), len(res.StartAfter))
		}
		at := make([]time.Time, len(res.Jobs))
		for i, j := range res.Jobs {
			at[i] = j.AttemptedAt
			if res.StartAfter != nil {
				at[i] = at[i].Add(res.StartAfter[i])
			}
		}
		got = append(got, at)
		total += len(at)
	}
	return got
}

// testRateGuard: a sliding window counts each claim for the period plus
// the guard. Claims as fast as they come: no window of that length on the
// store's clock holds more than the limit (a window of the period alone
// would let the next claims in a guard early).
func testRateGuard(t *testing.T, s store.Store, a store.Admin, perGroup bool) {
	cfg := store.QueueConfig{RateLimit: 3, RatePeriod: 300 * time.Millisecond}
	guard := cfg.QueueRate().Guard
	if guard <= 0 {
		t.Fatalf("RateTerms.Guard of %+v is %v, want more than 0", cfg, guard)
	}
	window := cfg.RatePeriod + guard
	q := rateQueue(t, s, a, perGroup, cfg, 9)
	var at []time.Time
	for _, c := range claimAllFast(t, s, q, 9, guard) {
		at = append(at, c...)
	}
	slices.SortFunc(at, time.Time.Compare)
	for i := range at {
		n := 0
		for j := i; j < len(at) && at[j].Sub(at[i]) < window; j++ {
			n++
		}
		if n > cfg.RateLimit {
			t.Fatalf("%d claims within %v (RatePeriod %v + guard %v) from %v under a limit of %d (claim times %v)",
				n, window, cfg.RatePeriod, guard, at[i], cfg.RateLimit, at)
		}
	}
	if res := claim(t, s, newQueue(t), 1, long); res.StartWithin != 0 {
		t.Fatalf("Claim from a queue without a rate limit: StartWithin %v, want 0", res.StartWithin)
	}
}

// testRateSmooth: the smooth mode paces the jobs' earliest starts (claim
// time plus StartAfter): any two jobs k apart may start at least k
// intervals apart (less the millisecond claim times are rounded to),
// though a claim may take them up to Lead ahead.
func testRateSmooth(t *testing.T, s store.Store, a store.Admin, perGroup bool) {
	cfg := store.QueueConfig{RateLimit: 20, RatePeriod: time.Second, RateSmooth: true}
	terms := cfg.QueueRate()
	q := rateQueue(t, s, a, perGroup, cfg, 4)
	var at []time.Time
	for _, c := range claimAllFast(t, s, q, 4, terms.Guard) {
		at = append(at, c...)
	}
	for i := range at {
		for j := i + 1; j < len(at); j++ {
			if min := time.Duration(j-i)*terms.Interval - time.Millisecond; at[j].Sub(at[i]) < min {
				t.Fatalf("jobs %d and %d under RateSmooth %d per %v may start %v apart, want at least %v (earliest starts %v)",
					i, j, cfg.RateLimit, cfg.RatePeriod, at[j].Sub(at[i]), min, at)
			}
		}
	}
}

// testRateSmoothBurst: a burst lets a quiet queue's first claim take
// RateBurst jobs more than the pace's one, and no more.
func testRateSmoothBurst(t *testing.T, s store.Store, a store.Admin) {
	cfg := store.QueueConfig{RateLimit: 1, RatePeriod: time.Hour, RateSmooth: true, RateBurst: 2}
	q := rateQueue(t, s, a, false, cfg, 5)
	if got := len(claim(t, s, q, 10, long).Jobs); got != 3 {
		t.Fatalf("first Claim Max 10 under RateSmooth with RateBurst 2: %d jobs, want 3", got)
	}
	res := claimNone(t, s, q, "the burst is used and the pace is one an hour")
	if res.RetryIn < 45*time.Minute {
		t.Fatalf("RetryIn after the burst: %v, want about an hour (the pace's next slot, three intervals on, less the tolerance and lead)", res.RetryIn)
	}
	if st := stats(t, a, q); st.RateUsed != 3 {
		t.Fatalf("QueueStats.RateUsed after a burst of 3: %d, want 3 (the jobs the pace is ahead by)", st.RateUsed)
	}
}
