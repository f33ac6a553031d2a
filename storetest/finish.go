package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func finishCases() []engineCase {
	return []engineCase{
		{name: "AckDeletes", fn: testFinishAckDeletes},
		{name: "AckWithRetention", fn: testFinishAckRetention},
		{name: "AckWithJobRetention", fn: testFinishAckJobRetention},
		{name: "AckIgnoresJobRetention", fn: testFinishAckIgnoresJobRetention},
		{name: "Retry", fn: testFinishRetry},
		{name: "RetryDueAfterDelay", fn: testFinishRetryDue},
		{name: "Garbage", fn: testFinishGarbage},
		{name: "Snooze", fn: testFinishSnooze},
		{name: "SnoozeRunsAgain", fn: testFinishSnoozeRunsAgain},
		{name: "Release", fn: testFinishRelease},
		{name: "ReleaseKeepsOrder", fn: testFinishReleaseOrder},
		{name: "ReleaseBatchKeepsOrder", fn: testFinishReleaseBatchOrder},
		{name: "Cancel", fn: testFinishCancel},
		{name: "StaleToken", sub: staleTokenCases()},
		{name: "StaleAfterRelease", fn: testFinishStaleAfterRelease},
		{name: "SameClaimTwiceInOneCall", fn: testFinishSameClaimTwice},
		{name: "StaleAfterReclaim", fn: testFinishStaleAfterReclaim},
		{name: "UnknownJob", fn: testFinishUnknown},
		{name: "DoubleAck", fn: testFinishDoubleAck},
		{name: "DoubleAckRetained", fn: testFinishDoubleAckRetained},
		{name: "StaleAckOfDoneJob", fn: testFinishStaleAckOfDoneJob},
		{name: "SentAgain", sub: finishAgainCases()},
		{name: "ErrorHistoryCapped", fn: testFinishErrorHistory},
		{name: "BatchSeveralQueues", fn: testFinishBatch},
		{name: "InvalidInBatch", sub: invalidFinishCases()},
	}
}

func testFinishAckDeletes(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	finishOK(t, s, outcome(claimOne(t, s, q, "a", long), store.OutcomeAck))
	claimNone(t, s, q, "the only job was acked")
	requireIdle(t, s, q, "the only job was acked without a retention")
	requireFree(t, s, q, "a", "ack without retention")
}

// requireKeptFor fails unless the only job of q, id, is kept (acked into
// done, or in garbage) and Maintain with opts reports it due for collection
// in about keep.
func requireKeptFor(t *testing.T, s store.Store, q, id string, opts store.MaintainOpts, keep time.Duration, what string) {
	t.Helper()
	claimNone(t, s, q, "the only job is "+what)
	requireNextIn(t, maintain(t, s, q, opts), keep, what)
	claimNone(t, s, q, "the only job is "+what+", even after Maintain")
	requireHeld(t, s, q, id, what)
}

func testFinishAckRetention(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Retention, r.Result = long, []byte("result\x00bytes")
	finishOK(t, s, r)
	requireKeptFor(t, s, q, "a", store.MaintainOpts{}, long, "a job acked with Retention 1h")
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
	finishOK(t, s, r)
	requireKeptFor(t, s, q, "a", store.MaintainOpts{}, long, "a job with Retention 1h acked with it")
}

// testFinishAckIgnoresJobRetention: the store applies the request's
// Retention, else the queue's; it does not look up the job's own (the
// worker sends it).
func testFinishAckIgnoresJobRetention(t *testing.T, s store.Store) {
	q := newQueue(t)
	j := job(q, "a")
	j.Retention = long
	add(t, s, j)
	finishOK(t, s, outcome(claimOne(t, s, q, "a", long), store.OutcomeAck))
	requireIdle(t, s, q, "a job with a Retention of its own acked with Retention 0, in a queue without one")
	requireFree(t, s, q, "a", "an ack with Retention 0 in a queue without a retention")
}

func testFinishRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 2))
	finishOK(t, s, failed(claimOne(t, s, q, "a", long), store.OutcomeRetry, "boom", long))
	claimNone(t, s, q, "the job waits an hour to retry")
	res := maintain(t, s, q, store.MaintainOpts{})
	if res.Promoted != 0 {
		t.Fatalf("Maintain promoted %d jobs, want 0: the retry is due in an hour", res.Promoted)
	}
	requireNextIn(t, res, long, "a retry due in an hour")
	claimNone(t, s, q, "the job waits an hour to retry, even after Maintain")
	requireHeld(t, s, q, "a", "a retry")
}

func testFinishRetryDue(t *testing.T, s store.Store) {
	q := newQueue(t)
	const delay = 100 * time.Millisecond
	add(t, s, withRetries(q, "a", 2))
	before := time.Now()
	finishOK(t, s, failed(claimOne(t, s, q, "a", long), store.OutcomeRetry, "boom", delay))
	after := time.Now()
	c := claimWhenDue(t, s, q, long)
	if c.ID != "a" || c.Attempt != 2 {
		t.Fatalf("claim after retry: job %q Attempt %d, want a with Attempt 2", c.ID, c.Attempt)
	}
	if len(c.Errors) != 1 || c.Errors[0].Error != "boom" || c.Errors[0].Attempt != 1 {
		t.Fatalf("claimed retry: Errors %+v, want the first attempt's error {Attempt 1, boom}", c.Errors)
	}
	requireNow(t, "At of the retried attempt's error", c.Errors[0].At, before, after)
	requireNear(t, "RunAt of a job retried with Delay 100ms, relative to its error's At", c.RunAt, c.Errors[0].At.Add(delay), msSlack)
	if c.AttemptedAt.Truncate(time.Millisecond).Before(c.RunAt.Truncate(time.Millisecond)) {
		t.Fatalf("retry due at %v was claimed at %v, before it was due", c.RunAt, c.AttemptedAt)
	}
}

func testFinishGarbage(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	finishOK(t, s, failed(claimOne(t, s, q, "a", long), store.OutcomeGarbage, "permanent: bad input", 0))
	requireIdle(t, s, q, "the only job is in garbage, kept without a limit")
	requireKeptFor(t, s, q, "a", store.MaintainOpts{GarbageMaxAge: long}, long, "in garbage, collected after GarbageMaxAge 1h")
}

func testFinishSnooze(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeSnooze)
	r.Delay = long
	finishOK(t, s, r)
	claimNone(t, s, q, "the job is snoozed for an hour")
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, "a job snoozed for an hour")
	claimNone(t, s, q, "the job is snoozed for an hour, even after Maintain")
	requireHeld(t, s, q, "a", "a snooze")
}

func testFinishSnoozeRunsAgain(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	const delay = 50 * time.Millisecond
	first := claimOne(t, s, q, "a", long)
	r := outcome(first, store.OutcomeSnooze)
	r.Delay = delay
	finishOK(t, s, r)
	c := claimWhenDue(t, s, q, long)
	if c.ID != "a" || c.Attempt != 1 || len(c.Errors) != 0 {
		t.Fatalf("claim after a snooze: job %q Attempt %d, Errors %+v; want a with Attempt 1 (snooze not counted) and no error", c.ID, c.Attempt, c.Errors)
	}
	if c.RunAt.Before(first.AttemptedAt.Add(delay-msSlack)) || c.RunAt.After(c.AttemptedAt) {
		t.Fatalf("job snoozed for %v after its claim at %v, claimed again at %v: RunAt %v, want the snooze's due time in between",
			delay, first.AttemptedAt, c.AttemptedAt, c.RunAt)
	}
}

func testFinishRelease(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 0))
	first := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(first, store.OutcomeRelease))
	again := claimOne(t, s, q, "a", long)
	if again.Attempt != 1 || again.Token == first.Token || len(again.Errors) != 0 {
		t.Fatalf("claim after release: Attempt %d, token %d (first claim's %d), Errors %+v; want Attempt 1 (release is not counted), a new token, no error",
			again.Attempt, again.Token, first.Token, again.Errors)
	}
}

// testFinishReleaseOrder: a released job goes back to the front of ready,
// so releasing claimed jobs in reverse order restores their order.
func testFinishReleaseOrder(t *testing.T, s store.Store) {
	q := newQueue(t)
	names := seqIDs("j", 4)
	for _, id := range names {
		add(t, s, job(q, id))
	}
	cs := claim(t, s, q, 2, long).Jobs
	if !sameIDs(cs, names[:2]) {
		t.Fatalf("Claim Max 2: %v, want %v", ids(cs), names[:2])
	}
	finishOK(t, s, outcome(cs[1], store.OutcomeRelease))
	finishOK(t, s, outcome(cs[0], store.OutcomeRelease))
	got := claim(t, s, q, 10, long).Jobs
	if !sameIDs(got, names) {
		t.Fatalf("Claim after releasing the first two jobs in reverse order: %v, want %v (released jobs at the front)", ids(got), names)
	}
	for _, c := range got {
		if c.Attempt != 1 {
			t.Fatalf("job %q claimed with Attempt %d, want 1 (a release is not counted)", c.ID, c.Attempt)
		}
	}
}

// testFinishReleaseBatchOrder: jobs released in one call (a worker
// handing back what it had claimed) go back to the head of ready in the
// order they were claimed, in a plain queue and within a group; a second
// release of one of them in the same call is refused.
func testFinishReleaseBatchOrder(t *testing.T, s store.Store) {
	for _, g := range []string{"", "g"} {
		q := newQueue(t)
		names := seqIDs("j", 5)
		for _, id := range names {
			add(t, s, grouped(q, id, g))
		}
		cs := claim(t, s, q, 3, long).Jobs
		if !sameIDs(cs, names[:3]) {
			t.Fatalf("group %q: Claim Max 3: %v, want %v", g, ids(cs), names[:3])
		}
		errs := finish(t, s, outcome(cs[0], store.OutcomeRelease), outcome(cs[1], store.OutcomeRelease),
			outcome(cs[2], store.OutcomeRelease), outcome(cs[1], store.OutcomeRelease))
		for i, err := range errs[:3] {
			if err != nil {
				t.Fatalf("group %q: release of %s: %v", g, cs[i].ID, err)
			}
		}
		requireErrIs(t, "a second release of the same claim in one call", errs[3], store.ErrLeaseLost)
		if got := claim(t, s, q, 10, long).Jobs; !sameIDs(got, names) {
			t.Fatalf("group %q: Claim after releasing the first three jobs in one call: %v, want %v", g, ids(got), names)
		}
	}
}

func testFinishCancel(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	finishOK(t, s, failed(claimOne(t, s, q, "a", long), store.OutcomeCancel, store.ErrCancelled.Error(), 0))
	requireIdle(t, s, q, "the only job is cancelled, in garbage, kept without a limit")
	requireKeptFor(t, s, q, "a", store.MaintainOpts{GarbageMaxAge: long}, long, "cancelled, in garbage, collected after GarbageMaxAge 1h")
}

func testFinishUnknown(t *testing.T, s store.Store) {
	q, other := newQueue(t), newQueue(t)
	add(t, s, job(q, "a"))
	c := claimOne(t, s, q, "a", long)
	wrongQueue := outcome(c, store.OutcomeAck)
	wrongQueue.Queue = other
	errs := finish(t, s,
		store.AttemptEnd{Queue: q, ID: "never-enqueued", Token: c.Token, Outcome: store.OutcomeAck},
		wrongQueue)
	requireErrIs(t, "ack of an ID never enqueued", errs[0], store.ErrJobNotFound)
	requireErrIs(t, "ack naming another queue than the job's", errs[1], store.ErrJobNotFound)
	requireOwner(t, s, c, "finishes of unknown jobs")
	requireFree(t, s, q, "never-enqueued", "an ack of a job never enqueued")
}

func testFinishDoubleAck(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	finishOK(t, s, r)
	if err := finish(t, s, r)[0]; !errors.Is(err, store.ErrLeaseLost) && !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("second ack of the same claim: got %v, want ErrLeaseLost or ErrJobNotFound", err)
	}
	requireFree(t, s, q, "a", "two acks")
}

func testFinishDoubleAckRetained(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	r := outcome(claimOne(t, s, q, "a", long), store.OutcomeAck)
	r.Retention, r.Result = long, []byte("first")
	finishOK(t, s, r)
	r.Result = []byte("second")
	r.Retention = 10 * time.Minute
	// The same ack sent again (its first reply lost) learns that it held.
	if err := finish(t, s, r)[0]; err != nil {
		t.Fatalf("second ack of the same claim (job kept in done): got %v, want nil (the first applied it)", err)
	}
	requireKeptFor(t, s, q, "a", store.MaintainOpts{}, long, "acked with Retention 1h, then acked again with 10m")
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
	errs := claimWhenDue(t, s, q, long).Errors
	if len(errs) != store.MaxErrorHistory {
		t.Fatalf("after %d failed attempts the job is claimed with %d errors, want MaxErrorHistory (%d)", fails, len(errs), store.MaxErrorHistory)
	}
	requireErrorHistory(t, errs, fails)
}

// requireErrorHistory fails unless errs are the last MaxErrorHistory of
// fails errors "failure 1", "failure 2", ..., oldest first.
func requireErrorHistory(t *testing.T, errs []store.AttemptError, fails int) {
	t.Helper()
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
		store.AttemptEnd{Queue: q2, ID: "missing", Token: d.Token, Outcome: store.OutcomeAck},
		failed(d, store.OutcomeGarbage, "dead", 0),
	)
	wants := []error{nil, nil, store.ErrLeaseLost, store.ErrJobNotFound, nil}
	for i, want := range wants {
		if want == nil && errs[i] != nil || want != nil && !errors.Is(errs[i], want) {
			t.Fatalf("Finish batch result %d: got %v, want %v (one result per request, in order)", i, errs[i], want)
		}
	}
	requireOwner(t, s, c, "a stale ack in a batch")
	claimNone(t, s, q2, "b waits an hour to retry and d is in garbage")
	requireNextIn(t, maintain(t, s, q2, store.MaintainOpts{}), long, "b waiting an hour to retry")
	requireHeld(t, s, q2, "b", "a retry in a batch")
	requireHeld(t, s, q2, "d", "a garbage outcome in a batch")
	requireFree(t, s, q1, "a", "an ack in a batch")
}

// invalidFinishCases: requests that fail AttemptEnd.Validate (a bad
// queue, a bad ID, an outcome a store does not apply) get their own error
// and change nothing, while the valid requests of the same call are
// applied.
func invalidFinishCases() []engineCase {
	var cases []engineCase
	for _, o := range []store.Outcome{0, 7, store.OutcomeLeaseLost} {
		name := fmt.Sprintf("Outcome%d", o)
		if o == store.OutcomeLeaseLost {
			name = "OutcomeLeaseLost"
		}
		cases = append(cases, engineCase{name: name, fn: func(t *testing.T, s store.Store) { testFinishInvalidInBatch(t, s, o) }})
	}
	return cases
}

func testFinishInvalidInBatch(t *testing.T, s store.Store, bad store.Outcome) {
	q := newQueue(t)
	add(t, s, job(q, "acked"), withRetries(q, "retried", 1), job(q, "kept"))
	acked := claimOne(t, s, q, "acked", long)
	retried := claimOne(t, s, q, "retried", long)
	kept := claimOne(t, s, q, "kept", long)
	badQueue := outcome(kept, store.OutcomeAck)
	badQueue.Queue = "a b"
	badID := outcome(kept, store.OutcomeAck)
	badID.ID = "a b"
	badOutcome := outcome(kept, bad)
	errs := finish(t, s,
		outcome(acked, store.OutcomeAck),
		badQueue,
		badOutcome,
		failed(retried, store.OutcomeRetry, "boom", 0),
		badID,
	)
	if errs[0] != nil || errs[3] != nil {
		t.Fatalf("valid requests of a Finish call with invalid ones: ack %v, retry %v; want both nil (applied)", errs[0], errs[3])
	}
	requireErrIs(t, `Finish request with queue "a b"`, errs[1], store.ErrInvalidQueue)
	requireErrIs(t, fmt.Sprintf("Finish request with outcome %v", bad), errs[2], store.ErrInvalidState)
	requireErrIs(t, `Finish request with ID "a b"`, errs[4], store.ErrInvalidJob)
	requireOwner(t, s, kept, "invalid Finish requests naming its claim")
	c := claimWhenDue(t, s, q, long)
	if c.ID != "retried" || c.Attempt != 2 || len(c.Errors) != 1 || c.Errors[0].Error != "boom" {
		t.Fatalf("claim after the batch: job %q, Attempt %d, Errors %+v; want retried with Attempt 2 and error boom (the retry was applied)", c.ID, c.Attempt, c.Errors)
	}
	finishOK(t, s, outcome(kept, store.OutcomeAck), outcome(c, store.OutcomeAck))
	requireFree(t, s, q, "acked", "a valid ack in a batch with invalid requests")
}
