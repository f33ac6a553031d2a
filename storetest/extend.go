package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func extendCases() []testCase {
	return []testCase{
		{name: "PushesDeadline", fn: testExtendPushes},
		{name: "KeepsLeaseAlive", fn: testExtendKeepsAlive},
		{name: "StaleToken", fn: testExtendStale},
		{name: "StaleAfterReclaim", fn: testExtendStaleAfterReclaim},
		{name: "AfterAck", fn: testExtendAfterAck},
		{name: "UnknownJob", fn: testExtendUnknown},
		{name: "BatchSeveralQueues", fn: testExtendBatch},
		{name: "CancelFlag", fn: testExtendCancelFlag},
		{name: "CancelledThenRetryGoesToGarbage", fn: testExtendCancelledRetry},
	}
}

// extend calls Store.Extend and fails on an error or a wrong number of
// statuses.
func extend(t *testing.T, s store.Store, lease time.Duration, refs ...store.LeaseRef) []store.LeaseStatus {
	t.Helper()
	st, err := s.Extend(t.Context(), refs, lease)
	if err != nil {
		t.Fatalf("Extend(%d refs, %v): unexpected error: %v", len(refs), lease, err)
	}
	if len(st) != len(refs) {
		t.Fatalf("Extend(%d refs) returned %d statuses, want one per ref", len(refs), len(st))
	}
	return st
}

func ref(j *store.JobRecord) store.LeaseRef {
	return store.LeaseRef{Queue: j.Queue, ID: j.ID, Token: j.Token}
}

func testExtendPushes(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	c := claimOne(t, s, q, "a", time.Minute)
	before := time.Now()
	st := extend(t, s, long, ref(c))[0]
	after := time.Now()
	if !st.Held || st.Cancel {
		t.Fatalf("Extend of a live lease: %+v, want Held and not Cancel", st)
	}
	requireNow(t, "Deadline after Extend by 1h, minus 1h", st.Deadline.Add(-long), before, after)
	if !st.Deadline.After(c.Deadline) {
		t.Fatalf("Extend by 1h of a 1m lease: deadline %v, want after the old %v", st.Deadline, c.Deadline)
	}
	g := requireState(t, s, q, "a", store.StateUnack)
	if !g.Deadline.Equal(st.Deadline) || g.Token != c.Token || g.Attempt != 1 {
		t.Fatalf("GetJob after Extend: Deadline %v, Token %d, Attempt %d; want %v, %d, 1", g.Deadline, g.Token, g.Attempt, st.Deadline, c.Token)
	}
}

func testExtendKeepsAlive(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "kept", 3), withRetries(q, "dropped", 3))
	cs := claim(t, s, q, 2, 100*time.Millisecond).Jobs
	if len(cs) != 2 {
		t.Fatalf("Claim Max 2: got %d jobs, want 2", len(cs))
	}
	kept, dropped := cs[0], cs[1]
	if st := extend(t, s, long, ref(kept))[0]; !st.Held {
		t.Fatalf("Extend right after the claim: %+v, want Held", st)
	}
	testutil.Eventually(t, waitFor, func() error {
		maintain(t, s, q, store.MaintainOptions{})
		if j := getJob(t, s, q, dropped.ID); j.State == store.StateUnack {
			return fmt.Errorf("job with an expired 100ms lease is still unack, want it reclaimed by Maintain")
		}
		return nil
	})
	if j := getJob(t, s, q, kept.ID); j.State != store.StateUnack || j.Token != kept.Token {
		t.Fatalf("job whose lease was extended by 1h: state %s, token %d after its original lease expired; want unack, token %d",
			j.State, j.Token, kept.Token)
	}
	finishOK(t, s, outcome(kept, store.OutcomeAck))
}

func testExtendStale(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	stale, current := reclaimed(t, s, q, "a")
	if st := extend(t, s, 2*long, ref(stale))[0]; st.Held {
		t.Fatalf("Extend with the token of an earlier claim: %+v, want Held false", st)
	}
	requireOwner(t, s, current, "a stale Extend")
}

func testExtendStaleAfterReclaim(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", 50*time.Millisecond)
	before, _ := awaitReclaim(t, s, q, "a")
	requireReclaimedToRetry(t, before)
	if st := extend(t, s, long, ref(c))[0]; st.Held {
		t.Fatalf("Extend after the lease expired and the job was reclaimed: %+v, want Held false", st)
	}
	requireState(t, s, q, "a", before.State)
}

func testExtendAfterAck(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"), job(q, "b"))
	a := claimOne(t, s, q, "a", long)
	b := claimOne(t, s, q, "b", long)
	r := outcome(b, store.OutcomeAck)
	r.Retention = long
	finishOK(t, s, outcome(a, store.OutcomeAck), r)
	st := extend(t, s, long, ref(a), ref(b))
	if st[0].Held || st[1].Held {
		t.Fatalf("Extend after ack (deleted, kept in done): %+v, want Held false for both", st)
	}
	requireGone(t, s, q, "a", "ack then Extend")
	requireState(t, s, q, "b", store.StateDone)
}

func testExtendUnknown(t *testing.T, s store.Store) {
	q := newQueue(t)
	if st := extend(t, s, long, store.LeaseRef{Queue: q, ID: "never-enqueued", Token: 1})[0]; st.Held {
		t.Fatalf("Extend of a job that does not exist: %+v, want Held false", st)
	}
	requireGone(t, s, q, "never-enqueued", "Extend of an unknown job")
}

func testExtendBatch(t *testing.T, s store.Store) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, job(q1, "a"), job(q2, "b"), job(q1, "c"))
	a := claimOne(t, s, q1, "a", time.Minute)
	b := claimOne(t, s, q2, "b", time.Minute)
	stale, c := reclaimed(t, s, q1, "c")
	if st, err := adm(t, s).Cancel(t.Context(), q2, "b"); err != nil || st != store.StateUnack {
		t.Fatalf("Cancel of running job b: got %s, %v; want unack, nil", st, err)
	}
	st := extend(t, s, long, ref(a), ref(stale), ref(b), store.LeaseRef{Queue: q2, ID: "missing", Token: b.Token}, ref(c))
	want := []struct{ held, cancel bool }{{true, false}, {false, false}, {true, true}, {false, false}, {true, false}}
	for i, w := range want {
		if st[i].Held != w.held || st[i].Held && st[i].Cancel != w.cancel {
			t.Fatalf("Extend batch status %d: %+v, want Held %v, Cancel %v (one status per ref, in order)", i, st[i], w.held, w.cancel)
		}
	}
}

func testExtendCancelFlag(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	c := claimOne(t, s, q, "a", long)
	if st := extend(t, s, long, ref(c))[0]; !st.Held || st.Cancel {
		t.Fatalf("Extend before Cancel: %+v, want Held and not Cancel", st)
	}
	if st, err := adm(t, s).Cancel(t.Context(), q, "a"); err != nil || st != store.StateUnack {
		t.Fatalf("Cancel of a running job: got %s, %v; want unack, nil", st, err)
	}
	if st := extend(t, s, long, ref(c))[0]; !st.Held || !st.Cancel {
		t.Fatalf("Extend after Cancel of the running job: %+v, want Held and Cancel", st)
	}
	if g := requireState(t, s, q, "a", store.StateUnack); !g.Cancelled || g.Token != c.Token {
		t.Fatalf("running job after Cancel: Cancelled %v, Token %d; want Cancelled, token %d (still running until its worker finishes it)", g.Cancelled, g.Token, c.Token)
	}
}

func testExtendCancelledRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	c := claimOne(t, s, q, "a", long)
	if _, err := adm(t, s).Cancel(t.Context(), q, "a"); err != nil {
		t.Fatalf("Cancel of a running job: unexpected error: %v", err)
	}
	finishOK(t, s, failed(c, store.OutcomeRetry, "failed while being cancelled", time.Millisecond))
	g := requireState(t, s, q, "a", store.StateGarbage)
	if !g.Cancelled {
		t.Fatalf("cancelled job after a retry outcome: Cancelled false, want true")
	}
	maintain(t, s, q, store.MaintainOptions{})
	claimNone(t, s, q, "a cancelled job is never retried")
}
