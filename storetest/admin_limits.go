package storetest

import (
	"fmt"
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
	if res.RetryIn <= 0 || res.RetryIn > long {
		t.Fatalf("Claim held back by RateLimit 3 per hour: RetryIn %v, want in (0, 1h]", res.RetryIn)
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
			if res.RetryIn <= 0 || res.RetryIn > period+10*time.Millisecond {
				t.Fatalf("Claim held back by RateLimit 2 per %v: RetryIn %v, want in (0, %v]", period, res.RetryIn, period)
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
