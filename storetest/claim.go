package storetest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func claimCases() []engineCase {
	return []engineCase{
		{name: "FIFO", fn: testClaimFIFO},
		{name: "MaxRespected", fn: testClaimMax},
		{name: "ClaimedRecord", fn: testClaimRecord},
		{name: "OwnRetention", fn: testClaimRetention},
		{name: "RunAtKept", fn: testClaimRunAtKept},
		{name: "AttemptCountedAtClaim", fn: testClaimAttempt},
		{name: "FreshTokenEachClaim", fn: testClaimTokens},
		{name: "SharedTokenOfOneClaim", fn: testClaimSharedToken},
		{name: "NotBeforeDue", fn: testClaimNotBeforeDue},
		{name: "ConcurrentClaimers", fn: testClaimConcurrent},
		{name: "TokensFollowClaimOrder", fn: testClaimTokenOrder},
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
	names := seqIDs("j", 5)
	for _, id := range names {
		add(t, s, job(q, id))
	}
	var got []string
	for i, want := range []int{2, 2, 1, 0} {
		jobs := claim(t, s, q, 2, long).Jobs
		if len(jobs) != want {
			t.Fatalf("Claim %d with Max 2 from 5 ready jobs returned %d jobs, want %d", i+1, len(jobs), want)
		}
		got = append(got, ids(jobs)...)
	}
	if fmt.Sprint(got) != fmt.Sprint(names) {
		t.Fatalf("claims with Max 2 from 5 ready jobs took %v, want each job once, in order %v", got, names)
	}
}

// claimLease is the lease of the claims ClaimedRecord checks.
const claimLease = 90 * time.Second

// recordJob enqueues job a into q with a field of every kind set, and
// claims it with claimLease; it returns the job and the claim, and the
// test's clock before the enqueue and after the claim.
func recordJob(t *testing.T, s store.Store, q string) (j *store.NewJob, c *store.JobRecord, before, after time.Time) {
	t.Helper()
	j = job(q, "a")
	j.Kind, j.Meta, j.MaxRetries = "email", map[string]string{"k": "v"}, 4
	j.Timeout, j.Retention = 90*time.Second, 2*time.Hour
	before = time.Now()
	add(t, s, j)
	c = claimOne(t, s, q, "a", claimLease)
	return j, c, before, time.Now()
}

func testClaimRecord(t *testing.T, s store.Store) {
	q := newQueue(t)
	j, c, before, after := recordJob(t, s, q)
	if c.State != store.StateUnack || c.Queue != q || c.Kind != "email" || string(c.Args) != "args of a" ||
		c.Meta["k"] != "v" || len(c.Meta) != 1 || c.MaxRetries != 4 || c.Attempt != 1 || c.Timeout != j.Timeout ||
		c.Retention != j.Retention || c.Token == 0 || len(c.Errors) != 0 || c.Cancelled || len(c.Result) != 0 {
		t.Fatalf("claimed record: %+v\nwant State unack, Queue %q, Kind email, Args %q, Meta k=v, MaxRetries 4, Attempt 1, "+
			"Timeout %v, Retention %v, a Token, no errors, not cancelled, no result", c, q, "args of a", j.Timeout, j.Retention)
	}
	requireNow(t, "EnqueuedAt of a claimed job", c.EnqueuedAt, before, after)
	requireNow(t, "RunAt of a claimed job that was due at once", c.RunAt, before, after)
	requireNow(t, "AttemptedAt of a claimed job", c.AttemptedAt, before, after)
	if c.RunAt.Before(c.EnqueuedAt) || c.AttemptedAt.Before(c.RunAt) {
		t.Fatalf("claimed record: EnqueuedAt %v, RunAt %v, AttemptedAt %v; want them in this order", c.EnqueuedAt, c.RunAt, c.AttemptedAt)
	}
	requireNear(t, "Deadline of a claim with Lease 90s, relative to its AttemptedAt", c.Deadline, c.AttemptedAt.Add(claimLease), time.Second)
	requireNow(t, "Deadline minus Lease of a claimed job", c.Deadline.Add(-claimLease), before, after)
	if !c.FinishedAt.IsZero() {
		t.Fatalf("claimed record: FinishedAt %v, want zero for a job not finished", c.FinishedAt)
	}
	claimNone(t, s, q, "the only job is claimed under a lease")
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), claimLease, "the only job claimed with a 90s lease")
}

// testClaimRetention: Claim returns the job's own Retention, which the
// worker sends back with its ack (the store does not look it up then).
func testClaimRetention(t *testing.T, s store.Store) {
	q := newQueue(t)
	own := job(q, "own")
	own.Retention = 3*time.Hour + 1500*time.Millisecond
	add(t, s, own, job(q, "none"))
	if c := claimOne(t, s, q, "own", long); c.Retention != own.Retention {
		t.Fatalf("claimed job's Retention = %v, want the %v it was enqueued with", c.Retention, own.Retention)
	}
	if c := claimOne(t, s, q, "none", long); c.Retention != 0 {
		t.Fatalf("claimed job enqueued without a Retention: Retention %v, want 0", c.Retention)
	}
}

func testClaimAttempt(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", long)
	if c.Attempt != 1 {
		t.Fatalf("first claim: Attempt %d, want 1", c.Attempt)
	}
	finishOK(t, s, failed(c, store.OutcomeRetry, "boom", 0))
	c = claimWhenDue(t, s, q, long)
	if c.ID != "a" || c.Attempt != 2 || len(c.Errors) != 1 || c.Errors[0].Attempt != 1 {
		t.Fatalf("claim after a retry: job %q Attempt %d, Errors %+v; want a with Attempt 2 and the error of attempt 1", c.ID, c.Attempt, c.Errors)
	}
	finishOK(t, s, outcome(c, store.OutcomeRelease))
	if c = claimOne(t, s, q, "a", long); c.Attempt != 2 {
		t.Fatalf("claim after the second attempt was released: Attempt %d, want 2 (a release is not counted)", c.Attempt)
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
	const delay = 150 * time.Millisecond
	add(t, s, delayed(q, "soon", delay), delayed(q, "later", long))
	// Right after enqueue the job is normally not due yet; if the machine
	// stalled long enough for it to be due, the claim must still not be
	// early, which is what is checked below in any case.
	res := claim(t, s, q, 10, long)
	if len(res.Jobs) == 0 {
		res.Jobs = append(res.Jobs, claimWhenDue(t, s, q, long))
	}
	c := res.Jobs[0]
	if len(res.Jobs) != 1 || c.ID != "soon" {
		t.Fatalf("claimed %v, want soon alone (later is due in an hour)", ids(res.Jobs))
	}
	// The claimed record says when the job fell due: Delay after its
	// enqueue, on the store's clock.
	due := c.RunAt
	requireNear(t, "RunAt of a job enqueued with Delay 150ms, relative to its EnqueuedAt", due, c.EnqueuedAt.Add(delay), msSlack)
	if at := c.AttemptedAt; at.Truncate(time.Millisecond).Before(due.Truncate(time.Millisecond)) {
		t.Fatalf("job due at %v was claimed at %v, %v early by the store's clock", due, at, due.Sub(at))
	}
	requireHeld(t, s, q, "later", "enqueued with Delay 1h")
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
				res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: q, Max: 7, Lease: long, WorkerID: fmt.Sprint("w", w)})
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
	claimNone(t, s, q, "every job was claimed")
}

// testClaimTokenOrder: claims racing on one queue took their jobs in the
// order of their tokens (a worker dispatches concurrent claims' jobs in
// that order): sorted by token, the claims hold the queue's jobs first in
// first out.
func testClaimTokenOrder(t *testing.T, s store.Store) {
	q := newQueue(t)
	const n, claimers = 300, 4
	all := seqIDs("j", n)
	var jobs []*store.NewJob
	for _, id := range all {
		jobs = append(jobs, job(q, id))
	}
	add(t, s, jobs...)
	var (
		mu   sync.Mutex
		took [][]*store.JobRecord
		wg   sync.WaitGroup
	)
	for range claimers {
		wg.Go(func() {
			for {
				res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: q, Max: 5, Lease: long, WorkerID: "storetest"})
				if err != nil {
					t.Errorf("Claim: unexpected error: %v", err)
					return
				}
				if len(res.Jobs) == 0 {
					return
				}
				mu.Lock()
				took = append(took, res.Jobs)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.SortFunc(took, func(a, b []*store.JobRecord) int { return cmp.Compare(a[0].Token, b[0].Token) })
	var got []string
	for _, c := range took {
		for i, j := range c {
			if i > 0 && j.Token < c[i-1].Token {
				t.Fatalf("a claim's tokens go down: %d after %d", j.Token, c[i-1].Token)
			}
			got = append(got, j.ID)
		}
	}
	if !slices.Equal(got, all) {
		t.Fatalf("claims sorted by token hold %d jobs %v..., want the queue's %d first in first out", len(got), got[:min(len(got), 10)], n)
	}
}

func testClaimEmpty(t *testing.T, s store.Store) {
	q, other := newQueue(t), newQueue(t)
	add(t, s, job(other, "elsewhere"))
	claimNone(t, s, q, "the queue was never used")
	add(t, s, delayed(q, "later", long))
	claimNone(t, s, q, "the queue's only job is due in an hour")
	claimOne(t, s, other, "elsewhere", long)
}

func invalidClaimCases() []engineCase {
	bad := []struct {
		name string
		req  func(q string) store.ClaimOpts
		err  error
	}{
		{"MaxZero", func(q string) store.ClaimOpts { return store.ClaimOpts{Queue: q, Max: 0, Lease: time.Minute} }, store.ErrInvalidConfig},
		{"MaxNegative", func(q string) store.ClaimOpts { return store.ClaimOpts{Queue: q, Max: -1, Lease: time.Minute} }, store.ErrInvalidConfig},
		{"LeaseZero", func(q string) store.ClaimOpts { return store.ClaimOpts{Queue: q, Max: 1} }, store.ErrInvalidConfig},
		{"LeaseUnderOneMillisecond", func(q string) store.ClaimOpts {
			return store.ClaimOpts{Queue: q, Max: 1, Lease: 500 * time.Microsecond}
		}, store.ErrInvalidConfig},
		{"BadQueue", func(string) store.ClaimOpts {
			return store.ClaimOpts{Queue: "bad{queue}", Max: 1, Lease: time.Minute}
		}, store.ErrInvalidQueue},
		{"QueueWithSpace", func(string) store.ClaimOpts {
			return store.ClaimOpts{Queue: "a b", Max: 1, Lease: time.Minute}
		}, store.ErrInvalidQueue},
		{"EmptyQueueName", func(string) store.ClaimOpts { return store.ClaimOpts{Max: 1, Lease: time.Minute} }, store.ErrInvalidQueue},
	}
	var cases []engineCase
	for _, b := range bad {
		cases = append(cases, engineCase{name: b.name, fn: func(t *testing.T, s store.Store) {
			q := newQueue(t)
			add(t, s, job(q, "a"))
			req := b.req(q)
			res, err := s.Claim(t.Context(), req)
			if !errors.Is(err, b.err) {
				t.Fatalf("Claim(%+v): got %d jobs, error %v; want an error wrapping %v", req, len(res.Jobs), err, b.err)
			}
			if c := claimOne(t, s, q, "a", long); c.Attempt != 1 {
				t.Fatalf("job claimed after an invalid Claim: Attempt %d, want 1 (the invalid Claim took nothing)", c.Attempt)
			}
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

	const delay = 50 * time.Millisecond
	add(t, s, delayed(q, "later", delay))
	c = claimWhenDue(t, s, q, long)
	if c.ID != "later" || !within(c.RunAt, c.EnqueuedAt.Add(delay), msSlack) {
		t.Errorf("claimed %q with RunAt %v, EnqueuedAt %v; want job later with its due time, %v after its enqueue", c.ID, c.RunAt, c.EnqueuedAt, delay)
	}
}
