package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func maintainCases() []engineCase {
	return []engineCase{
		{name: "PromotesDuePending", fn: testMaintainPromotePending},
		{name: "PromotesDueRetry", fn: testMaintainPromoteRetry},
		{name: "ReclaimToRetry", fn: testMaintainReclaimRetry},
		{name: "ReclaimToGarbage", fn: testMaintainReclaimGarbage},
		{name: "ReclaimKeepsItsPlace", fn: testMaintainReclaimPlace},
		{name: "DyingWorkerReachesGarbage", fn: testMaintainDyingWorker},
		{name: "CollectsDone", fn: testMaintainCollectDone},
		{name: "GarbageMaxAge", fn: testMaintainGarbageAge},
		{name: "GarbageMaxCount", fn: testMaintainGarbageCount},
		{name: "BatchSetsMore", fn: testMaintainBatch},
		{name: "NextIn", fn: testMaintainNextIn},
		{name: "Idle", fn: testMaintainIdle},
		{name: "InvalidQueue", fn: testMaintainInvalidQueue},
	}
}

func testMaintainPromotePending(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, delayed(q, "soon", 50*time.Millisecond), delayed(q, "later", long))
	sum := maintainUntil(t, s, q, store.MaintainOpts{}, promoted(1))
	if sum.Promoted != 1 {
		t.Fatalf("Maintain reported %d promotions in all, want 1 (soon)", sum.Promoted)
	}
	claimOne(t, s, q, "soon", long)
	claimNone(t, s, q, "later is due in an hour")
	requireHeld(t, s, q, "later", "a job due in an hour")
}

// promoted returns a condition for maintainUntil: Maintain promoted at
// least n jobs.
func promoted(n int) func(sum store.MaintainResult) error {
	return func(sum store.MaintainResult) error {
		if sum.Promoted < n {
			return fmt.Errorf("Maintain promoted %d jobs, want %d to fall due", sum.Promoted, n)
		}
		return nil
	}
}

// collected returns a condition for maintainUntil: Maintain collected at
// least n jobs.
func collected(n int) func(sum store.MaintainResult) error {
	return func(sum store.MaintainResult) error {
		if sum.Collected < n {
			return fmt.Errorf("Maintain collected %d jobs, want %d", sum.Collected, n)
		}
		return nil
	}
}

func testMaintainPromoteRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "soon", 1), withRetries(q, "later", 1))
	cs := claim(t, s, q, 2, long).Jobs
	if len(cs) != 2 {
		t.Fatalf("Claim Max 2: got %d jobs, want 2", len(cs))
	}
	finishOK(t, s, failed(cs[0], store.OutcomeRetry, "boom", 50*time.Millisecond), failed(cs[1], store.OutcomeRetry, "boom", long))
	sum := maintainUntil(t, s, q, store.MaintainOpts{}, promoted(1))
	if sum.Promoted != 1 {
		t.Fatalf("Maintain reported %d promotions in all, want 1 (soon)", sum.Promoted)
	}
	if c := claimOne(t, s, q, "soon", long); c.Attempt != 2 {
		t.Fatalf("promoted retry claimed with Attempt %d, want 2", c.Attempt)
	}
	claimNone(t, s, q, "later retries in an hour")
	requireHeld(t, s, q, "later", "a retry due in an hour")
}

func testMaintainReclaimRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 1))
	before := time.Now()
	claimOne(t, s, q, "a", 50*time.Millisecond)
	if sum := awaitReclaim(t, s, q); sum.Reclaimed != 1 {
		t.Fatalf("Maintain reported %d reclaims in all, want 1", sum.Reclaimed)
	}
	after := time.Now()
	c := claimWhenDue(t, s, q, long)
	if c.Attempt != 2 {
		t.Fatalf("reclaimed job claimed again with Attempt %d, want 2", c.Attempt)
	}
	if len(c.Errors) != 1 || c.Errors[0].Attempt != 1 || c.Errors[0].Error != store.ErrLeaseExpired.Error() {
		t.Fatalf("job reclaimed after its lease expired, claimed again: Errors %+v, want one error for attempt 1: %q", c.Errors, store.ErrLeaseExpired)
	}
	requireNow(t, "At of the error recorded by a reclaim", c.Errors[0].At, before, after)
}

// testMaintainReclaimPlace: a job whose lease expired is ready again at
// once, at the head of its list, before the jobs that were ready behind it.
func testMaintainReclaimPlace(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 1), job(q, "b"), job(q, "c"))
	claimOne(t, s, q, "a", 50*time.Millisecond)
	awaitReclaim(t, s, q)
	if got := ids(claim(t, s, q, 3, long).Jobs); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("claim after a's lease expired took %v, want [a b c]: a redelivered first, ready with no further Maintain", got)
	}
}

func testMaintainReclaimGarbage(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 0))
	claimOne(t, s, q, "a", 50*time.Millisecond)
	if sum := awaitReclaim(t, s, q); sum.Reclaimed != 1 {
		t.Fatalf("Maintain reported %d reclaims in all, want 1", sum.Reclaimed)
	}
	requireGarbage(t, s, q, "a", "a job with no retries left whose lease expired")
}

// requireGarbage fails unless job id, the only job of q, is in garbage: it
// is never claimable, Maintain sees nothing scheduled without garbage
// limits and collects it under a GarbageMaxAge of a millisecond. The job is
// gone afterwards.
func requireGarbage(t *testing.T, s store.Store, q, id, what string) {
	t.Helper()
	claimNone(t, s, q, what+" is in garbage")
	requireIdle(t, s, q, what+" is in garbage, kept without limits")
	claimNone(t, s, q, what+" is in garbage, even after Maintain")
	requireHeld(t, s, q, id, what+" is kept in garbage")
	sum := maintainUntil(t, s, q, store.MaintainOpts{GarbageMaxAge: time.Millisecond}, collected(1))
	if sum.Collected != 1 {
		t.Fatalf("Maintain with GarbageMaxAge 1ms collected %d jobs, want 1 (%s)", sum.Collected, what)
	}
	requireFree(t, s, q, id, "garbage collected")
}

// dyingRetries is the MaxRetries of the job dieEveryAttempt runs.
const dyingRetries = 2

// dieEveryAttempt enqueues job a with MaxRetries dyingRetries into q and
// claims it with a 30ms lease whenever it can, as a worker that dies on
// every attempt would, calling Maintain until the last attempt's lease was
// reclaimed. It returns the claims.
func dieEveryAttempt(t *testing.T, s store.Store, q string) []*store.JobRecord {
	t.Helper()
	add(t, s, withRetries(q, "a", dyingRetries))
	var claims []*store.JobRecord
	reclaimed := 0
	testutil.Eventually(t, waitFor, func() error {
		reclaimed += maintain(t, s, q, store.MaintainOpts{}).Reclaimed
		if reclaimed >= dyingRetries+1 {
			return nil
		}
		claims = append(claims, claim(t, s, q, 1, 30*time.Millisecond).Jobs...) // and the worker dies
		return fmt.Errorf("job whose worker dies on every attempt: %d leases reclaimed after %d claims, want %d", reclaimed, len(claims), dyingRetries+1)
	})
	var attempts []int
	for _, c := range claims {
		attempts = append(attempts, c.Attempt)
	}
	if fmt.Sprint(attempts) != "[1 2 3]" {
		t.Fatalf("job with MaxRetries %d whose worker always dies was claimed with attempts %v, want [1 2 3]", dyingRetries, attempts)
	}
	return claims
}

func testMaintainDyingWorker(t *testing.T, s store.Store) {
	q := newQueue(t)
	claims := dieEveryAttempt(t, s, q)
	for i, c := range claims {
		if len(c.Errors) != i {
			t.Fatalf("claim %d of a job whose worker dies on every attempt: %d errors, want %d (one per expired lease)", i+1, len(c.Errors), i)
		}
	}
	requireGarbage(t, s, q, "a", "a job whose worker died on every attempt")
}

func testMaintainCollectDone(t *testing.T, s store.Store) {
	q := newQueue(t)
	const keep = 100 * time.Millisecond
	add(t, s, job(q, "short"), job(q, "long"))
	cs := claim(t, s, q, 2, long).Jobs
	if len(cs) != 2 {
		t.Fatalf("Claim Max 2: got %d jobs, want 2", len(cs))
	}
	short, kept := outcome(cs[0], store.OutcomeAck), outcome(cs[1], store.OutcomeAck)
	short.Retention, kept.Retention = keep, long
	start := time.Now()
	finishOK(t, s, short, kept)
	sum := maintainUntil(t, s, q, store.MaintainOpts{}, collected(1))
	if held := time.Since(start); held < keep-2*msSlack {
		t.Fatalf("done job with Retention %v was collected after at most %v", keep, held)
	}
	if sum.Collected != 1 {
		t.Fatalf("Maintain reported %d collected in all, want 1", sum.Collected)
	}
	requireHeld(t, s, q, "long", "an ack with Retention 1h")
	requireFree(t, s, q, "short", "its retention of 100ms ran out")
}

func testMaintainGarbageAge(t *testing.T, s store.Store) {
	q := newQueue(t)
	const maxAge = 100 * time.Millisecond
	add(t, s, job(q, "a"))
	start := time.Now()
	finishOK(t, s, failed(claimOne(t, s, q, "a", long), store.OutcomeGarbage, "dead", 0))
	if r := maintain(t, s, q, store.MaintainOpts{GarbageMaxAge: long}); r.Collected != 0 {
		t.Fatalf("Maintain with GarbageMaxAge 1h collected %d jobs, want 0 (the garbage is new)", r.Collected)
	}
	if r := maintain(t, s, q, store.MaintainOpts{}); r.Collected != 0 {
		t.Fatalf("Maintain without garbage limits collected %d jobs, want 0", r.Collected)
	}
	requireHeld(t, s, q, "a", "garbage not collected yet")
	sum := maintainUntil(t, s, q, store.MaintainOpts{GarbageMaxAge: maxAge}, collected(1))
	if held := time.Since(start); held < maxAge-2*msSlack {
		t.Fatalf("garbage with GarbageMaxAge %v was collected after at most %v", maxAge, held)
	}
	if sum.Collected != 1 {
		t.Fatalf("Maintain reported %d collected in all, want 1", sum.Collected)
	}
	requireFree(t, s, q, "a", "garbage collected")
}

func testMaintainGarbageCount(t *testing.T, s store.Store) {
	q := newQueue(t)
	names := seqIDs("g", 5)
	for _, id := range names {
		add(t, s, job(q, id))
		finishOK(t, s, failed(claimOne(t, s, q, id, long), store.OutcomeGarbage, "dead", 0))
	}
	if r := maintain(t, s, q, store.MaintainOpts{GarbageMaxCount: 5}); r.Collected != 0 {
		t.Fatalf("Maintain with GarbageMaxCount 5 and 5 garbage jobs collected %d, want 0", r.Collected)
	}
	if r := maintain(t, s, q, store.MaintainOpts{GarbageMaxCount: 2}); r.Collected != 3 {
		t.Fatalf("Maintain with GarbageMaxCount 2 and 5 garbage jobs collected %d, want 3", r.Collected)
	}
	for _, id := range names[3:] {
		requireHeld(t, s, q, id, "Maintain with GarbageMaxCount 2 (newest kept)")
	}
	for _, id := range names[:3] {
		requireFree(t, s, q, id, "Maintain with GarbageMaxCount 2 (oldest first)")
	}
}

func testMaintainBatch(t *testing.T, s store.Store) {
	q := newQueue(t)
	// In one call, due well after it: jobs added one by one, or due too
	// soon, could reach a slow store (a Cluster under -race) after their
	// due time and go straight to ready, unpromoted.
	runAt := time.Now().Add(500 * time.Millisecond)
	var jobs []*store.NewJob
	for _, id := range seqIDs("j", 5) {
		j := job(q, id)
		j.RunAt = runAt
		jobs = append(jobs, j)
	}
	add(t, s, jobs...)
	opts := store.MaintainOpts{Batch: 2}
	var first store.MaintainResult
	testutil.Eventually(t, waitFor, func() error {
		first = maintain(t, s, q, opts)
		if first.Promoted == 0 {
			return fmt.Errorf("Maintain promoted nothing, want the 5 jobs due at %v to fall due", runAt)
		}
		return nil
	})
	second := maintain(t, s, q, opts)
	third := maintain(t, s, q, opts)
	got := fmt.Sprintf("%d/%v %d/%v %d/%v", first.Promoted, first.More, second.Promoted, second.More, third.Promoted, third.More)
	if want := "2/true 2/true 1/false"; got != want {
		t.Fatalf("three Maintain calls with Batch 2 over 5 due jobs: Promoted/More = %s, want %s", got, want)
	}
	if n := len(claim(t, s, q, 10, long).Jobs); n != 5 {
		t.Fatalf("Claim after 5 jobs were promoted: %d jobs, want 5", n)
	}
}

func testMaintainNextIn(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "retry", 3), job(q, "running"), job(q, "dead"), job(q, "kept"), delayed(q, "pending", long))
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, "a job pending for 1h")
	finishOK(t, s, failed(claimOne(t, s, q, "retry", long), store.OutcomeRetry, "boom", 40*time.Minute))
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), 40*time.Minute, "a retry due in 40m")
	claimOne(t, s, q, "running", 20*time.Minute)
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), 20*time.Minute, "a lease expiring in 20m")
	finishOK(t, s, failed(claimOne(t, s, q, "dead", long), store.OutcomeGarbage, "dead", 0))
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{GarbageMaxAge: 15 * time.Minute}), 15*time.Minute, "garbage collected after 15m")
	kept := outcome(claimOne(t, s, q, "kept", long), store.OutcomeAck)
	kept.Retention = 10 * time.Minute
	finishOK(t, s, kept)
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), 10*time.Minute, "a done job kept for 10m")
}

func testMaintainIdle(t *testing.T, s store.Store) {
	q := newQueue(t)
	if r := maintain(t, s, q, store.MaintainOpts{}); !r.Idle || r.Promoted+r.Reclaimed+r.Collected != 0 || r.More {
		t.Fatalf("Maintain of an empty queue: %+v, want Idle and nothing done", r)
	}
	add(t, s, delayed(q, "later", long))
	if r := maintain(t, s, q, store.MaintainOpts{}); r.Idle {
		t.Fatalf("Maintain of a queue with a pending job: %+v, want not Idle", r)
	}
}

func testMaintainInvalidQueue(t *testing.T, s store.Store) {
	_, err := s.Maintain(t.Context(), "bad:queue", store.MaintainOpts{})
	requireErrIs(t, `Maintain("bad:queue")`, err, store.ErrInvalidQueue)
}
