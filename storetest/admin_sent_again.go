package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// Ends sent again where Admin moved the job (see finish_again.go): what
// moves it on to ready forgets the claim's end, Cancel of a retried job
// does not.

func sentAgainCases() []adminCase {
	return []adminCase{
		{name: "RetryOfAJobCancelledInRetry", fn: testSentAgainCancelledInRetry},
		{name: "RetryTurnedIntoACancel", fn: testSentAgainRetryTurnedCancel},
		{name: "RetryOfAJobReplacedIntoReady", fn: testSentAgainReplacedIntoReady},
		{name: "AnotherEndOfTheSameClaim", fn: testSentAgainAnotherEnd},
	}
}

// testSentAgainCancelledInRetry: a retry sent again after Cancel moved
// its job from retry to garbage reports nil: the retry applied, and its
// worker's OnRetry is due.
func testSentAgainCancelledInRetry(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	r := failed(claimOne(t, s, q, "a", long), store.OutcomeRetry, "first", long)
	finishOK(t, s, r)
	cancel(t, a, q, "a", store.StateRetry)
	if err := finish(t, s, r)[0]; err != nil {
		t.Fatalf("the retry sent again after Cancel moved its job to garbage: got %v, want nil (it applied)", err)
	}
	if got := getJob(t, a, q, "a"); got.State != store.StateGarbage || !got.Cancelled || len(got.Errors) != 2 {
		t.Fatalf("after the retry sent again: state %s, cancelled %v, %d errors; want garbage, cancelled, 2 (the retry's and the cancel's)",
			got.State, got.Cancelled, len(got.Errors))
	}
}

// testSentAgainRetryTurnedCancel: a retry of a job flagged by Cancel
// while it ran is applied as a cancel; sent again, it reports nil.
func testSentAgainRetryTurnedCancel(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", long)
	cancel(t, a, q, "a", store.StateUnack)
	r := failed(c, store.OutcomeRetry, "first", long)
	finishOK(t, s, r)
	if err := finish(t, s, r)[0]; err != nil {
		t.Fatalf("a retry turned into a cancel, sent again: got %v, want nil (it applied)", err)
	}
	if got := getJob(t, a, q, "a"); got.State != store.StateGarbage || len(got.Errors) != 1 {
		t.Fatalf("after the retry sent again: state %s, %d errors; want garbage and 1", got.State, len(got.Errors))
	}
}

// testSentAgainReplacedIntoReady: a retry sent again after Replace moved
// its job from retry to ready is refused, even once Cancel has put the
// job in garbage: the job moved on before.
func testSentAgainReplacedIntoReady(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	r := failed(claimOne(t, s, q, "a", long), store.OutcomeRetry, "first", long)
	finishOK(t, s, r)
	again := job(q, "a")
	again.Args, again.Replace = []byte("new"), store.ReplaceArgs|store.ReplaceRunAt
	requireReplaced(t, enqueue(t, s, again)[0], "a", store.StateReady)
	cancel(t, a, q, "a", store.StateReady)
	requireErrIs(t, "a retry sent again after Replace moved its job to ready and Cancel to garbage", finish(t, s, r)[0], store.ErrLeaseLost)
}

// testSentAgainAnotherEnd: once a claim's retry applied, that claim's
// death, sent later, is refused, and the other way round: only the same
// end finds the job where it left it. (A retry after the claim's cancel
// is not: a retry of a job flagged by Cancel is applied as a cancel, and
// leaves the job where a cancel does.)
func testSentAgainAnotherEnd(t *testing.T, s store.Store, a store.Admin) {
	for _, tc := range []struct{ first, then store.Outcome }{
		{store.OutcomeRetry, store.OutcomeGarbage},
		{store.OutcomeRetry, store.OutcomeCancel},
		{store.OutcomeGarbage, store.OutcomeRetry},
	} {
		q := newQueue(t)
		add(t, s, withRetries(q, "a", 3))
		c := claimOne(t, s, q, "a", long)
		finishOK(t, s, failed(c, tc.first, "first", time.Hour))
		requireErrIs(t, fmt.Sprintf("a %s after the same claim's %s applied", tc.then, tc.first),
			finish(t, s, failed(c, tc.then, "then", time.Hour))[0], store.ErrLeaseLost)
	}
}
