package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func finishCases() []testCase {
	return []testCase{
		{name: "AckDeletes", fn: testFinishAckDeletes},
		{name: "AckWithRetention", fn: testFinishAckRetention},
		{name: "AckWithJobRetention", fn: testFinishAckJobRetention},
		{name: "AckWithQueueRetention", fn: testFinishAckQueueRetention},
		{name: "Retry", fn: testFinishRetry},
		{name: "RetryDueAfterDelay", fn: testFinishRetryDue},
		{name: "Garbage", fn: testFinishGarbage},
		{name: "Snooze", fn: testFinishSnooze},
		{name: "SnoozeRunsAgain", fn: testFinishSnoozeRunsAgain},
		{name: "Release", fn: testFinishRelease},
		{name: "Cancel", fn: testFinishCancel},
		{name: "StaleToken", sub: staleTokenCases()},
		{name: "StaleAfterRelease", fn: testFinishStaleAfterRelease},
		{name: "SameClaimTwiceInOneCall", fn: testFinishSameClaimTwice},
		{name: "StaleAfterReclaim", fn: testFinishStaleAfterReclaim},
		{name: "UnknownJob", fn: testFinishUnknown},
		{name: "DoubleAck", fn: testFinishDoubleAck},
		{name: "DoubleAckRetained", fn: testFinishDoubleAckRetained},
		{name: "ErrorHistoryCapped", fn: testFinishErrorHistory},
		{name: "BatchSeveralQueues", fn: testFinishBatch},
	}
}

func testFinishAckDeletes(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	finishOK(t, s, outcome(claimOne(t, s, q, "a", long), store.OutcomeAck))
	requireGone(t, s, q, "a", "ack without retention")
	requireCounts(t, s, q, store.StateCounts{})
	claimNone(t, s, q, "the only job was acked")
}

// requireDone fails unless id is in done with result.
func requireDone(t *testing.T, s store.Store, q, id, result string, before, after time.Time) {
	t.Helper()
	d := requireState(t, s, q, id, store.StateDone)
	if string(d.Result) != result {
		t.Fatalf("done job %q: Result %q, want %q", id, d.Result, result)
	}
	requireNow(t, "FinishedAt of an acked job", d.FinishedAt, before, after)
}

func testFinishAckRetention(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Retention, r.Result = long, []byte("result\x00bytes")
	before := time.Now()
	finishOK(t, s, r)
	requireDone(t, s, q, "a", "result\x00bytes", before, time.Now())
	requireCounts(t, s, q, store.StateCounts{Done: 1})
	claimNone(t, s, q, "the only job is done")
}

func testFinishAckJobRetention(t *testing.T, s store.Store) {
	q := newQueue(t)
	j := job(q, "a")
	j.Retention = long
	add(t, s, j)
	c := claimOne(t, s, q, "a", long)
	if c.Retention != long {
		t.Fatalf("claimed job's Retention = %v, want the %v it was enqueued with (a worker sends it back with the ack)", c.Retention, long)
	}
	r := outcome(c, store.OutcomeAck)
	r.Retention = c.Retention // what hopper's worker does
	r.Result = []byte("ok")
	before := time.Now()
	finishOK(t, s, r)
	requireDone(t, s, q, "a", "ok", before, time.Now())
}

func testFinishAckQueueRetention(t *testing.T, s store.Store) {
	q := newQueue(t)
	setQueueConfig(t, s, q, store.QueueConfig{Retention: long})
	if got := stats(t, s, q).Config.Retention; got != long {
		t.Fatalf("QueueStats.Config.Retention = %v after SetQueueConfig with %v", got, long)
	}
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Result = []byte("kept by the queue's retention")
	before := time.Now()
	finishOK(t, s, r)
	requireDone(t, s, q, "a", "kept by the queue's retention", before, time.Now())
}

func testFinishRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 2))
	c := claimOne(t, s, q, "a", long)
	before := time.Now()
	finishOK(t, s, failed(c, store.OutcomeRetry, "boom", long))
	after := time.Now()
	r := requireState(t, s, q, "a", store.StateRetry)
	if len(r.Errors) != 1 || r.Errors[0].Attempt != 1 || r.Errors[0].Error != "boom" {
		t.Fatalf("job after a failed first attempt: Errors %+v, want one error {Attempt 1, Error boom}", r.Errors)
	}
	requireNow(t, "AttemptError.At", r.Errors[0].At, before, after)
	requireNear(t, "RunAt of a job retried with Delay 1h, relative to its error's At", r.RunAt, r.Errors[0].At.Add(long), time.Second)
	if r.Attempt != 1 {
		t.Fatalf("job in retry after its first attempt: Attempt %d, want 1", r.Attempt)
	}
	claimNone(t, s, q, "the job waits an hour to retry")
	if res := maintain(t, s, q, store.MaintainOptions{}); res.Promoted != 0 {
		t.Fatalf("Maintain promoted %d jobs, want 0: the retry is due in an hour", res.Promoted)
	}
	requireState(t, s, q, "a", store.StateRetry)
}

func testFinishRetryDue(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 2))
	finishOK(t, s, failed(claimOne(t, s, q, "a", long), store.OutcomeRetry, "boom", 100*time.Millisecond))
	due := requireState(t, s, q, "a", store.StateRetry).RunAt
	c := claimWhenDue(t, s, q, long)
	if c.ID != "a" || c.Attempt != 2 {
		t.Fatalf("claim after retry: job %q Attempt %d, want a with Attempt 2", c.ID, c.Attempt)
	}
	if c.AttemptedAt.Truncate(time.Millisecond).Before(due.Truncate(time.Millisecond)) {
		t.Fatalf("retry due at %v was claimed at %v, before it was due", due, c.AttemptedAt)
	}
	if len(c.Errors) != 1 || c.Errors[0].Error != "boom" {
		t.Fatalf("claimed retry: Errors %+v, want the first attempt's error boom", c.Errors)
	}
}

func testFinishGarbage(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	c := claimOne(t, s, q, "a", long)
	before := time.Now()
	finishOK(t, s, failed(c, store.OutcomeGarbage, "permanent: bad input", 0))
	after := time.Now()
	g := requireState(t, s, q, "a", store.StateGarbage)
	requireNow(t, "FinishedAt of a job moved to garbage", g.FinishedAt, before, after)
	if len(g.Errors) != 1 || g.Errors[0].Error != "permanent: bad input" || g.Errors[0].Attempt != 1 || g.Cancelled {
		t.Fatalf("job in garbage: Errors %+v, Cancelled %v; want one error {Attempt 1, permanent: bad input}, not cancelled", g.Errors, g.Cancelled)
	}
	maintain(t, s, q, store.MaintainOptions{})
	claimNone(t, s, q, "the only job is in garbage")
	requireCounts(t, s, q, store.StateCounts{Garbage: 1})
}

func testFinishSnooze(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeSnooze)
	r.Delay = long
	finishOK(t, s, r)
	p := requireState(t, s, q, "a", store.StatePending)
	if p.Attempt != 0 || len(p.Errors) != 0 {
		t.Fatalf("snoozed job: Attempt %d, Errors %+v; want Attempt 0 (snooze is not counted) and no error", p.Attempt, p.Errors)
	}
	requireNear(t, "RunAt of a job snoozed for 1h", p.RunAt, time.Now().Add(long), clockSlack)
	claimNone(t, s, q, "the job is snoozed for an hour")
}

func testFinishSnoozeRunsAgain(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeSnooze)
	r.Delay = 50 * time.Millisecond
	finishOK(t, s, r)
	c := claimWhenDue(t, s, q, long)
	if c.ID != "a" || c.Attempt != 1 {
		t.Fatalf("claim after a snooze: job %q Attempt %d, want a with Attempt 1 (snooze not counted)", c.ID, c.Attempt)
	}
}

func testFinishRelease(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 0))
	first := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(first, store.OutcomeRelease))
	r := requireState(t, s, q, "a", store.StateReady)
	if r.Attempt != 0 || len(r.Errors) != 0 {
		t.Fatalf("released job: Attempt %d, Errors %+v; want Attempt 0 (release is not counted), no error", r.Attempt, r.Errors)
	}
	again := claimOne(t, s, q, "a", long)
	if again.Attempt != 1 || again.Token == first.Token {
		t.Fatalf("claim after release: Attempt %d, token %d (first claim's %d); want Attempt 1 and a new token", again.Attempt, again.Token, first.Token)
	}
}

func testFinishCancel(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	c := claimOne(t, s, q, "a", long)
	before := time.Now()
	finishOK(t, s, failed(c, store.OutcomeCancel, store.ErrCancelled.Error(), 0))
	g := requireState(t, s, q, "a", store.StateGarbage)
	if !g.Cancelled {
		t.Fatalf("job finished with OutcomeCancel: Cancelled false, want true")
	}
	if len(g.Errors) != 1 || g.Errors[0].Error != store.ErrCancelled.Error() {
		t.Fatalf("job finished with OutcomeCancel: Errors %+v, want the cancel error", g.Errors)
	}
	requireNow(t, "FinishedAt of a cancelled job", g.FinishedAt, before, time.Now())
	maintain(t, s, q, store.MaintainOptions{})
	claimNone(t, s, q, "a cancelled job is not retried")
}

func testFinishUnknown(t *testing.T, s store.Store) {
	q, other := newQueue(t), newQueue(t)
	add(t, s, job(q, "a"))
	c := claimOne(t, s, q, "a", long)
	wrongQueue := outcome(c, store.OutcomeAck)
	wrongQueue.Queue = other
	errs := finish(t, s,
		store.FinishRequest{Queue: q, ID: "never-enqueued", Token: c.Token, Outcome: store.OutcomeAck},
		wrongQueue)
	requireErrIs(t, "ack of an ID never enqueued", errs[0], store.ErrJobNotFound)
	requireErrIs(t, "ack naming another queue than the job's", errs[1], store.ErrJobNotFound)
	requireOwner(t, s, c, "finishes of unknown jobs")
}

func testFinishDoubleAck(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	finishOK(t, s, r)
	if err := finish(t, s, r)[0]; !errors.Is(err, store.ErrLeaseLost) && !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("second ack of the same claim: got %v, want ErrLeaseLost or ErrJobNotFound", err)
	}
	requireGone(t, s, q, "a", "two acks")
}

func testFinishDoubleAckRetained(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Retention, r.Result = long, []byte("first")
	finishOK(t, s, r)
	r.Result = []byte("second")
	if err := finish(t, s, r)[0]; !errors.Is(err, store.ErrLeaseLost) && !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("second ack of the same claim (job kept in done): got %v, want ErrLeaseLost or ErrJobNotFound", err)
	}
	if d := requireState(t, s, q, "a", store.StateDone); string(d.Result) != "first" {
		t.Fatalf("done job after a second ack: Result %q, want %q (unchanged)", d.Result, "first")
	}
}

func testFinishErrorHistory(t *testing.T, s store.Store) {
	q := newQueue(t)
	const fails = store.MaxErrorHistory + 3
	add(t, s, withRetries(q, "a", fails+5))
	for i := 1; i <= fails; i++ {
		c := claimWhenDue(t, s, q, long)
		if c.Attempt != i {
			t.Fatalf("claim %d: Attempt %d, want %d", i, c.Attempt, i)
		}
		finishOK(t, s, failed(c, store.OutcomeRetry, fmt.Sprintf("failure %d", i), 0))
	}
	errs := getJob(t, s, q, "a").Errors
	if len(errs) != store.MaxErrorHistory {
		t.Fatalf("after %d failed attempts the job keeps %d errors, want MaxErrorHistory (%d)", fails, len(errs), store.MaxErrorHistory)
	}
	for i, e := range errs {
		n := fails - store.MaxErrorHistory + 1 + i
		if e.Attempt != n || e.Error != fmt.Sprintf("failure %d", n) {
			t.Fatalf("Errors[%d] = {Attempt %d, %q}, want {Attempt %d, %q} (oldest dropped, oldest first)", i, e.Attempt, e.Error, n, fmt.Sprintf("failure %d", n))
		}
		if i > 0 && e.At.Before(errs[i-1].At) {
			t.Fatalf("Errors[%d].At %v is before Errors[%d].At %v, want oldest first", i, e.At, i-1, errs[i-1].At)
		}
	}
}

func testFinishBatch(t *testing.T, s store.Store) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, job(q1, "a"), withRetries(q2, "b", 2), job(q1, "c"), job(q2, "d"))
	a := claimOne(t, s, q1, "a", long)
	b := claimOne(t, s, q2, "b", long)
	staleC, c := reclaimed(t, s, q1, "c")
	d := claimOne(t, s, q2, "d", long)
	errs := finish(t, s,
		outcome(a, store.OutcomeAck),
		failed(b, store.OutcomeRetry, "boom", long),
		outcome(staleC, store.OutcomeAck),
		store.FinishRequest{Queue: q2, ID: "missing", Token: d.Token, Outcome: store.OutcomeAck},
		failed(d, store.OutcomeGarbage, "dead", 0),
	)
	wants := []error{nil, nil, store.ErrLeaseLost, store.ErrJobNotFound, nil}
	for i, want := range wants {
		if want == nil && errs[i] != nil || want != nil && !errors.Is(errs[i], want) {
			t.Fatalf("Finish batch result %d: got %v, want %v (one result per request, in order)", i, errs[i], want)
		}
	}
	requireGone(t, s, q1, "a", "ack in a batch")
	requireState(t, s, q2, "b", store.StateRetry)
	requireOwner(t, s, c, "a stale ack in a batch")
	requireState(t, s, q2, "d", store.StateGarbage)
}
