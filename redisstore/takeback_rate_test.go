package redisstore_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// The jobs of a lost claim on a rate-limited queue go back to the head of
// the queue, their attempt not counted, and are counted again when claimed:
// the rate limit counted them when the lost claim ran, so run only once
// the link healed, past that count's window, they ran beside a full
// window of new claims (an outside trial: 10 starts within 0.2 s under a
// limit of 5 a second). No claim now gives more jobs than the limit, and
// every job still runs once, on its first attempt.
func TestLostClaimUnderRateLimitGoesBackToTheQueue(t *testing.T) {
	var logs logBuffer
	s, rdb := newStore(t, &redisstore.Config{Logger: logs.logger()})
	ctx := context.Background()
	cfg := store.QueueConfig{RateLimit: 2, RatePeriod: 200 * time.Millisecond}
	if err := s.SetQueueConfig(ctx, "q", cfg); err != nil {
		t.Fatal(err)
	}
	const n = 6
	for i := range n {
		mustEnqueue(t, s, job("q", "j"+strconv.Itoa(i)))
	}
	lose := &loseReplies{suffix: "_claim_L"} // the claim's variant for a queue with limits
	rdb.AddHook(lose)
	lose.armed.Store(1)
	if _, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: n, Lease: time.Minute}); err == nil || lose.lost.Load() != 1 {
		t.Fatalf("the claim whose reply is lost: %v, %d replies lost; want an error, 1", err, lose.lost.Load())
	}
	// The link stays down past the window that counted the lost claim:
	// the time the behaviour is about, not a synchronisation.
	time.Sleep(cfg.RatePeriod + cfg.QueueRate().Guard)
	ran := map[string]int{}
	for len(ran) < n {
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: n, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) > cfg.RateLimit {
			t.Fatalf("one claim gave %d jobs to start at once under a limit of %d (%v)", len(res.Jobs), cfg.RateLimit, idsOf(res.Jobs))
		}
		for _, j := range res.Jobs {
			ran[j.ID]++
			if j.Attempt != 1 {
				t.Errorf("job %s claimed on attempt %d, want 1 (the lost claim's attempt not counted)", j.ID, j.Attempt)
			}
		}
		ackAll(t, s, res.Jobs)
		if len(res.Jobs) == 0 && res.RetryIn <= 0 {
			t.Fatalf("no job and no RetryIn with %d of %d jobs run (%v)", len(ran), n, ran)
		}
		time.Sleep(res.RetryIn) // the rate limit's own wait, as a worker waits it
	}
	for id, k := range ran {
		if k != 1 {
			t.Errorf("job %s ran %d times, want once", id, k)
		}
	}
	if !strings.Contains(logs.String(), "handed the jobs of a claim whose reply was lost back") {
		t.Errorf("no line says the lost claim's jobs went back to the queue:\n%s", logs.String())
	}
}
