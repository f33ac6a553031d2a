package engine

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// An interrupt reaches the attempt it was meant for, with its cause, and
// never the attempt the same executor runs next.
func TestSlotCtxInterruptStaysWithItsAttempt(t *testing.T) {
	base := context.WithoutCancel(context.WithValue(context.Background(), ctxTestKey{}, "base"))
	slot := newSlotCtx(base)
	cause := errors.New("lease lost")

	a1 := &attempt{}
	p1 := slot.begin(a1)
	int1 := func(c error) { slot.interrupt(a1, c) }
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
	p2 := slot.begin(a2)
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
	slot.begin(a3)
	int3 := func(c error) { slot.interrupt(a3, c) }
	slot.end()
	int3(cause)
	p4 := slot.begin(&attempt{})
	if p4.Err() != nil {
		t.Fatalf("the next attempt starts cancelled: %v", context.Cause(p4))
	}
}

type ctxTestKey struct{}

// The wiring runAttempt uses: an interrupt that came before the attempt's
// cancel was set still cancels it, with the attempt's cause; a slot whose
// attempt was not interrupted hands the next attempt the same parent (the
// saving), one whose attempt was interrupted a new one.
func TestSlotCtxWithAttempts(t *testing.T) {
	slot := newSlotCtx(context.WithoutCancel(context.Background()))

	a1 := &attempt{}
	p1 := slot.begin(a1)
	ctx1, stop1 := context.WithCancel(context.WithValue(p1, attemptKey{}, a1))
	a1.interrupt(stopCancelled) // before setSlot, as a cancellation racing the start
	a1.setSlot(slot)
	<-ctx1.Done()
	if !errors.Is(context.Cause(ctx1), store.ErrCancelled) {
		t.Fatalf("cause %v, want %v", context.Cause(ctx1), store.ErrCancelled)
	}
	stop1()
	slot.end()

	a2 := &attempt{}
	p2 := slot.begin(a2)
	if p2 == p1 {
		t.Fatal("an interrupted slot handed its cancelled parent to the next attempt")
	}
	a2.setSlot(slot)
	slot.end()
	a2.interrupt(stopShutdown) // after it returned: nothing to cancel
	p3 := slot.begin(&attempt{})
	if p3 != p2 || p3.Err() != nil {
		t.Fatalf("a slot whose attempt was not interrupted while it ran: parent reused %v, Err %v; want reused, nil", p3 == p2, p3.Err())
	}
	slot.end()
}

// Interrupts of attempts that already returned, racing the executor's next
// attempts, never cancel a running one (run with -race).
func TestSlotCtxLateInterruptsRace(t *testing.T) {
	slot := newSlotCtx(context.WithoutCancel(context.Background()))
	ended := make(chan func(error), 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for f := range ended {
			f(errors.New("late"))
		}
	}()
	for range 2000 {
		a := &attempt{}
		p := slot.begin(a)
		interrupt := func(c error) { slot.interrupt(a, c) }
		ctx, stop := context.WithCancel(context.WithValue(p, attemptKey{}, a))
		if err := ctx.Err(); err != nil {
			t.Fatalf("an attempt started cancelled: %v", context.Cause(ctx))
		}
		runtime.Gosched() // let late interrupts land while it runs
		if err := ctx.Err(); err != nil {
			t.Fatalf("a late interrupt cancelled a running attempt: %v", context.Cause(ctx))
		}
		stop()
		slot.end()
		ended <- interrupt
	}
	close(ended)
	<-done
}
