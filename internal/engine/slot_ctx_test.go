package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// An interrupt reaches the attempt it was meant for, with its cause, and
// never the attempt the same executor runs next.
func TestSlotCtxInterruptStaysWithItsAttempt(t *testing.T) {
	base := context.WithoutCancel(context.WithValue(context.Background(), ctxTestKey{}, "base"))
	slot := newSlotCtx(base)
	cause := errors.New("lease lost")

	a1 := &attempt{}
	p1, int1 := slot.begin(a1)
	ctx1, stop1 := context.WithDeadlineCause(context.WithValue(p1, attemptKey{}, a1), time.Now().Add(time.Hour), timeoutCause(time.Hour))
	int1(cause)
	<-ctx1.Done()
	if !errors.Is(ctx1.Err(), context.Canceled) || context.Cause(ctx1) != cause {
		t.Fatalf("interrupted attempt: Err %v, Cause %v; want context.Canceled and %v", ctx1.Err(), context.Cause(ctx1), cause)
	}
	if d, ok := ctx1.Deadline(); !ok || time.Until(d) < 59*time.Minute {
		t.Fatalf("attempt's deadline %v, %v: want its timeout's", d, ok)
	}
	stop1()
	slot.end()

	a2 := &attempt{}
	p2, _ := slot.begin(a2)
	ctx2, stop2 := context.WithCancel(context.WithValue(p2, attemptKey{}, a2))
	defer stop2()
	if ctx2.Err() != nil {
		t.Fatalf("the next attempt starts cancelled: %v", context.Cause(ctx2))
	}
	int1(cause) // late: a1 no longer runs
	if ctx2.Err() != nil {
		t.Fatalf("a late interrupt of the previous attempt cancelled the next: %v", context.Cause(ctx2))
	}
	if attemptOf(ctx2) != a2 || ctx2.Value(ctxTestKey{}) != "base" {
		t.Fatal("the attempt's context lost its attempt or the worker's values")
	}
	slot.end()

	// An interrupt that comes after the handler returned, before the next
	// attempt, leaves the next one a fresh context too.
	a3 := &attempt{}
	_, int3 := slot.begin(a3)
	slot.end()
	int3(cause)
	p4, _ := slot.begin(&attempt{})
	if p4.Err() != nil {
		t.Fatalf("the next attempt starts cancelled: %v", context.Cause(p4))
	}
}

type ctxTestKey struct{}
