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

// requireOwner fails unless id is unack under exactly the claim c.
func requireOwner(t *testing.T, s store.Store, c *store.JobRecord, after string) {
	t.Helper()
	g := requireState(t, s, c.Queue, c.ID, store.StateUnack)
	if g.Token != c.Token || !g.Deadline.Equal(c.Deadline) || g.Attempt != c.Attempt || len(g.Errors) != len(c.Errors) {
		t.Fatalf("after %s, the current owner's job changed: Token %d, Deadline %v, Attempt %d, %d errors; want %d, %v, %d, %d errors",
			after, g.Token, g.Deadline, g.Attempt, len(g.Errors), c.Token, c.Deadline, c.Attempt, len(c.Errors))
	}
}

func staleTokenCases() []testCase {
	var cases []testCase
	for _, o := range []store.Outcome{store.OutcomeAck, store.OutcomeRetry, store.OutcomeGarbage,
		store.OutcomeSnooze, store.OutcomeRelease, store.OutcomeCancel} {
		name := o.String()
		name = string(name[0]-'a'+'A') + name[1:]
		cases = append(cases, testCase{name: name, fn: func(t *testing.T, s store.Store) {
			q := newQueue(t)
			add(t, s, withRetries(q, "a", 3))
			stale, current := reclaimed(t, s, q, "a")
			r := failed(stale, o, "late", time.Millisecond)
			r.Retention = long
			err := finish(t, s, r)[0]
			requireErrIs(t, fmt.Sprintf("Finish %s with the token of an earlier claim", o), err, store.ErrLeaseLost)
			requireOwner(t, s, current, "a stale "+o.String())
			finishOK(t, s, outcome(current, store.OutcomeAck))
			requireGone(t, s, q, "a", "the current owner's ack")
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
	if r := requireState(t, s, q, "a", store.StateReady); r.Attempt != 0 || len(r.Errors) != 0 {
		t.Fatalf("released job after stale finishes: Attempt %d, Errors %+v; want unchanged (0, none)", r.Attempt, r.Errors)
	}
}

func testFinishStaleAfterReclaim(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	stale := claimOne(t, s, q, "a", 50*time.Millisecond)
	before, _ := awaitReclaim(t, s, q, "a")
	requireReclaimedToRetry(t, before)
	err := finish(t, s, outcome(stale, store.OutcomeAck))[0]
	requireErrIs(t, "ack after the lease expired and the job was reclaimed", err, store.ErrLeaseLost)
	if after := getJob(t, s, q, "a"); after.State != before.State || len(after.Errors) != len(before.Errors) {
		t.Fatalf("stale ack changed the reclaimed job: state %s, %d errors; want %s, %d errors",
			after.State, len(after.Errors), before.State, len(before.Errors))
	}
	current := claimWhenDue(t, s, q, long)
	for _, o := range []store.Outcome{store.OutcomeAck, store.OutcomeRetry, store.OutcomeSnooze} {
		err := finish(t, s, failed(stale, o, "late", 0))[0]
		requireErrIs(t, fmt.Sprintf("Finish %s with the token of a reclaimed claim while the job runs again", o), err, store.ErrLeaseLost)
	}
	requireOwner(t, s, current, "stale finishes from the reclaimed worker")
}

// testFinishSameClaimTwice: one Finish call that ends the same claim twice
// applies the first request only; the second reports ErrLeaseLost, as it
// would in a later call, and the job is in exactly one state.
func testFinishSameClaimTwice(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", long)
	errs := finish(t, s, failed(c, store.OutcomeRetry, "first", 0), outcome(c, store.OutcomeRelease))
	if errs[0] != nil {
		t.Fatalf("first request: %v, want nil", errs[0])
	}
	requireErrIs(t, "the second request for the same claim in one call", errs[1], store.ErrLeaseLost)
	requireCounts(t, s, q, store.StateCounts{Retry: 1})
}
