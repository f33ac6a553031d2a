package storetest

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// lifecycleCases check what only store.Admin shows of the lifecycle the
// Engine cases drive: the records GetJob returns (due times, attempts,
// error history, results, finish times) and the counts of QueueStats.
func lifecycleCases() []adminCase {
	var dup []adminCase
	for _, ps := range putStates {
		dup = append(dup, adminCase{name: ps.name, fn: func(t *testing.T, s store.Store, a store.Admin) {
			testLifecycleDuplicateID(t, s, a, ps.state)
		}})
	}
	return []adminCase{
		{name: "PendingRunAt", fn: testLifecyclePendingRunAt},
		{name: "DuplicateIDKeepsRecord", sub: dup},
		{name: "ClaimedRecordMatches", fn: testLifecycleClaimedRecord},
		{name: "AttemptInRecord", fn: testLifecycleAttempt},
		{name: "AckKeepsResult", fn: testLifecycleAckResult},
		{name: "DoubleAckKeepsResult", fn: testLifecycleDoubleAck},
		{name: "RetryRecordsError", fn: testLifecycleRetry},
		{name: "GarbageRecordsError", fn: testLifecycleGarbage},
		{name: "ErrorHistoryInGarbage", fn: testLifecycleErrorHistory},
		{name: "SnoozeRecord", fn: testLifecycleSnooze},
		{name: "ReleaseRecord", fn: testLifecycleRelease},
		{name: "CancelRecordsError", fn: testLifecycleCancel},
		{name: "StaleFinishChangesNothing", fn: testLifecycleStale},
		{name: "ReclaimRecordsLeaseExpired", fn: testLifecycleReclaimRetry},
		{name: "ReclaimToGarbageRecord", fn: testLifecycleReclaimGarbage},
		{name: "DyingWorkerHistory", fn: testLifecycleDyingWorker},
	}
}

// testLifecyclePendingRunAt: a pending job's RunAt is Delay after its
// enqueue, or its RunAt as given (which wins over Delay), and a claim
// returns the RunAt GetJob showed.
func testLifecyclePendingRunAt(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	runAt := time.Now().Add(2 * long)
	atTime := job(q, "run-at")
	atTime.RunAt = runAt
	both := job(q, "run-at-and-delay")
	both.RunAt, both.Delay = time.Now().Add(2*long), time.Millisecond
	add(t, s, delayed(q, "delay", long), atTime, both)
	d := requireState(t, a, q, "delay", store.StatePending)
	requireNear(t, "RunAt of a job enqueued with Delay 1h, relative to its EnqueuedAt", d.RunAt, d.EnqueuedAt.Add(long), time.Second)
	r := requireState(t, a, q, "run-at", store.StatePending)
	requireNear(t, "RunAt of a job enqueued with RunAt", r.RunAt, runAt, msSlack)
	f := requireState(t, a, q, both.ID, store.StatePending)
	requireNear(t, "RunAt of the job with RunAt in 2h and Delay 1ms", f.RunAt, both.RunAt, msSlack)

	q = newQueue(t)
	add(t, s, delayed(q, "later", 50*time.Millisecond))
	due := requireState(t, a, q, "later", store.StatePending).RunAt
	if c := claimWhenDue(t, s, q, long); c.ID != "later" || !c.RunAt.Equal(due) {
		t.Fatalf("claimed %q with RunAt %v; want job later with its due time %v as GetJob reported it", c.ID, c.RunAt, due)
	}
}

func testLifecycleDuplicateID(t *testing.T, s store.Store, a store.Admin, st store.JobState) {
	q := newQueue(t)
	before := put(t, s, a, withRetries(q, "holder", 3), st)
	counts := stats(t, a, q).Counts
	res := enqueue(t, s, duplicateOf(q, "holder", st))
	if want := (store.EnqueueResult{ID: "holder", Duplicate: true}); res[0] != want {
		t.Fatalf("Enqueue of an ID held by a job in %s: got %+v, want %+v", st, res[0], want)
	}
	after := requireState(t, a, q, "holder", st)
	if after.Kind != before.Kind || !bytes.Equal(after.Args, before.Args) || after.Attempt != before.Attempt ||
		!after.RunAt.Equal(before.RunAt) || after.Token != before.Token {
		t.Fatalf("duplicate enqueue changed the job in %s:\nbefore %+v\nafter  %+v", st, before, after)
	}
	if got := stats(t, a, q).Counts; got != counts {
		t.Fatalf("duplicate enqueue changed the counts from %+v to %+v", counts, got)
	}
}

// testLifecycleClaimedRecord: GetJob of a running job shows the claim, and
// the deadline of its latest Extend.
func testLifecycleClaimedRecord(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	_, c, _, _ := recordJob(t, s, q)
	g := requireState(t, a, q, "a", store.StateUnack)
	if g.Token != c.Token || !g.Deadline.Equal(c.Deadline) || g.Attempt != 1 || !g.AttemptedAt.Equal(c.AttemptedAt) ||
		!g.EnqueuedAt.Equal(c.EnqueuedAt) || !g.RunAt.Equal(c.RunAt) || g.Retention != c.Retention || g.Timeout != c.Timeout {
		t.Fatalf("GetJob of a claimed job: %+v\nwant the claim's fields: %+v", g, c)
	}
	st := extend(t, s, long, ref(c))[0]
	if !st.Held {
		t.Fatalf("Extend of a live lease: %+v, want Held", st)
	}
	if g := requireState(t, a, q, "a", store.StateUnack); !g.Deadline.Equal(st.Deadline) || g.Token != c.Token || g.Attempt != 1 {
		t.Fatalf("GetJob after Extend: Deadline %v, Token %d, Attempt %d; want %v, %d, 1", g.Deadline, g.Token, g.Attempt, st.Deadline, c.Token)
	}
}

func testLifecycleAttempt(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	finishOK(t, s, failed(claimOne(t, s, q, "a", long), store.OutcomeRetry, "boom", 0))
	if got := getJob(t, a, q, "a").Attempt; got != 1 {
		t.Fatalf("after a failed first attempt: Attempt %d, want 1", got)
	}
	claimWhenDue(t, s, q, long)
	if got := getJob(t, a, q, "a").Attempt; got != 2 {
		t.Fatalf("GetJob after the second claim: Attempt %d, want 2", got)
	}
}

func testLifecycleAckResult(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	own := job(q, "own")
	own.Retention = long
	add(t, s, job(q, "a"), own)
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Retention, r.Result = long, []byte("result\x00bytes")
	before := time.Now()
	finishOK(t, s, r)
	requireDone(t, a, q, "a", "result\x00bytes", before, time.Now())
	requireCounts(t, a, q, store.StateCounts{Ready: 1, Done: 1})

	c := claimOne(t, s, q, "own", long)
	r = outcome(c, store.OutcomeAck)
	r.Retention, r.Result = c.Retention, []byte("ok") // what hopper's worker does
	before = time.Now()
	finishOK(t, s, r)
	requireDone(t, a, q, "own", "ok", before, time.Now())
	requireCounts(t, a, q, store.StateCounts{Done: 2})
}

func testLifecycleDoubleAck(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Retention, r.Result = long, []byte("first")
	finishOK(t, s, r)
	r.Result = []byte("second")
	finish(t, s, r)
	if d := requireState(t, a, q, "a", store.StateDone); string(d.Result) != "first" {
		t.Fatalf("done job after a second ack: Result %q, want %q (unchanged)", d.Result, "first")
	}
}

func testLifecycleRetry(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 2))
	c := claimOne(t, s, q, "a", long)
	before := time.Now()
	f := failed(c, store.OutcomeRetry, "boom", long)
	started := time.Now().Add(-time.Second).Truncate(time.Millisecond)
	f.Error.StartedAt, f.Error.Worker = started, "worker-7"
	finishOK(t, s, f)
	after := time.Now()
	r := requireState(t, a, q, "a", store.StateRetry)
	if len(r.Errors) != 1 || r.Errors[0].Attempt != 1 || r.Errors[0].Error != "boom" || !r.Errors[0].StartedAt.Equal(started) || r.Errors[0].Worker != "worker-7" {
		t.Fatalf("job after a failed first attempt: Errors %+v, want one error {Attempt 1, Error boom, StartedAt %v, Worker worker-7}", r.Errors, started)
	}
	requireNow(t, "AttemptError.At", r.Errors[0].At, before, after)
	requireNear(t, "RunAt of a job retried with Delay 1h, relative to its error's At", r.RunAt, r.Errors[0].At.Add(long), time.Second)
	if r.Attempt != 1 || !r.Deadline.IsZero() || r.Token != 0 || !r.FinishedAt.IsZero() {
		t.Fatalf("job in retry after its first attempt: Attempt %d, Deadline %v, Token %d, FinishedAt %v; want Attempt 1, the rest zero",
			r.Attempt, r.Deadline, r.Token, r.FinishedAt)
	}
	maintain(t, s, q, store.MaintainOpts{})
	requireState(t, a, q, "a", store.StateRetry)
	requireCounts(t, a, q, store.StateCounts{Retry: 1})
}

func testLifecycleGarbage(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	c := claimOne(t, s, q, "a", long)
	before := time.Now()
	finishOK(t, s, failed(c, store.OutcomeGarbage, "permanent: bad input", 0))
	after := time.Now()
	g := requireState(t, a, q, "a", store.StateGarbage)
	requireNow(t, "FinishedAt of a job moved to garbage", g.FinishedAt, before, after)
	if len(g.Errors) != 1 || g.Errors[0].Error != "permanent: bad input" || g.Errors[0].Attempt != 1 || g.Cancelled ||
		!g.Errors[0].StartedAt.IsZero() || g.Errors[0].Worker != "" {
		t.Fatalf("job in garbage: Errors %+v, Cancelled %v; want one error {Attempt 1, permanent: bad input}, not cancelled", g.Errors, g.Cancelled)
	}
	maintain(t, s, q, store.MaintainOpts{})
	requireCounts(t, a, q, store.StateCounts{Garbage: 1})
}

// testLifecycleErrorHistory: a job that failed a few times and then died
// keeps every error in garbage, oldest first.
func testLifecycleErrorHistory(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	const fails = store.MaxErrorHistory + 2
	add(t, s, withRetries(q, "a", fails))
	for i := 1; i <= fails; i++ {
		o := store.OutcomeRetry
		if i == fails {
			o = store.OutcomeGarbage
		}
		finishOK(t, s, failed(claimWhenDue(t, s, q, long), o, fmt.Sprintf("failure %d", i), 0))
	}
	g := requireState(t, a, q, "a", store.StateGarbage)
	if len(g.Errors) != store.MaxErrorHistory || g.Attempt != fails {
		t.Fatalf("job in garbage after %d failed attempts: Attempt %d, %d errors; want %d, MaxErrorHistory (%d)",
			fails, g.Attempt, len(g.Errors), fails, store.MaxErrorHistory)
	}
	requireErrorHistory(t, g.Errors, fails)
}

func testLifecycleSnooze(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeSnooze)
	r.Delay = long
	finishOK(t, s, r)
	p := requireState(t, a, q, "a", store.StatePending)
	if p.Attempt != 0 || len(p.Errors) != 0 {
		t.Fatalf("snoozed job: Attempt %d, Errors %+v; want Attempt 0 (snooze is not counted) and no error", p.Attempt, p.Errors)
	}
	requireNear(t, "RunAt of a job snoozed for 1h", p.RunAt, time.Now().Add(long), clockSlack)
}

func testLifecycleRelease(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 0))
	finishOK(t, s, outcome(claimOne(t, s, q, "a", long), store.OutcomeRelease))
	r := requireState(t, a, q, "a", store.StateReady)
	if r.Attempt != 0 || len(r.Errors) != 0 || r.Token != 0 || !r.Deadline.IsZero() {
		t.Fatalf("released job: Attempt %d, Errors %+v, Token %d, Deadline %v; want Attempt 0 (release is not counted), no error, no claim",
			r.Attempt, r.Errors, r.Token, r.Deadline)
	}
}

func testLifecycleCancel(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	c := claimOne(t, s, q, "a", long)
	before := time.Now()
	finishOK(t, s, failed(c, store.OutcomeCancel, "stopped by its handler", 0))
	g := requireState(t, a, q, "a", store.StateGarbage)
	if !g.Cancelled {
		t.Fatalf("job finished with OutcomeCancel: Cancelled false, want true")
	}
	if len(g.Errors) != 1 || g.Errors[0].Error != "stopped by its handler" || g.Errors[0].Attempt != 1 {
		t.Fatalf("job finished with OutcomeCancel: Errors %+v, want the request's error", g.Errors)
	}
	requireNow(t, "FinishedAt of a cancelled job", g.FinishedAt, before, time.Now())
}

// testLifecycleStale: a finish with a stale token, whatever its outcome,
// leaves the current claim's record as it was.
func testLifecycleStale(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	stale, current := reclaimed(t, s, q, "a")
	for _, o := range finishOutcomes {
		r := failed(stale, o, "late", time.Millisecond)
		r.Retention = long
		requireErrIs(t, fmt.Sprintf("Finish %s with the token of an earlier claim", o), finish(t, s, r)[0], store.ErrLeaseLost)
		g := requireState(t, a, q, "a", store.StateUnack)
		if g.Token != current.Token || !g.Deadline.Equal(current.Deadline) || g.Attempt != current.Attempt || len(g.Errors) != 0 || g.Cancelled {
			t.Fatalf("after a stale %s, the current owner's job changed: Token %d, Deadline %v, Attempt %d, Errors %+v, Cancelled %v; want %d, %v, %d, none, false",
				o, g.Token, g.Deadline, g.Attempt, g.Errors, g.Cancelled, current.Token, current.Deadline, current.Attempt)
		}
	}
	requireCounts(t, a, q, store.StateCounts{Unack: 1})
}

func testLifecycleReclaimRetry(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 1))
	before := time.Now()
	stale := claimOne(t, s, q, "a", 50*time.Millisecond)
	awaitReclaim(t, s, q)
	after := time.Now()
	r := getJob(t, a, q, "a")
	// Retried at once: the same Maintain call may have promoted it.
	if r.State != store.StateRetry && r.State != store.StateReady {
		t.Fatalf("job reclaimed with attempts left is %s, want retry (or ready, when retried at once)", r.State)
	}
	if len(r.Errors) != 1 || r.Errors[0].Attempt != 1 || r.Errors[0].Error != store.ErrLeaseExpired.Error() {
		t.Fatalf("job reclaimed after its lease expired: Errors %+v, want one error for attempt 1: %q", r.Errors, store.ErrLeaseExpired)
	}
	requireNow(t, "At of the error recorded by a reclaim", r.Errors[0].At, before, after)
	requireErrIs(t, "ack after the lease expired and the job was reclaimed", finish(t, s, outcome(stale, store.OutcomeAck))[0], store.ErrLeaseLost)
	if g := getJob(t, a, q, "a"); g.State != r.State || len(g.Errors) != 1 {
		t.Fatalf("stale ack changed the reclaimed job: state %s, %d errors; want %s, 1 error", g.State, len(g.Errors), r.State)
	}
}

func testLifecycleReclaimGarbage(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 0))
	before := time.Now()
	claimOne(t, s, q, "a", 50*time.Millisecond)
	awaitReclaim(t, s, q)
	g := requireState(t, a, q, "a", store.StateGarbage)
	if len(g.Errors) != 1 || g.Errors[0].Attempt != 1 || g.Errors[0].Error != store.ErrLeaseExpired.Error() || g.Cancelled {
		t.Fatalf("job reclaimed with no retries left: Errors %+v, Cancelled %v; want one error for attempt 1: %q, not cancelled",
			g.Errors, g.Cancelled, store.ErrLeaseExpired)
	}
	requireNow(t, "FinishedAt of a job reclaimed to garbage", g.FinishedAt, before, time.Now())
}

func testLifecycleDyingWorker(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	dieEveryAttempt(t, s, q)
	g := requireState(t, a, q, "a", store.StateGarbage)
	if len(g.Errors) != dyingRetries+1 || g.Attempt != dyingRetries+1 {
		t.Fatalf("dead job: Attempt %d, %d errors; want %d and %d", g.Attempt, len(g.Errors), dyingRetries+1, dyingRetries+1)
	}
	for i, e := range g.Errors {
		if e.Attempt != i+1 || e.Error != store.ErrLeaseExpired.Error() {
			t.Fatalf("dead job: Errors[%d] = {Attempt %d, %q}, want {Attempt %d, %q}", i, e.Attempt, e.Error, i+1, store.ErrLeaseExpired)
		}
	}
}
