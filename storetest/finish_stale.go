package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// reclaimed claims id and returns that stale claim together with the
// current one, after releasing the first and claiming again.
func reclaimed(t *testing.T, s hopper.Store, q, id string) (stale, current *hopper.JobRecord) {
	t.Helper()
	stale = claimOne(t, s, q, id, long)
	finishOK(t, s, outcome(stale, hopper.OutcomeRelease))
	current = claimOne(t, s, q, id, long)
	if current.Token == stale.Token {
		t.Fatalf("second claim of %q reused token %d", id, stale.Token)
	}
	return stale, current
}

// requireOwner fails unless id is unack under exactly the claim c.
func requireOwner(t *testing.T, s hopper.Store, c *hopper.JobRecord, after string) {
	t.Helper()
	g := requireState(t, s, c.Queue, c.ID, hopper.StateUnack)
	if g.Token != c.Token || !g.Deadline.Equal(c.Deadline) || g.Attempt != c.Attempt || len(g.Errors) != len(c.Errors) {
		t.Fatalf("after %s, the current owner's job changed: Token %d, Deadline %v, Attempt %d, %d errors; want %d, %v, %d, %d errors",
			after, g.Token, g.Deadline, g.Attempt, len(g.Errors), c.Token, c.Deadline, c.Attempt, len(c.Errors))
	}
}

func staleTokenCases() []testCase {
	var cases []testCase
	for _, o := range []hopper.Outcome{hopper.OutcomeAck, hopper.OutcomeRetry, hopper.OutcomeGarbage,
		hopper.OutcomeSnooze, hopper.OutcomeRelease, hopper.OutcomeCancel} {
		name := o.String()
		name = string(name[0]-'a'+'A') + name[1:]
		cases = append(cases, testCase{name: name, fn: func(t *testing.T, s hopper.Store) {
			q := newQueue(t)
			add(t, s, withRetries(q, "a", 3))
			stale, current := reclaimed(t, s, q, "a")
			r := failed(stale, o, "late", time.Millisecond)
			r.Retention = long
			err := finish(t, s, r)[0]
			requireErrIs(t, fmt.Sprintf("Finish %s with the token of an earlier claim", o), err, hopper.ErrLeaseLost)
			requireOwner(t, s, current, "a stale "+o.String())
			finishOK(t, s, outcome(current, hopper.OutcomeAck))
			requireGone(t, s, q, "a", "the current owner's ack")
		}})
	}
	return cases
}

func testFinishStaleAfterRelease(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(c, hopper.OutcomeRelease))
	for _, o := range []hopper.Outcome{hopper.OutcomeAck, hopper.OutcomeRetry, hopper.OutcomeRelease} {
		err := finish(t, s, failed(c, o, "late", 0))[0]
		requireErrIs(t, fmt.Sprintf("Finish %s with the token of a released claim", o), err, hopper.ErrLeaseLost)
	}
	if r := requireState(t, s, q, "a", hopper.StateReady); r.Attempt != 0 || len(r.Errors) != 0 {
		t.Fatalf("released job after stale finishes: Attempt %d, Errors %+v; want unchanged (0, none)", r.Attempt, r.Errors)
	}
}

func testFinishStaleAfterReclaim(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	stale := claimOne(t, s, q, "a", 50*time.Millisecond)
	before, _ := awaitReclaim(t, s, q, "a")
	requireReclaimedToRetry(t, before)
	err := finish(t, s, outcome(stale, hopper.OutcomeAck))[0]
	requireErrIs(t, "ack after the lease expired and the job was reclaimed", err, hopper.ErrLeaseLost)
	if after := getJob(t, s, q, "a"); after.State != before.State || len(after.Errors) != len(before.Errors) {
		t.Fatalf("stale ack changed the reclaimed job: state %s, %d errors; want %s, %d errors",
			after.State, len(after.Errors), before.State, len(before.Errors))
	}
	current := claimWhenDue(t, s, q, long)
	for _, o := range []hopper.Outcome{hopper.OutcomeAck, hopper.OutcomeRetry, hopper.OutcomeSnooze} {
		err := finish(t, s, failed(stale, o, "late", 0))[0]
		requireErrIs(t, fmt.Sprintf("Finish %s with the token of a reclaimed claim while the job runs again", o), err, hopper.ErrLeaseLost)
	}
	requireOwner(t, s, current, "stale finishes from the reclaimed worker")
}

// testFinishSameClaimTwice: one Finish call that ends the same claim twice
// applies the first request only; the second reports ErrLeaseLost, as it
// would in a later call, and the job is in exactly one state.
func testFinishSameClaimTwice(t *testing.T, s hopper.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", long)
	errs := finish(t, s, failed(c, hopper.OutcomeRetry, "first", 0), outcome(c, hopper.OutcomeRelease))
	if errs[0] != nil {
		t.Fatalf("first request: %v, want nil", errs[0])
	}
	requireErrIs(t, "the second request for the same claim in one call", errs[1], hopper.ErrLeaseLost)
	requireCounts(t, s, q, hopper.StateCounts{Retry: 1})
}
