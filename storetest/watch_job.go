package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// watchFunc is a WatchJob case: it drives jobs through s and watches them
// through w, the same store as a store.JobWaiter; a is the store as a
// store.Admin, nil when it is not one.
type watchFunc = func(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin)

type watchCase = testCase[watchFunc]

func watchCases() []watchCase {
	return []watchCase{
		{name: "AckKept", fn: testWatchAckKept},
		{name: "AckNotKept", fn: testWatchAckNotKept},
		{name: "Dead", fn: testWatchDead},
		{name: "RetryIsNotTheEnd", fn: testWatchRetry},
		{name: "EndedAndKept", fn: testWatchEnded},
		{name: "ManyWatchers", fn: testWatchMany},
		{name: "CancelWaiting", fn: testWatchCancel},
		{name: "Deleted", fn: testWatchDeleted},
		{name: "UnknownJob", fn: testWatchUnknown},
		{name: "ContextEnds", fn: testWatchContext},
		{name: "InvalidRequests", fn: testWatchInvalid},
	}
}

// watch calls WatchJob or fails the test.
func watch(t *testing.T, w store.JobWaiter, q, id string) <-chan store.JobEnd {
	t.Helper()
	ch, err := w.WatchJob(t.Context(), q, id)
	if err != nil {
		t.Fatalf("WatchJob(%q, %q): unexpected error: %v", q, id, err)
	}
	return ch
}

// awaitEnd returns the end a watch received, failing the test when none
// comes within waitFor or the channel does not close after it.
func awaitEnd(t *testing.T, ch <-chan store.JobEnd, what string) store.JobEnd {
	t.Helper()
	select {
	case end, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the watch's channel closed without an end", what)
		}
		if _, more := <-ch; more {
			t.Fatalf("%s: the watch's channel gave a second end", what)
		}
		return end
	case <-time.After(waitFor):
		t.Fatalf("%s: no end within %v", what, waitFor)
	}
	return store.JobEnd{}
}

// requireEnd fails unless end is the job id in state st, without error.
func requireEnd(t *testing.T, end store.JobEnd, id string, st store.JobState, what string) *store.JobRecord {
	t.Helper()
	if end.Err != nil || end.Job == nil || end.Job.ID != id || end.Job.State != st {
		t.Fatalf("%s: got %+v, want job %q in %s", what, end, id, st)
	}
	return end.Job
}

func testWatchAckKept(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	ch := watch(t, w, q, "a")
	j := claimOne(t, s, q, "a", long)
	r := outcome(j, store.OutcomeAck)
	r.Retention, r.Result = long, []byte("result")
	before := time.Now()
	finishOK(t, s, r)
	rec := requireEnd(t, awaitEnd(t, ch, "watch of a job acked and kept"), "a", store.StateDone, "watch of a job acked and kept")
	if string(rec.Result) != "result" {
		t.Fatalf("watch of a job acked and kept: Result %q, want %q", rec.Result, "result")
	}
	requireNow(t, "FinishedAt of a watched job", rec.FinishedAt, before, time.Now())
}

func testWatchAckNotKept(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	j := claimOne(t, s, q, "a", long)
	ch := watch(t, w, q, "a")
	r := outcome(j, store.OutcomeAck)
	r.Result = []byte("result")
	before := time.Now()
	finishOK(t, s, r)
	rec := requireEnd(t, awaitEnd(t, ch, "watch of a job acked without retention"), "a", store.StateDone, "watch of a job acked without retention")
	if string(rec.Result) != "result" {
		t.Fatalf("watch of a job acked without retention: Result %q, want the worker's %q", rec.Result, "result")
	}
	requireNow(t, "FinishedAt of a job acked without retention", rec.FinishedAt, before, time.Now())
}

func testWatchDead(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	j := claimOne(t, s, q, "a", long)
	ch := watch(t, w, q, "a")
	finishOK(t, s, failed(j, store.OutcomeGarbage, "boom", 0))
	requireEnd(t, awaitEnd(t, ch, "watch of a job that died"), "a", store.StateGarbage, "watch of a job that died")
}

func testWatchRetry(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	q := newQueue(t)
	add(t, s, withRetries(q, "a", 3))
	ch := watch(t, w, q, "a")
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, failed(j, store.OutcomeRetry, "boom", 0))
	j = claimWhenDue(t, s, q, long)
	r := outcome(j, store.OutcomeAck)
	r.Retention = long
	finishOK(t, s, r)
	// A watch that ended at the retry would report the job in retry.
	rec := requireEnd(t, awaitEnd(t, ch, "watch of a job retried, then acked"), "a", store.StateDone, "watch of a job retried, then acked")
	if rec.Attempt != 2 {
		t.Fatalf("watch of a job retried, then acked: Attempt %d, want 2", rec.Attempt)
	}
	// The failed attempt's error, as GetJob gives it: redisstore gave
	// none, memstore the history.
	if len(rec.Errors) != 1 || rec.Errors[0].Error != "boom" || rec.Errors[0].Attempt != 1 {
		t.Fatalf("watch of a job retried, then acked: Errors %+v, want the first attempt's \"boom\"", rec.Errors)
	}
}

func testWatchEnded(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, failed(j, store.OutcomeGarbage, "boom", 0))
	requireEnd(t, awaitEnd(t, watch(t, w, q, "a"), "watch of a dead job"), "a", store.StateGarbage, "watch of a dead job")
}

func testWatchMany(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	chs := []<-chan store.JobEnd{watch(t, w, q, "a"), watch(t, w, q, "a"), watch(t, w, q, "a")}
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(j, store.OutcomeAck))
	for _, ch := range chs {
		requireEnd(t, awaitEnd(t, ch, "one of three watches of a job"), "a", store.StateDone, "one of three watches of a job")
	}
}

func testWatchCancel(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	add(t, s, job(q, "a"))
	ch := watch(t, w, q, "a")
	cancel(t, a, q, "a", store.StateReady)
	if rec := requireEnd(t, awaitEnd(t, ch, "watch of a cancelled job"), "a", store.StateGarbage, "watch of a cancelled job"); !rec.Cancelled {
		t.Fatal("watch of a cancelled job: Cancelled false, want true")
	}
}

func testWatchDeleted(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	add(t, s, delayed(q, "a", long))
	ch := watch(t, w, q, "a")
	if n, err := a.DeleteJobs(t.Context(), q, store.StatePending, []string{"a"}); err != nil || n != 1 {
		t.Fatalf("Delete of the watched job: %d, %v; want 1, nil", n, err)
	}
	end := awaitEnd(t, ch, "watch of a deleted job")
	if end.Job != nil || !errors.Is(end.Err, store.ErrJobNotFound) {
		t.Fatalf("watch of a deleted job: %+v, want an error wrapping ErrJobNotFound", end)
	}
}

func testWatchUnknown(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	q := newQueue(t)
	_, err := w.WatchJob(t.Context(), q, "nobody")
	requireErrIs(t, "WatchJob of a job never enqueued", err, store.ErrJobNotFound)
	add(t, s, job(q, "a"))
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(j, store.OutcomeAck))
	_, err = w.WatchJob(t.Context(), q, "a")
	requireErrIs(t, "WatchJob of a job acked without retention before", err, store.ErrJobNotFound)
}

func testWatchContext(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	q := newQueue(t)
	add(t, s, job(q, "a"))
	ctx, cancel := context.WithCancel(t.Context())
	ch, err := w.WatchJob(ctx, q, "a")
	if err != nil {
		t.Fatalf("WatchJob: %v", err)
	}
	cancel()
	if end := awaitEnd(t, ch, "watch whose context was cancelled"); !errors.Is(end.Err, context.Canceled) || end.Job != nil {
		t.Fatalf("watch whose context was cancelled: %+v, want context.Canceled", end)
	}
}

func testWatchInvalid(t *testing.T, s store.Store, w store.JobWaiter, a store.Admin) {
	_, err := w.WatchJob(t.Context(), "bad queue", "a")
	requireErrIs(t, "WatchJob of an invalid queue name", err, store.ErrInvalidQueue)
	_, err = w.WatchJob(t.Context(), newQueue(t), "")
	requireErrIs(t, "WatchJob of an empty ID", err, store.ErrInvalidJob)
}
