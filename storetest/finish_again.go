package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// An end sent again: a worker whose Finish reply was lost sends the same
// request again. Where the first try applied it and the job is still where
// it put it, under that claim, the store answers nil and changes nothing;
// once the job has moved on, or when the claim's lease had expired, it
// answers ErrLeaseLost (store.Store's Finish).

func finishAgainCases() []engineCase {
	return []engineCase{
		{name: "RetrySentAgain", fn: testFinishRetrySentAgain},
		{name: "DeathSentAgain", sub: deathSentAgainCases()},
		{name: "RetrySentAgainAfterPromotion", fn: testFinishRetryAgainAfterPromotion},
		{name: "DeathOfALeaseExpiredIntoGarbage", fn: testFinishDeathAfterExpiry},
	}
}

// testFinishRetrySentAgain: a retry sent again while its job waits in
// retry reports nil and records nothing more: the job runs again once,
// on its second attempt, with the one error.
func testFinishRetrySentAgain(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	r := failed(claimOne(t, s, q, "a", long), store.OutcomeRetry, "first", time.Millisecond)
	finishOK(t, s, r)
	if err := finish(t, s, r)[0]; err != nil {
		t.Fatalf("the retry sent again while its job waits in retry: got %v, want nil (the first applied it)", err)
	}
	c := claimWhenDue(t, s, q, long)
	if c.Attempt != 2 || len(c.Errors) != 1 {
		t.Fatalf("a retry sent again: the job claimed on Attempt %d with %d errors, want 2 and 1 (the second try changed nothing)",
			c.Attempt, len(c.Errors))
	}
	finishOK(t, s, outcome(c, store.OutcomeAck))
	claimNone(t, s, q, "the job retried once and then acked")
}

// deathSentAgainCases: a death or a cancel sent again while its job is
// in garbage reports nil and keeps the job there.
func deathSentAgainCases() []engineCase {
	var cases []engineCase
	for _, o := range []store.Outcome{store.OutcomeGarbage, store.OutcomeCancel} {
		cases = append(cases, engineCase{name: outcomeName(o), fn: func(t *testing.T, s store.Store) {
			q := newQueue(t)
			add(t, s, withRetries(q, "a", 3))
			r := failed(claimOne(t, s, q, "a", long), o, "permanent", 0)
			finishOK(t, s, r)
			if err := finish(t, s, r)[0]; err != nil {
				t.Fatalf("%s sent again while its job is in garbage: got %v, want nil (the first applied it)", o, err)
			}
			requireKeptFor(t, s, q, "a", store.MaintainOpts{GarbageMaxAge: long}, long,
				fmt.Sprintf("in garbage after a %s sent twice, collected after GarbageMaxAge 1h", o))
		}})
	}
	return cases
}

// testFinishRetryAgainAfterPromotion: a retry sent again after its job
// was promoted to ready is refused: the job has moved on, and a second
// try cannot tell that from a lease lost.
func testFinishRetryAgainAfterPromotion(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	r := failed(claimOne(t, s, q, "a", long), store.OutcomeRetry, "first", time.Millisecond)
	finishOK(t, s, r)
	maintainUntil(t, s, q, store.MaintainOpts{}, func(sum store.MaintainResult) error {
		if sum.Promoted == 0 {
			return fmt.Errorf("Maintain of %q promoted nothing, want the retried job promoted", q)
		}
		return nil
	})
	requireErrIs(t, "a retry sent again after its job was promoted to ready", finish(t, s, r)[0], store.ErrLeaseLost)
	if c := claimOne(t, s, q, "a", long); c.Attempt != 2 || len(c.Errors) != 1 {
		t.Fatalf("a promoted job after its retry was sent again: claimed on Attempt %d with %d errors, want 2 and 1",
			c.Attempt, len(c.Errors))
	}
}

// testFinishDeathAfterExpiry: a claim whose lease expired on the job's
// last attempt, which the scheduler moved to garbage, is refused when it
// sends its own death or retry late: the job is where that end would
// have put it, but not by it.
func testFinishDeathAfterExpiry(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 0))
	stale := claimOne(t, s, q, "a", 50*time.Millisecond)
	awaitReclaim(t, s, q)
	for _, o := range []store.Outcome{store.OutcomeGarbage, store.OutcomeRetry, store.OutcomeCancel} {
		requireErrIs(t, fmt.Sprintf("%s of a claim whose lease expired into garbage", o),
			finish(t, s, failed(stale, o, "late", 0))[0], store.ErrLeaseLost)
	}
	requireKeptFor(t, s, q, "a", store.MaintainOpts{GarbageMaxAge: long}, long, "in garbage after its lease expired on its last attempt")
}
