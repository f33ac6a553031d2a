package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// reclaimed claims id and returns that stale claim together with the
// current one, after releasing the first and claiming again.
func reclaimed(t *testing.T, s store.Store, q, id string) (stale, current *store.JobRecord) {
	t.Helper()
	stale = claimOne(t, s, q, id, long)
	finishOK(t, s, outcome(stale, store.OutcomeRelease))
	current = claimOne(t, s, q, id, long)
	if current.Token == stale.Token {
		t.Fatalf("second claim of %q reused token %d", id, stale.Token)
	}
	return stale, current
}

// finishOutcomes lists the outcomes a worker sends to Finish.
var finishOutcomes = []store.Outcome{store.OutcomeAck, store.OutcomeRetry, store.OutcomeGarbage,
	store.OutcomeSnooze, store.OutcomeRelease, store.OutcomeCancel}

// outcomeName returns o's name for a subtest: "Ack", "Retry", ...
func outcomeName(o store.Outcome) string {
	name := o.String()
	return string(name[0]-'a'+'A') + name[1:]
}

func staleTokenCases() []engineCase {
	var cases []engineCase
	for _, o := range finishOutcomes {
		cases = append(cases, engineCase{name: outcomeName(o), fn: func(t *testing.T, s store.Store) {
			q := newQueue(t)
			add(t, s, withRetries(q, "a", 3))
			stale, current := reclaimed(t, s, q, "a")
			r := failed(stale, o, "late", time.Millisecond)
			r.Retention = long
			err := finish(t, s, r)[0]
			requireErrIs(t, fmt.Sprintf("Finish %s with the token of an earlier claim", o), err, store.ErrLeaseLost)
			requireOwner(t, s, current, "a stale "+o.String())
			finishOK(t, s, outcome(current, store.OutcomeRelease))
			if c := claimOne(t, s, q, "a", long); c.Attempt != current.Attempt || len(c.Errors) != 0 {
				t.Fatalf("claim after a stale %s and the current owner's release: Attempt %d, Errors %+v; want Attempt %d, no error (unchanged)",
					o, c.Attempt, c.Errors, current.Attempt)
			} else {
				finishOK(t, s, outcome(c, store.OutcomeAck))
			}
			requireFree(t, s, q, "a", "the current owner's ack")
		}})
	}
	return cases
}

func testFinishStaleAfterRelease(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(c, store.OutcomeRelease))
	for _, o := range []store.Outcome{store.OutcomeAck, store.OutcomeRetry, store.OutcomeRelease} {
		err := finish(t, s, failed(c, o, "late", 0))[0]
		requireErrIs(t, fmt.Sprintf("Finish %s with the token of a released claim", o), err, store.ErrLeaseLost)
	}
	if r := claimOne(t, s, q, "a", long); r.Attempt != 1 || len(r.Errors) != 0 {
		t.Fatalf("released job claimed after stale finishes: Attempt %d, Errors %+v; want Attempt 1, no error (unchanged)", r.Attempt, r.Errors)
	}
}

func testFinishStaleAfterReclaim(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	stale := claimOne(t, s, q, "a", 50*time.Millisecond)
	awaitReclaim(t, s, q)
	err := finish(t, s, outcome(stale, store.OutcomeAck))[0]
	requireErrIs(t, "ack after the lease expired and the job was reclaimed", err, store.ErrLeaseLost)
	current := claimWhenDue(t, s, q, long)
	if current.Attempt != 2 || len(current.Errors) != 1 {
		t.Fatalf("job reclaimed after an expired lease, then acked with the stale token: claimed again with Attempt %d, %d errors; want 2, 1 (the stale ack changed nothing)",
			current.Attempt, len(current.Errors))
	}
	for _, o := range []store.Outcome{store.OutcomeAck, store.OutcomeRetry, store.OutcomeSnooze} {
		err := finish(t, s, failed(stale, o, "late", 0))[0]
		requireErrIs(t, fmt.Sprintf("Finish %s with the token of a reclaimed claim while the job runs again", o), err, store.ErrLeaseLost)
	}
	requireOwner(t, s, current, "stale finishes from the reclaimed worker")
}

// testFinishStaleAckOfDoneJob: an ack with the token of an earlier claim
// of a job that a later claim acked into done is refused: only the ack of
// the claim that put the job in done is taken as applied when sent again.
func testFinishStaleAckOfDoneJob(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	stale, current := reclaimed(t, s, q, "a")
	r := outcome(current, store.OutcomeAck)
	r.Retention, r.Result = long, []byte("current")
	finishOK(t, s, r)
	late := outcome(stale, store.OutcomeAck)
	late.Retention, late.Result = long, []byte("stale")
	requireErrIs(t, "an ack with the token of the claim before the one that acked the job", finish(t, s, late)[0], store.ErrLeaseLost)
	if err := finish(t, s, r)[0]; err != nil {
		t.Fatalf("the acking claim's ack sent again: %v, want nil", err)
	}
}

// testFinishSameClaimTwice: one Finish call that ends the same claim twice
// applies the first request only; the second reports ErrLeaseLost, be it
// another outcome or the same one again, and the job is in exactly one
// state: retry, where the first request put it.
func testFinishSameClaimTwice(t *testing.T, s store.Store) {
	for _, o := range []store.Outcome{store.OutcomeRelease, store.OutcomeRetry, store.OutcomeGarbage} {
		q := newQueue(t)
		add(t, s, withRetries(q, "a", 3))
		c := claimOne(t, s, q, "a", long)
		errs := finish(t, s, failed(c, store.OutcomeRetry, "first", long), failed(c, o, "second", long))
		if errs[0] != nil {
			t.Fatalf("first request: %v, want nil", errs[0])
		}
		requireErrIs(t, fmt.Sprintf("a %s after a retry of the same claim in one call", o), errs[1], store.ErrLeaseLost)
		claimNone(t, s, q, "the job went to retry for an hour, not back to ready")
		requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, fmt.Sprintf("the job retried in an hour (then a %s in the same call)", o))
		requireHeld(t, s, q, "a", "a retry")
	}
}
