package storetest

import (
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func cancelCases() []adminCase {
	var in, then []adminCase
	for _, ps := range putStates {
		in = append(in, adminCase{name: ps.name, fn: func(t *testing.T, s store.Store, a store.Admin) { testCancelIn(t, s, a, ps.state) }})
	}
	for _, o := range finishOutcomes {
		// A worker sends an error with the outcomes that record one
		// (retry, garbage, cancel), none with the others.
		msg := ""
		if o == store.OutcomeRetry || o == store.OutcomeGarbage || o == store.OutcomeCancel {
			msg = "failed while being cancelled"
		}
		then = append(then, adminCase{name: outcomeName(o), fn: func(t *testing.T, s store.Store, a store.Admin) {
			testCancelThenFinish(t, s, a, o, msg)
		}})
	}
	then = append(then,
		adminCase{name: "RetryWithoutError", fn: func(t *testing.T, s store.Store, a store.Admin) {
			testCancelThenFinish(t, s, a, store.OutcomeRetry, "")
		}},
		adminCase{name: "CancelWithoutError", fn: func(t *testing.T, s store.Store, a store.Admin) {
			testCancelThenFinish(t, s, a, store.OutcomeCancel, "")
		}},
		// Snooze and release carry no error (AttemptEnd.Error is
		// recorded for retry, garbage and cancel): one sent anyway is
		// ignored, and the job dies with ErrCancelled's text.
		adminCase{name: "SnoozeWithStrayError", fn: func(t *testing.T, s store.Store, a store.Admin) {
			testCancelThenFinishStray(t, s, a, store.OutcomeSnooze)
		}},
		adminCase{name: "ReleaseWithStrayError", fn: func(t *testing.T, s store.Store, a store.Admin) {
			testCancelThenFinishStray(t, s, a, store.OutcomeRelease)
		}},
	)
	return []adminCase{
		{name: "In", sub: in},
		{name: "UnknownJob", fn: testCancelUnknown},
		{name: "ReportedByExtend", fn: testCancelExtendFlag},
		{name: "ReportedInExtendBatch", fn: testCancelExtendBatch},
		{name: "FlaggedThenFinished", sub: then},
		{name: "FlaggedThenReclaimed", fn: testCancelThenReclaimed},
	}
}

func testCancelIn(t *testing.T, s store.Store, a store.Admin, st store.JobState) {
	q := newQueue(t)
	before := put(t, s, a, withRetries(q, "a", 3), st)
	start := time.Now()
	got, err := a.CancelJob(t.Context(), q, "a")
	if err != nil || got != st {
		t.Fatalf("Cancel of a job in %s: got %q, %v; want %q, nil", st, got, err, st)
	}
	after := getJob(t, a, q, "a")
	switch st {
	case store.StatePending, store.StateReady, store.StateRetry:
		if after.State != store.StateGarbage || !after.Cancelled {
			t.Fatalf("job cancelled while waiting in %s: state %s, Cancelled %v; want garbage, Cancelled", st, after.State, after.Cancelled)
		}
		requireNow(t, "FinishedAt of a cancelled job", after.FinishedAt, start, time.Now())
		maintain(t, s, q, store.MaintainOpts{})
		claimNone(t, s, q, "the job was cancelled")
	case store.StateUnack:
		if after.State != store.StateUnack || !after.Cancelled || after.Token != before.Token {
			t.Fatalf("running job after Cancel: state %s, Cancelled %v, token %d; want unack, Cancelled, token %d (its worker finishes it)",
				after.State, after.Cancelled, after.Token, before.Token)
		}
	case store.StateGarbage, store.StateDone:
		if after.State != st || after.Cancelled || len(after.Errors) != len(before.Errors) || !after.FinishedAt.Equal(before.FinishedAt) {
			t.Fatalf("Cancel of a job in %s changed it: %+v, was %+v", st, after, before)
		}
	}
}

func testCancelUnknown(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	_, err := a.CancelJob(t.Context(), q, "never-enqueued")
	requireErrIs(t, "Cancel of a job that does not exist", err, store.ErrJobNotFound)
}

func testCancelExtendFlag(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	c := claimOne(t, s, q, "a", long)
	if st := extend(t, s, long, ref(c))[0]; !st.Held || st.Cancel {
		t.Fatalf("Extend before Cancel: %+v, want Held and not Cancel", st)
	}
	cancel(t, a, q, "a", store.StateUnack)
	if st := extend(t, s, long, ref(c))[0]; !st.Held || !st.Cancel {
		t.Fatalf("Extend after Cancel of the running job: %+v, want Held and Cancel", st)
	}
	if g := requireState(t, a, q, "a", store.StateUnack); !g.Cancelled || g.Token != c.Token {
		t.Fatalf("running job after Cancel: Cancelled %v, Token %d; want Cancelled, token %d (still running until its worker finishes it)", g.Cancelled, g.Token, c.Token)
	}
}

func testCancelExtendBatch(t *testing.T, s store.Store, a store.Admin) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, job(q1, "a"), job(q2, "b"), job(q1, "c"))
	ca := claimOne(t, s, q1, "a", time.Minute)
	b := claimOne(t, s, q2, "b", time.Minute)
	stale, c := reclaimed(t, s, q1, "c")
	cancel(t, a, q2, "b", store.StateUnack)
	st := extend(t, s, long, ref(ca), ref(stale), ref(b), store.LeaseRef{Queue: q2, ID: "missing", Token: b.Token}, ref(c))
	want := []struct{ held, cancel bool }{{true, false}, {false, false}, {true, true}, {false, false}, {true, false}}
	for i, w := range want {
		if st[i].Held != w.held || st[i].Held && st[i].Cancel != w.cancel {
			t.Fatalf("Extend batch status %d: %+v, want Held %v, Cancel %v (one status per ref, in order)", i, st[i], w.held, w.cancel)
		}
	}
}

// testCancelThenFinish: a running job flagged by Cancel and then finished
// with o ends as o.OnCancelled says: retry, snooze and release become a
// cancel (to garbage, marked cancelled, never run again), recording the
// request's error, or ErrCancelled's text when it has none; ack and garbage
// apply as sent.
func testCancelThenFinish(t *testing.T, s store.Store, a store.Admin, o store.Outcome, msg string) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	c := claimOne(t, s, q, "a", long)
	cancel(t, a, q, "a", store.StateUnack)
	r := outcome(c, o)
	r.Delay = time.Millisecond
	if msg != "" {
		r.Error = &store.AttemptError{Attempt: c.Attempt, Error: msg}
	}
	start := time.Now()
	finishOK(t, s, r)
	end := time.Now()
	if o == store.OutcomeAck {
		requireNotFound(t, a, q, "a", "a job flagged by Cancel and then acked without a retention")
		return
	}
	g := requireState(t, a, q, "a", store.StateGarbage)
	wantErr := msg
	if wantErr == "" {
		wantErr = store.ErrCancelled.Error()
	}
	if !g.Cancelled || len(g.Errors) != 1 || g.Errors[0].Error != wantErr || g.Errors[0].Attempt != 1 {
		t.Fatalf("job flagged by Cancel, then finished with %s (error %q): Cancelled %v, Errors %+v; want Cancelled and one error {Attempt 1, %q}",
			o, msg, g.Cancelled, g.Errors, wantErr)
	}
	requireNow(t, "FinishedAt of a job flagged by Cancel, then finished", g.FinishedAt, start, end)
	maintain(t, s, q, store.MaintainOpts{})
	claimNone(t, s, q, "a cancelled job never runs again")
	requireState(t, a, q, "a", store.StateGarbage)
}

// testCancelThenFinishStray finishes a job flagged by Cancel with o
// (snooze or release) and an error, which the store must not record.
func testCancelThenFinishStray(t *testing.T, s store.Store, a store.Admin, o store.Outcome) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	c := claimOne(t, s, q, "a", long)
	cancel(t, a, q, "a", store.StateUnack)
	r := outcome(c, o)
	r.Error = &store.AttemptError{Attempt: c.Attempt, Error: "stray"}
	finishOK(t, s, r)
	g := requireState(t, a, q, "a", store.StateGarbage)
	if !g.Cancelled || len(g.Errors) != 1 || g.Errors[0].Error != store.ErrCancelled.Error() {
		t.Fatalf("job flagged by Cancel, then finished with %s and a stray error: Cancelled %v, Errors %+v; want one error %q",
			o, g.Cancelled, g.Errors, store.ErrCancelled)
	}
}

// testCancelThenReclaimed: a running job flagged by Cancel whose lease
// expires goes to garbage when reclaimed, attempts left or not.
func testCancelThenReclaimed(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 5))
	claimOne(t, s, q, "a", 50*time.Millisecond)
	cancel(t, a, q, "a", store.StateUnack)
	awaitReclaim(t, s, q)
	g := requireState(t, a, q, "a", store.StateGarbage)
	if !g.Cancelled || len(g.Errors) != 1 || g.Errors[0].Error != store.ErrLeaseExpired.Error() {
		t.Fatalf("job flagged by Cancel whose lease expired, reclaimed: Cancelled %v, Errors %+v; want Cancelled, one error %q",
			g.Cancelled, g.Errors, store.ErrLeaseExpired)
	}
	claimNone(t, s, q, "a cancelled job never runs again")
}
