package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func limitCases() []adminCase {
	return []adminCase{
		{name: "Paused", fn: testClaimPaused},
		{name: "MaxRunning", fn: testClaimMaxRunning},
		{name: "RateLimit", fn: testClaimRateLimit},
		{name: "RateLimitSeveralClaims", fn: testClaimRateLimitSeveralClaims},
		{name: "RateLimitNextPeriod", fn: testClaimRateLimitNextPeriod},
		{name: "RateLimitSlides", fn: testClaimRateLimitSlides},
		{name: "Hold", fn: testClaimHold},
	}
}

func testClaimPaused(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{Paused: true})
	add(t, s, job(q, "a"))
	requireState(t, a, q, "a", store.StateReady)
	if !stats(t, a, q).Config.Paused {
		t.Fatalf("QueueStats.Config.Paused = false after pausing the queue")
	}
	if res := claimNone(t, s, q, "the queue is paused"); res.RetryIn <= 0 {
		t.Fatalf("Claim from a paused queue: RetryIn %v, want > 0", res.RetryIn)
	}
	setQueueConfig(t, a, q, store.QueueConfig{})
	claimOne(t, s, q, "a", long)
}

func testClaimMaxRunning(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{MaxRunning: 2})
	for _, id := range seqIDs("j", 5) {
		add(t, s, job(q, id))
	}
	first := claim(t, s, q, 5, long).Jobs
	if len(first) != 2 {
		t.Fatalf("Claim Max 5 with MaxRunning 2: got %d jobs, want 2", len(first))
	}
	if res := claimNone(t, s, q, "MaxRunning 2 and 2 jobs running"); res.RetryIn <= 0 {
		t.Fatalf("Claim held back by MaxRunning: RetryIn %v, want > 0", res.RetryIn)
	}
	finishOK(t, s, outcome(first[0], store.OutcomeAck))
	if got := len(claim(t, s, q, 5, long).Jobs); got != 1 {
		t.Fatalf("Claim Max 5 with MaxRunning 2 after one of 2 running jobs was acked: got %d jobs, want 1", got)
	}
	requireCounts(t, a, q, store.StateCounts{Ready: 2, Unack: 2})
}

func testClaimRateLimit(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{RateLimit: 3, RatePeriod: long})
	for _, id := range seqIDs("j", 10) {
		add(t, s, job(q, id))
	}
	got := claim(t, s, q, 10, time.Minute).Jobs
	if len(got) != 3 {
		t.Fatalf("Claim Max 10 with RateLimit 3 per hour: got %d jobs, want 3", len(got))
	}
	for _, j := range got {
		finishOK(t, s, outcome(j, store.OutcomeAck))
	}
	res := claimNone(t, s, q, "RateLimit 3 per hour used up, even with nothing running")
	if w := (store.QueueConfig{RateLimit: 3, RatePeriod: long}).QueueRate().Window; res.RetryIn <= 0 || res.RetryIn > w {
		t.Fatalf("Claim held back by RateLimit 3 per hour: RetryIn %v, want in (0, %v] (the period and its guard)", res.RetryIn, w)
	}
	requireCounts(t, a, q, store.StateCounts{Ready: 7})
}

// Several claims within one window share the limit exactly: each counts the
// jobs it took, no more and no fewer.
func testClaimRateLimitSeveralClaims(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	setQueueConfig(t, a, q, store.QueueConfig{RateLimit: 5, RatePeriod: long})
	for _, id := range seqIDs("j", 10) {
		add(t, s, job(q, id))
	}
	var got []int
	for range 4 {
		got = append(got, len(claim(t, s, q, 2, time.Minute).Jobs))
	}
	if fmt.Sprint(got) != "[2 2 1 0]" {
		t.Fatalf("four claims of Max 2 under RateLimit 5 per hour took %v jobs, want [2 2 1 0]", got)
	}
}

func testClaimRateLimitNextPeriod(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	const period = 200 * time.Millisecond
	setQueueConfig(t, a, q, store.QueueConfig{RateLimit: 2, RatePeriod: period})
	for _, id := range seqIDs("j", 6) {
		add(t, s, job(q, id))
	}
	claimed := 0
	refused := false
	testutil.Eventually(t, waitFor, func() error {
		res := claim(t, s, q, 10, long)
		if len(res.Jobs) > 2 {
			t.Fatalf("one Claim with RateLimit 2 returned %d jobs, want at most 2", len(res.Jobs))
		}
		if len(res.Jobs) == 0 && claimed < 6 {
			refused = true
			if w := (store.QueueConfig{RateLimit: 2, RatePeriod: period}).QueueRate().Window; res.RetryIn <= 0 || res.RetryIn > w {
				t.Fatalf("Claim held back by RateLimit 2 per %v: RetryIn %v, want in (0, %v] (the period and its guard)", period, res.RetryIn, w)
			}
		}
		claimed += len(res.Jobs)
		if claimed < 6 {
			return fmt.Errorf("%d of 6 jobs claimed under RateLimit 2 per %v, want all as periods pass", claimed, period)
		}
		return nil
	})
	if !refused {
		t.Fatalf("claimed 6 jobs under RateLimit 2 per %v without ever being held back", period)
	}
}

// testClaimRateLimitSlides: the limit holds in every window of RatePeriod,
// not only in windows aligned on the clock. One claim, then half a period
// later claims as fast as they come: fixed windows would let a whole
// limit's worth through at the next boundary, within a period of the
// first claims.
func testClaimRateLimitSlides(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	const limit, period = 4, 400 * time.Millisecond
	setQueueConfig(t, a, q, store.QueueConfig{RateLimit: limit, RatePeriod: period})
	for _, id := range seqIDs("j", 12) {
		add(t, s, job(q, id))
	}
	first := claim(t, s, q, 1, long).Jobs
	if len(first) != 1 {
		t.Fatalf("first Claim Max 1 under RateLimit %d: got %d jobs, want 1", limit, len(first))
	}
	began := time.Now()
	testutil.EventuallyTrue(t, waitFor, "half a period to pass", func() bool { return time.Since(began) >= period/2 })
	at := []time.Time{first[0].AttemptedAt}
	if got := claim(t, s, q, 10, long).Jobs; len(got) != limit-1 {
		t.Fatalf("Claim Max 10 half a period after one claim under RateLimit %d per %v: got %d jobs, want %d", limit, period, len(got), limit-1)
	} else {
		for _, j := range got {
			at = append(at, j.AttemptedAt)
		}
	}
	if st := stats(t, a, q); st.RateUsed != limit {
		t.Fatalf("QueueStats.RateUsed = %d after %d claims within a period, want %d", st.RateUsed, limit, limit)
	}
	testutil.Eventually(t, waitFor, func() error {
		for _, j := range claim(t, s, q, 10, long).Jobs {
			at = append(at, j.AttemptedAt)
		}
		if len(at) < 2*limit+1 {
			return fmt.Errorf("%d of %d jobs claimed under RateLimit %d per %v", len(at), 2*limit+1, limit, period)
		}
		return nil
	})
	slices.SortFunc(at, time.Time.Compare)
	for i := range at {
		n := 0
		for j := i; j < len(at) && at[j].Sub(at[i]) < period; j++ {
			n++
		}
		if n > limit {
			t.Fatalf("%d claims within %v from %v under RateLimit %d per %v (claim times %v)", n, period, at[i], limit, period, at)
		}
	}
}

// testClaimHold: a snooze with a Hold stops claims from the queue until
// the hold ends, shows the end in QueueStats, is never shortened by a
// shorter one, and then lets claims go on.
func testClaimHold(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"), job(q, "b"), job(q, "c"))
	ja := claimOne(t, s, q, "a", long)
	const hold = 300 * time.Millisecond
	before := time.Now()
	snooze := outcome(ja, store.OutcomeSnooze)
	snooze.Hold = hold
	finishOK(t, s, snooze)
	res := claimNone(t, s, q, "a handler held the queue")
	if res.RetryIn <= 0 || res.RetryIn > hold+time.Millisecond { // the store's clock rounds up to the ms
		t.Fatalf("Claim from a held queue: RetryIn %v, want in (0, %v]", res.RetryIn, hold+time.Millisecond)
	}
	until := stats(t, a, q).HeldUntil
	if until.Before(before.Add(hold-50*time.Millisecond)) || until.After(time.Now().Add(hold+50*time.Millisecond)) {
		t.Fatalf("QueueStats.HeldUntil = %v, want about %v after the snooze at %v", until, hold, before)
	}
	requireState(t, a, q, "a", store.StatePending)
	// Another job's shorter hold leaves the longer one.
	setQueueConfig(t, a, q, store.QueueConfig{Paused: true})
	setQueueConfig(t, a, q, store.QueueConfig{})
	if got := stats(t, a, q).HeldUntil; !got.Equal(until) {
		t.Fatalf("QueueStats.HeldUntil = %v after SetQueueConfig, want %v: a config change does not end a hold", got, until)
	}
	testutil.Eventually(t, waitFor, func() error {
		if got := claim(t, s, q, 1, long).Jobs; len(got) == 1 {
			short := outcome(got[0], store.OutcomeSnooze)
			short.Hold = time.Millisecond
			finishOK(t, s, short)
			return nil
		}
		return fmt.Errorf("no claim after the hold of %v", hold)
	})
	if !time.Now().After(until.Add(-10 * time.Millisecond)) {
		t.Fatalf("a job was claimed at %v, before the hold ended at %v", time.Now(), until)
	}
	testutil.Eventually(t, waitFor, func() error {
		if len(claim(t, s, q, 1, long).Jobs) == 1 {
			return nil
		}
		return fmt.Errorf("no claim after a hold of 1ms")
	})
}
