package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func extendCases() []engineCase {
	return []engineCase{
		{name: "PushesDeadline", fn: testExtendPushes},
		{name: "KeepsLeaseAlive", fn: testExtendKeepsAlive},
		{name: "StaleToken", fn: testExtendStale},
		{name: "StaleAfterReclaim", fn: testExtendStaleAfterReclaim},
		{name: "AfterAck", fn: testExtendAfterAck},
		{name: "UnknownJob", fn: testExtendUnknown},
		{name: "BatchSeveralQueues", fn: testExtendBatch},
		{name: "InvalidRefInBatch", fn: testExtendInvalidRef},
		{name: "EmptyBatch", fn: testExtendEmpty},
		{name: "InvalidLease", sub: []engineCase{
			{name: "Zero", fn: func(t *testing.T, s store.Store) { testExtendInvalidLease(t, s, 0) }},
			{name: "Negative", fn: func(t *testing.T, s store.Store) { testExtendInvalidLease(t, s, -time.Second) }},
			{name: "UnderOneMillisecond", fn: func(t *testing.T, s store.Store) { testExtendInvalidLease(t, s, 500*time.Microsecond) }},
		}},
	}
}

func testExtendPushes(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	c := claimOne(t, s, q, "a", time.Minute)
	before := time.Now()
	st := extend(t, s, long, ref(c))[0]
	after := time.Now()
	if !st.Held || st.Cancel || st.Err != nil {
		t.Fatalf("Extend of a live lease: %+v, want Held and not Cancel", st)
	}
	requireNow(t, "Deadline after Extend by 1h, minus 1h", st.Deadline.Add(-long), before, after)
	if !st.Deadline.After(c.Deadline) {
		t.Fatalf("Extend by 1h of a 1m lease: deadline %v, want after the old %v", st.Deadline, c.Deadline)
	}
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, "the only lease extended by 1h")
	finishOK(t, s, outcome(c, store.OutcomeAck))
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
	if sum := awaitReclaim(t, s, q); sum.Reclaimed != 1 {
		t.Fatalf("Maintain reclaimed %d jobs, want 1: only %q's 100ms lease was not extended", sum.Reclaimed, dropped.ID)
	}
	if c := claimWhenDue(t, s, q, long); c.ID != dropped.ID || c.Attempt != 2 {
		t.Fatalf("claim after a lease expired: job %q, Attempt %d; want %q, Attempt 2 (reclaimed)", c.ID, c.Attempt, dropped.ID)
	}
	requireOwner(t, s, kept, "its original 100ms lease expired")
	finishOK(t, s, outcome(kept, store.OutcomeAck))
}

func testExtendStale(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	stale, current := reclaimed(t, s, q, "a")
	if st := extend(t, s, 2*long, ref(stale))[0]; st.Held || st.Err != nil {
		t.Fatalf("Extend with the token of an earlier claim: %+v, want Held false", st)
	}
	// The stale Extend did not push the current lease to two hours.
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, "the current lease of an hour")
	requireOwner(t, s, current, "a stale Extend")
}

func testExtendStaleAfterReclaim(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	c := claimOne(t, s, q, "a", 50*time.Millisecond)
	awaitReclaim(t, s, q)
	if st := extend(t, s, long, ref(c))[0]; st.Held {
		t.Fatalf("Extend after the lease expired and the job was reclaimed: %+v, want Held false", st)
	}
	if again := claimWhenDue(t, s, q, long); again.Attempt != 2 || again.Token == c.Token {
		t.Fatalf("claim of a reclaimed job after a stale Extend: Attempt %d, token %d (stale %d); want Attempt 2, a new token", again.Attempt, again.Token, c.Token)
	}
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
	requireHeld(t, s, q, "b", "an ack with a retention, then Extend")
	requireFree(t, s, q, "a", "ack then Extend")
}

func testExtendUnknown(t *testing.T, s store.Store) {
	q := newQueue(t)
	if st := extend(t, s, long, store.LeaseRef{Queue: q, ID: "never-enqueued", Token: 1})[0]; st.Held || st.Err != nil {
		t.Fatalf("Extend of a job that does not exist: %+v, want Held false", st)
	}
	requireFree(t, s, q, "never-enqueued", "Extend of an unknown job")
}

func testExtendBatch(t *testing.T, s store.Store) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, job(q1, "a"), job(q2, "b"), job(q1, "c"))
	a := claimOne(t, s, q1, "a", time.Minute)
	b := claimOne(t, s, q2, "b", time.Minute)
	stale, c := reclaimed(t, s, q1, "c")
	st := extend(t, s, long, ref(a), ref(stale), ref(b), store.LeaseRef{Queue: q2, ID: "missing", Token: b.Token}, ref(c))
	want := []bool{true, false, true, false, true}
	for i, held := range want {
		if st[i].Held != held || st[i].Cancel || st[i].Err != nil {
			t.Fatalf("Extend batch status %d: %+v, want Held %v, not Cancel (one status per ref, in order)", i, st[i], held)
		}
	}
	requireNextIn(t, maintain(t, s, q2, store.MaintainOpts{}), long, "b's lease extended by 1h")
}

// testExtendInvalidRef: a ref that fails LeaseRef.Validate gets its own
// Err; the other refs of the call are renewed.
func testExtendInvalidRef(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"), job(q, "b"))
	a := claimOne(t, s, q, "a", time.Minute)
	b := claimOne(t, s, q, "b", time.Minute)
	st := extend(t, s, long,
		ref(a),
		store.LeaseRef{Queue: "a b", ID: "a", Token: a.Token},
		store.LeaseRef{Queue: q, ID: "a b", Token: b.Token},
		ref(b))
	requireErrIs(t, `Extend status of a ref with queue "a b"`, st[1].Err, store.ErrInvalidQueue)
	requireErrIs(t, `Extend status of a ref with ID "a b"`, st[2].Err, store.ErrInvalidJob)
	for _, i := range []int{0, 3} {
		if !st[i].Held || st[i].Err != nil || !st[i].Deadline.After(a.Deadline.Add(time.Minute)) {
			t.Fatalf("Extend status %d, a valid ref in a call with invalid ones: %+v, want Held with a deadline an hour away", i, st[i])
		}
	}
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, "both leases extended by 1h")
}

func testExtendEmpty(t *testing.T, s store.Store) {
	st, err := s.Extend(t.Context(), nil, long)
	if err != nil || len(st) != 0 {
		t.Fatalf("Extend(nil): got %v, %v; want no statuses and no error", st, err)
	}
}

// testExtendInvalidLease: a lease below store.MinLease fails the call, and
// no lease changes.
func testExtendInvalidLease(t *testing.T, s store.Store, lease time.Duration) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	c := claimOne(t, s, q, "a", long)
	st, err := s.Extend(t.Context(), []store.LeaseRef{ref(c)}, lease)
	if !errors.Is(err, store.ErrInvalidConfig) {
		t.Fatalf("Extend with lease %v: got %+v, %v; want an error wrapping ErrInvalidConfig", lease, st, err)
	}
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, "the claim's lease of 1h, unchanged")
	requireOwner(t, s, c, "an Extend with an invalid lease")
}
