package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func claimCases() []testCase {
	return []testCase{
		{name: "FIFO", fn: testClaimFIFO},
		{name: "MaxRespected", fn: testClaimMax},
		{name: "ClaimedRecord", fn: testClaimRecord},
		{name: "RunAtKept", fn: testClaimRunAtKept},
		{name: "AttemptCountedAtClaim", fn: testClaimAttempt},
		{name: "FreshTokenEachClaim", fn: testClaimTokens},
		{name: "NotBeforeDue", fn: testClaimNotBeforeDue},
		{name: "Paused", fn: testClaimPaused},
		{name: "MaxRunning", fn: testClaimMaxRunning},
		{name: "RateLimit", fn: testClaimRateLimit},
		{name: "RateLimitSeveralClaims", fn: testClaimRateLimitSeveralClaims},
		{name: "RateLimitNextPeriod", fn: testClaimRateLimitNextPeriod},
		{name: "ConcurrentClaimers", fn: testClaimConcurrent},
		{name: "EmptyQueue", fn: testClaimEmpty},
		{name: "InvalidRequest", sub: invalidClaimCases()},
	}
}

func testClaimFIFO(t *testing.T, s store.Store) {
	q := newQueue(t)
	for _, id := range []string{"c", "a", "b"} {
		add(t, s, job(q, id))
	}
	add(t, s, job(q, "z"), job(q, "y"), job(q, "x"))
	var got []string
	for range 2 {
		for _, j := range claim(t, s, q, 2, long).Jobs {
			got = append(got, j.ID)
		}
	}
	for _, j := range claim(t, s, q, 10, long).Jobs {
		got = append(got, j.ID)
	}
	want := []string{"c", "a", "b", "z", "y", "x"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("claimed %v, want %v (enqueue order, first in first out)", got, want)
	}
}

func testClaimMax(t *testing.T, s store.Store) {
	q := newQueue(t)
	for _, id := range seqIDs("j", 5) {
		add(t, s, job(q, id))
	}
	for i, want := range []int{2, 2, 1, 0} {
		if got := len(claim(t, s, q, 2, long).Jobs); got != want {
			t.Fatalf("Claim %d with Max 2 from 5 ready jobs returned %d jobs, want %d", i+1, got, want)
		}
	}
	requireCounts(t, s, q, store.StateCounts{Unack: 5})
}

func testClaimRecord(t *testing.T, s store.Store) {
	q := newQueue(t)
	j := job(q, "a")
	j.Kind, j.Meta, j.MaxRetries = "email", map[string]string{"k": "v"}, 4
	add(t, s, j)
	const lease = 90 * time.Second
	before := time.Now()
	c := claimOne(t, s, q, "a", lease)
	after := time.Now()
	if c.State != store.StateUnack || c.Queue != q || c.Kind != "email" || string(c.Args) != "args of a" ||
		c.Meta["k"] != "v" || c.MaxRetries != 4 || c.Attempt != 1 {
		t.Fatalf("claimed record: %+v\nwant State unack, Queue %q, Kind email, Args %q, Meta k=v, MaxRetries 4, Attempt 1",
			c, q, "args of a")
	}
	requireNow(t, "AttemptedAt of a claimed job", c.AttemptedAt, before, after)
	requireNear(t, "Deadline of a claim with Lease 90s, relative to its AttemptedAt", c.Deadline, c.AttemptedAt.Add(lease), time.Second)
	requireNow(t, "Deadline minus Lease of a claimed job", c.Deadline.Add(-lease), before, after)
	g := requireState(t, s, q, "a", store.StateUnack)
	if g.Token != c.Token || !g.Deadline.Equal(c.Deadline) || g.Attempt != 1 || !g.AttemptedAt.Equal(c.AttemptedAt) {
		t.Fatalf("GetJob of a claimed job: Token %d, Deadline %v, Attempt %d, AttemptedAt %v; want the claim's %d, %v, 1, %v",
			g.Token, g.Deadline, g.Attempt, g.AttemptedAt, c.Token, c.Deadline, c.AttemptedAt)
	}
	claimNone(t, s, q, "the only job is claimed under a lease")
}

func testClaimAttempt(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", long)
	if c.Attempt != 1 {
		t.Fatalf("first claim: Attempt %d, want 1", c.Attempt)
	}
	finishOK(t, s, failed(c, store.OutcomeRetry, "boom", 0))
	if got := getJob(t, s, q, "a").Attempt; got != 1 {
		t.Fatalf("after a failed first attempt: Attempt %d, want 1", got)
	}
	c = claimWhenDue(t, s, q, long)
	if c.ID != "a" || c.Attempt != 2 {
		t.Fatalf("claim after a retry: job %q Attempt %d, want a with Attempt 2", c.ID, c.Attempt)
	}
	if got := getJob(t, s, q, "a").Attempt; got != 2 {
		t.Fatalf("GetJob after the second claim: Attempt %d, want 2", got)
	}
}

func testClaimTokens(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	seen := map[uint64]int{}
	for i := 1; i <= 3; i++ {
		c := claimOne(t, s, q, "a", long)
		if prev, ok := seen[c.Token]; ok {
			t.Fatalf("claim %d of job a got token %d, the same as claim %d; want a fresh token per claim", i, c.Token, prev)
		}
		seen[c.Token] = i
		finishOK(t, s, outcome(c, store.OutcomeRelease))
	}
}

func testClaimNotBeforeDue(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, delayed(q, "soon", 150*time.Millisecond), delayed(q, "later", long))
	due := requireState(t, s, q, "soon", store.StatePending).RunAt
	// Right after enqueue the job is normally not due yet; if the machine
	// stalled long enough for it to be due, the claim must still not be
	// early, which is what is checked below in any case.
	res := claim(t, s, q, 10, long)
	for _, j := range res.Jobs {
		if j.ID != "soon" || j.AttemptedAt.Truncate(time.Millisecond).Before(due.Truncate(time.Millisecond)) {
			t.Fatalf("Claim right after enqueue returned %q at %v, want nothing before %v", j.ID, j.AttemptedAt, due)
		}
	}
	if len(res.Jobs) == 0 {
		c := claimWhenDue(t, s, q, long)
		if c.ID != "soon" {
			t.Fatalf("claimed %q, want soon (later is due in an hour)", c.ID)
		}
		res.Jobs = append(res.Jobs, c)
	}
	if at := res.Jobs[0].AttemptedAt; at.Truncate(time.Millisecond).Before(due.Truncate(time.Millisecond)) {
		t.Fatalf("job due at %v was claimed at %v, %v early by the store's clock", due, at, due.Sub(at))
	}
	requireState(t, s, q, "later", store.StatePending)
}

func testClaimConcurrent(t *testing.T, s store.Store) {
	q := newQueue(t)
	const n, workers = 300, 8
	var jobs []*store.NewJob
	for _, id := range seqIDs("j", n) {
		jobs = append(jobs, job(q, id))
	}
	add(t, s, jobs...)
	var (
		mu    sync.Mutex
		owner = map[string]int{}
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for w := range workers {
		wg.Go(func() {
			<-start
			for {
				res, err := s.Claim(t.Context(), store.ClaimRequest{Queue: q, Max: 7, Lease: long, WorkerID: fmt.Sprint("w", w)})
				if err != nil {
					t.Errorf("worker %d: Claim: unexpected error: %v", w, err)
					return
				}
				if len(res.Jobs) == 0 {
					return
				}
				mu.Lock()
				for _, j := range res.Jobs {
					if prev, ok := owner[j.ID]; ok {
						t.Errorf("job %q claimed by worker %d and again by worker %d, want each job claimed once", j.ID, prev, w)
					}
					owner[j.ID] = w
				}
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if len(owner) != n {
		t.Fatalf("%d concurrent claimers got %d distinct jobs, want all %d", workers, len(owner), n)
	}
	requireCounts(t, s, q, store.StateCounts{Unack: n})
}

func testClaimEmpty(t *testing.T, s store.Store) {
	q, other := newQueue(t), newQueue(t)
	add(t, s, job(other, "elsewhere"))
	claimNone(t, s, q, "the queue was never used")
	add(t, s, delayed(q, "later", long))
	claimNone(t, s, q, "the queue's only job is due in an hour")
	requireState(t, s, other, "elsewhere", store.StateReady)
}

func invalidClaimCases() []testCase {
	bad := []struct {
		name string
		req  func(q string) store.ClaimRequest
		err  error
	}{
		{"MaxZero", func(q string) store.ClaimRequest { return store.ClaimRequest{Queue: q, Max: 0, Lease: time.Minute} }, nil},
		{"MaxNegative", func(q string) store.ClaimRequest { return store.ClaimRequest{Queue: q, Max: -1, Lease: time.Minute} }, nil},
		{"LeaseZero", func(q string) store.ClaimRequest { return store.ClaimRequest{Queue: q, Max: 1} }, nil},
		{"LeaseUnderOneMillisecond", func(q string) store.ClaimRequest {
			return store.ClaimRequest{Queue: q, Max: 1, Lease: 500 * time.Microsecond}
		}, nil},
		{"BadQueue", func(string) store.ClaimRequest {
			return store.ClaimRequest{Queue: "bad{queue}", Max: 1, Lease: time.Minute}
		}, store.ErrInvalidQueue},
		{"EmptyQueueName", func(string) store.ClaimRequest { return store.ClaimRequest{Max: 1, Lease: time.Minute} }, store.ErrInvalidQueue},
	}
	var cases []testCase
	for _, b := range bad {
		cases = append(cases, testCase{name: b.name, fn: func(t *testing.T, s store.Store) {
			q := newQueue(t)
			add(t, s, job(q, "a"))
			req := b.req(q)
			res, err := s.Claim(t.Context(), req)
			if err == nil || b.err != nil && !errors.Is(err, b.err) {
				want := "an error"
				if b.err != nil {
					want = b.err.Error()
				}
				t.Fatalf("Claim(%+v): got %d jobs, error %v; want %s", req, len(res.Jobs), err, want)
			}
			requireState(t, s, q, "a", store.StateReady)
		}})
	}
	return cases
}

// A claimed job keeps when it fell due: its enqueue time when it went
// straight to ready, its due time when it was delayed, and an explicit RunAt
// in the past (a periodic tick) as given.
func testClaimRunAtKept(t *testing.T, s store.Store) {
	q := newQueue(t)
	before := time.Now()
	add(t, s, job(q, "now"))
	after := time.Now()
	c := claimOne(t, s, q, "now", long)
	requireNow(t, "RunAt of a claimed job that was ready at once", c.RunAt, before, after)

	tick := time.Now().Add(-time.Minute).Truncate(time.Second)
	past := job(q, "tick")
	past.RunAt, past.Schedule, past.Tick = tick, "every-minute", tick
	add(t, s, past)
	if c := claimOne(t, s, q, "tick", long); !c.RunAt.Equal(tick) {
		t.Errorf("RunAt of a claimed periodic job enqueued at its tick %v: got %v, want the tick", tick, c.RunAt)
	}

	add(t, s, delayed(q, "later", 50*time.Millisecond))
	due := getJob(t, s, q, "later").RunAt
	c = claimWhenDue(t, s, q, long)
	if c.ID != "later" || !c.RunAt.Equal(due) {
		t.Errorf("claimed %q with RunAt %v; want job later with its due time %v", c.ID, c.RunAt, due)
	}
}
