package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func maintainCases() []testCase {
	return []testCase{
		{name: "PromotesDuePending", fn: testMaintainPromotePending},
		{name: "PromotesDueRetry", fn: testMaintainPromoteRetry},
		{name: "ReclaimToRetry", fn: testMaintainReclaimRetry},
		{name: "ReclaimToGarbage", fn: testMaintainReclaimGarbage},
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

// maintainUntil calls Maintain on q until cond holds, adding up what the
// calls did.
func maintainUntil(t *testing.T, s store.Store, q string, opts store.MaintainOptions, cond func() error) store.MaintainResult {
	t.Helper()
	var sum store.MaintainResult
	testutil.Eventually(t, waitFor, func() error {
		r := maintain(t, s, q, opts)
		sum.Promoted += r.Promoted
		sum.Reclaimed += r.Reclaimed
		sum.Collected += r.Collected
		return cond()
	})
	return sum
}

// inState returns a condition that holds when job id is in state st.
func inState(t *testing.T, s store.Store, q, id string, st store.JobState) func() error {
	return func() error {
		if j := getJob(t, s, q, id); j.State != st {
			return fmt.Errorf("job %q is %s, want %s", id, j.State, st)
		}
		return nil
	}
}

// gone returns a condition that holds when job id no longer exists.
func gone(t *testing.T, s store.Store, q, id string) func() error {
	return func() error {
		j, err := adm(t, s).GetJob(t.Context(), q, id)
		if err == nil {
			return fmt.Errorf("job %q is still %s, want it collected", id, j.State)
		}
		requireErrIs(t, "GetJob of a collected job", err, store.ErrJobNotFound)
		return nil
	}
}

// awaitReclaim calls Maintain on q until job id, whose lease expires soon,
// is no longer unack, and returns it with the sum of what Maintain did. A
// reclaimed job with attempts left goes to retry; when the store retries it
// at once, the same Maintain call may already have promoted it to ready, so
// either state is accepted.
func awaitReclaim(t *testing.T, s store.Store, q, id string) (*store.JobRecord, store.MaintainResult) {
	t.Helper()
	var j *store.JobRecord
	sum := maintainUntil(t, s, q, store.MaintainOptions{}, func() error {
		if j = getJob(t, s, q, id); j.State == store.StateUnack {
			return fmt.Errorf("job %q with an expired lease is still unack, want Maintain to reclaim it", id)
		}
		return nil
	})
	return j, sum
}

// requireReclaimedToRetry fails unless j was reclaimed to retry (and maybe
// promoted to ready since).
func requireReclaimedToRetry(t *testing.T, j *store.JobRecord) {
	t.Helper()
	if j.State != store.StateRetry && j.State != store.StateReady {
		t.Fatalf("job %q reclaimed with attempts left is %s, want retry (or ready, when retried at once)", j.ID, j.State)
	}
}

func testMaintainPromotePending(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, delayed(q, "soon", 50*time.Millisecond), delayed(q, "later", long))
	sum := maintainUntil(t, s, q, store.MaintainOptions{}, inState(t, s, q, "soon", store.StateReady))
	if sum.Promoted != 1 {
		t.Fatalf("Maintain reported %d promotions in all, want 1 (soon)", sum.Promoted)
	}
	requireState(t, s, q, "later", store.StatePending)
	claimOne(t, s, q, "soon", long)
	claimNone(t, s, q, "later is due in an hour")
}

func testMaintainPromoteRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "soon", 1), withRetries(q, "later", 1))
	cs := claim(t, s, q, 2, long).Jobs
	if len(cs) != 2 {
		t.Fatalf("Claim Max 2: got %d jobs, want 2", len(cs))
	}
	finishOK(t, s, failed(cs[0], store.OutcomeRetry, "boom", 50*time.Millisecond), failed(cs[1], store.OutcomeRetry, "boom", long))
	sum := maintainUntil(t, s, q, store.MaintainOptions{}, inState(t, s, q, "soon", store.StateReady))
	if sum.Promoted != 1 {
		t.Fatalf("Maintain reported %d promotions in all, want 1 (soon)", sum.Promoted)
	}
	requireState(t, s, q, "later", store.StateRetry)
	if c := claimOne(t, s, q, "soon", long); c.Attempt != 2 {
		t.Fatalf("promoted retry claimed with Attempt %d, want 2", c.Attempt)
	}
}

func testMaintainReclaimRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 1))
	before := time.Now()
	claimOne(t, s, q, "a", 50*time.Millisecond)
	r, sum := awaitReclaim(t, s, q, "a")
	requireReclaimedToRetry(t, r)
	if sum.Reclaimed != 1 {
		t.Fatalf("Maintain reported %d reclaims in all, want 1", sum.Reclaimed)
	}
	if len(r.Errors) != 1 || r.Errors[0].Attempt != 1 || r.Errors[0].Error == "" {
		t.Fatalf("job reclaimed after its lease expired: Errors %+v, want one error for attempt 1 saying why", r.Errors)
	}
	requireNow(t, "At of the error recorded by a reclaim", r.Errors[0].At, before, time.Now())
	if c := claimWhenDue(t, s, q, long); c.Attempt != 2 {
		t.Fatalf("reclaimed job claimed again with Attempt %d, want 2", c.Attempt)
	}
}

func testMaintainReclaimGarbage(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 0))
	before := time.Now()
	claimOne(t, s, q, "a", 50*time.Millisecond)
	awaitReclaim(t, s, q, "a")
	g := requireState(t, s, q, "a", store.StateGarbage)
	if len(g.Errors) != 1 || g.Errors[0].Attempt != 1 {
		t.Fatalf("job reclaimed with no retries left: Errors %+v, want one error for attempt 1", g.Errors)
	}
	requireNow(t, "FinishedAt of a job reclaimed to garbage", g.FinishedAt, before, time.Now())
}

func testMaintainDyingWorker(t *testing.T, s store.Store) {
	q := newQueue(t)
	const retries = 2
	add(t, s, withRetries(q, "a", retries))
	var attempts []int
	testutil.Eventually(t, waitFor, func() error {
		maintain(t, s, q, store.MaintainOptions{})
		for _, j := range claim(t, s, q, 1, 30*time.Millisecond).Jobs {
			attempts = append(attempts, j.Attempt) // and the worker dies
		}
		if j := getJob(t, s, q, "a"); j.State != store.StateGarbage {
			return fmt.Errorf("job whose worker dies on every attempt is %s after %d claims, want garbage", j.State, len(attempts))
		}
		return nil
	})
	if fmt.Sprint(attempts) != "[1 2 3]" {
		t.Fatalf("job with MaxRetries %d whose worker always dies was claimed with attempts %v, want [1 2 3]", retries, attempts)
	}
	if g := getJob(t, s, q, "a"); len(g.Errors) != retries+1 || g.Attempt != retries+1 {
		t.Fatalf("dead job: Attempt %d, %d errors; want %d and %d", g.Attempt, len(g.Errors), retries+1, retries+1)
	}
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
	sum := maintainUntil(t, s, q, store.MaintainOptions{}, gone(t, s, q, "short"))
	if held := time.Since(start); held < keep-2*msSlack {
		t.Fatalf("done job with Retention %v was collected after at most %v", keep, held)
	}
	if sum.Collected != 1 {
		t.Fatalf("Maintain reported %d collected in all, want 1", sum.Collected)
	}
	requireState(t, s, q, "long", store.StateDone)
}

func testMaintainGarbageAge(t *testing.T, s store.Store) {
	q := newQueue(t)
	const maxAge = 100 * time.Millisecond
	add(t, s, job(q, "a"))
	start := time.Now()
	finishOK(t, s, failed(claimOne(t, s, q, "a", long), store.OutcomeGarbage, "dead", 0))
	if r := maintain(t, s, q, store.MaintainOptions{GarbageMaxAge: long}); r.Collected != 0 {
		t.Fatalf("Maintain with GarbageMaxAge 1h collected %d jobs, want 0 (the garbage is new)", r.Collected)
	}
	if r := maintain(t, s, q, store.MaintainOptions{}); r.Collected != 0 {
		t.Fatalf("Maintain without garbage limits collected %d jobs, want 0", r.Collected)
	}
	requireState(t, s, q, "a", store.StateGarbage)
	sum := maintainUntil(t, s, q, store.MaintainOptions{GarbageMaxAge: maxAge}, gone(t, s, q, "a"))
	if held := time.Since(start); held < maxAge-2*msSlack {
		t.Fatalf("garbage with GarbageMaxAge %v was collected after at most %v", maxAge, held)
	}
	if sum.Collected != 1 {
		t.Fatalf("Maintain reported %d collected in all, want 1", sum.Collected)
	}
}

func testMaintainGarbageCount(t *testing.T, s store.Store) {
	q := newQueue(t)
	names := seqIDs("g", 5)
	for _, id := range names {
		add(t, s, job(q, id))
		finishOK(t, s, failed(claimOne(t, s, q, id, long), store.OutcomeGarbage, "dead", 0))
	}
	if r := maintain(t, s, q, store.MaintainOptions{GarbageMaxCount: 5}); r.Collected != 0 {
		t.Fatalf("Maintain with GarbageMaxCount 5 and 5 garbage jobs collected %d, want 0", r.Collected)
	}
	if r := maintain(t, s, q, store.MaintainOptions{GarbageMaxCount: 2}); r.Collected != 3 {
		t.Fatalf("Maintain with GarbageMaxCount 2 and 5 garbage jobs collected %d, want 3", r.Collected)
	}
	for _, id := range names[:3] {
		requireGone(t, s, q, id, "Maintain with GarbageMaxCount 2 (oldest first)")
	}
	for _, id := range names[3:] {
		requireState(t, s, q, id, store.StateGarbage)
	}
}

func testMaintainBatch(t *testing.T, s store.Store) {
	q := newQueue(t)
	runAt := time.Now().Add(80 * time.Millisecond)
	for _, id := range seqIDs("j", 5) {
		j := job(q, id)
		j.RunAt = runAt
		add(t, s, j)
	}
	opts := store.MaintainOptions{Batch: 2}
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
	requireCounts(t, s, q, store.StateCounts{Ready: 5})
}

// requireNextIn fails unless r.NextIn is about want (a little less, as time
// passes between setting up and calling Maintain).
func requireNextIn(t *testing.T, r store.MaintainResult, want time.Duration, what string) {
	t.Helper()
	if r.Idle || r.NextIn > want+msSlack || r.NextIn < want-clockSlack {
		t.Fatalf("Maintain with %s: NextIn %v, Idle %v; want about %v, not idle", what, r.NextIn, r.Idle, want)
	}
}

func testMaintainNextIn(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "retry", 3), job(q, "running"), job(q, "dead"), job(q, "kept"), delayed(q, "pending", long))
	requireNextIn(t, maintain(t, s, q, store.MaintainOptions{}), long, "a job pending for 1h")
	finishOK(t, s, failed(claimOne(t, s, q, "retry", long), store.OutcomeRetry, "boom", 40*time.Minute))
	requireNextIn(t, maintain(t, s, q, store.MaintainOptions{}), 40*time.Minute, "a retry due in 40m")
	claimOne(t, s, q, "running", 20*time.Minute)
	requireNextIn(t, maintain(t, s, q, store.MaintainOptions{}), 20*time.Minute, "a lease expiring in 20m")
	finishOK(t, s, failed(claimOne(t, s, q, "dead", long), store.OutcomeGarbage, "dead", 0))
	requireNextIn(t, maintain(t, s, q, store.MaintainOptions{GarbageMaxAge: 15 * time.Minute}), 15*time.Minute, "garbage collected after 15m")
	kept := outcome(claimOne(t, s, q, "kept", long), store.OutcomeAck)
	kept.Retention = 10 * time.Minute
	finishOK(t, s, kept)
	requireNextIn(t, maintain(t, s, q, store.MaintainOptions{}), 10*time.Minute, "a done job kept for 10m")
}

func testMaintainIdle(t *testing.T, s store.Store) {
	q := newQueue(t)
	if r := maintain(t, s, q, store.MaintainOptions{}); !r.Idle || r.Promoted+r.Reclaimed+r.Collected != 0 || r.More {
		t.Fatalf("Maintain of an empty queue: %+v, want Idle and nothing done", r)
	}
	add(t, s, delayed(q, "later", long))
	if r := maintain(t, s, q, store.MaintainOptions{}); r.Idle {
		t.Fatalf("Maintain of a queue with a pending job: %+v, want not Idle", r)
	}
}

func testMaintainInvalidQueue(t *testing.T, s store.Store) {
	_, err := s.Maintain(t.Context(), "bad:queue", store.MaintainOptions{})
	requireErrIs(t, `Maintain("bad:queue")`, err, store.ErrInvalidQueue)
}
