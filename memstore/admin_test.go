package memstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func TestRequeueAndDelete(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	a := newUnique("a", "ka")
	b := newJob("b")
	mustEnqueue(t, s, a, b)
	c := claim(t, s, 1, time.Minute).Jobs[0] // a
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: "a", Token: c.Token, Outcome: store.OutcomeCancel})
	clock.Advance(time.Second)

	if n, err := s.RequeueJobs(ctx, testQueue, store.StateGarbage, []string{"b", "a", "zz"}); n != 1 || err != nil {
		t.Fatalf("requeue: %d %v, want 1", n, err)
	}
	r := getJob(t, s, "a")
	if r.State != store.StateReady || r.Attempt != 1 || r.Cancelled || !r.FinishedAt.IsZero() || !r.RunAt.Equal(ms(time.Second)) || len(r.Errors) != 1 {
		t.Fatalf("requeued: %+v", r)
	}
	if got := ids(claim(t, s, 2, time.Minute).Jobs); len(got) != 2 || got[0] != "b" || got[1] != "a" {
		t.Fatalf("ready order %v, want b then the requeued a", got)
	}

	// Delete releases the unique key of a waiting job.
	mustEnqueue(t, s, newUnique("x", "kx"))
	if n, err := s.DeleteJobs(ctx, testQueue, store.StateReady, nil); n != 1 || err != nil {
		t.Fatalf("delete: %d %v", n, err)
	}
	if res := mustEnqueue(t, s, newUnique("y", "kx")); res[0].Duplicate {
		t.Fatal("key kx still held after delete")
	}
}

func TestCancelWaitingAndFinishedJobs(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	p := newUnique("p", "kp")
	p.Delay = time.Hour
	mustEnqueue(t, s, p, newJob("r"))
	for _, id := range []string{"p", "r"} {
		prev, err := s.CancelJob(ctx, testQueue, id)
		if err != nil {
			t.Fatal(err)
		}
		r := getJob(t, s, id)
		if r.State != store.StateGarbage || !r.Cancelled || len(r.Errors) != 1 || r.Errors[0].Error != store.ErrCancelled.Error() {
			t.Fatalf("%s after cancel (was %s): %+v", id, prev, r)
		}
	}
	if prev, err := s.CancelJob(ctx, testQueue, "p"); prev != store.StateGarbage || err != nil {
		t.Fatalf("cancel in garbage: %s %v", prev, err)
	}
	if r := getJob(t, s, "p"); len(r.Errors) != 1 {
		t.Fatalf("cancelling again changed the job: %+v", r)
	}
	if res := mustEnqueue(t, s, newUnique("q", "kp")); res[0].Duplicate {
		t.Fatal("key kp still held after cancel")
	}
	if _, err := s.CancelJob(ctx, testQueue, "nope"); !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("cancel unknown: %v", err)
	}
}

func TestCancelledRunningJobReclaimedGoesToGarbage(t *testing.T) {
	s, clock := newClocked()
	j := newJob("a")
	j.MaxRetries = 5
	mustEnqueue(t, s, j)
	claim(t, s, 1, time.Second)
	if _, err := s.CancelJob(context.Background(), testQueue, "a"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	maintain(t, s, store.MaintainOpts{})
	if r := getJob(t, s, "a"); r.State != store.StateGarbage || !r.Cancelled {
		t.Fatalf("after expiry: %+v, want cancelled garbage", r)
	}
}
