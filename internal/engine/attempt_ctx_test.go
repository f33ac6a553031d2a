package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// A handler that only polls Err, never calling Done, still sees its
// deadline once it passed, with the timeout's cause.
func TestAttemptCtxDeadlineWithoutDone(t *testing.T) {
	cause := timeoutCause(time.Second)
	a := &attempt{}
	ctx := newAttemptCtx(context.Background(), a, time.Now().Add(-time.Millisecond), cause)
	defer ctx.stop()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err past the deadline: %v, want context.DeadlineExceeded", ctx.Err())
	}
	if got := context.Cause(ctx); got != cause {
		t.Fatalf("Cause past the deadline: %v, want %v", got, cause)
	}
	select {
	case <-ctx.Done():
	default:
		t.Fatal("Done is open past the deadline")
	}
	if attemptOf(ctx) != a {
		t.Fatal("the attempt is not the context's value")
	}

	// Cause alone, before Err or Done, reads the deadline's cause too.
	ctx2 := newAttemptCtx(context.Background(), a, time.Now().Add(-time.Millisecond), cause)
	defer ctx2.stop()
	if got := context.Cause(ctx2); got != cause {
		t.Fatalf("Cause asked first past the deadline: %v, want %v", got, cause)
	}
}

// Within its deadline the context is live, reports the deadline and the
// parent's values, and its Done closes when the deadline comes.
func TestAttemptCtxWithinDeadline(t *testing.T) {
	parent := context.WithValue(context.Background(), ctxTestKey{}, "base")
	dl := time.Now().Add(time.Hour)
	ctx := newAttemptCtx(parent, &attempt{}, dl, timeoutCause(time.Hour))
	defer ctx.stop()
	if ctx.Err() != nil || context.Cause(ctx) != nil {
		t.Fatalf("live attempt: Err %v, Cause %v", ctx.Err(), context.Cause(ctx))
	}
	if d, ok := ctx.Deadline(); !ok || !d.Equal(dl) {
		t.Fatalf("Deadline %v, %v; want %v", d, ok, dl)
	}
	if ctx.Value(ctxTestKey{}) != "base" {
		t.Fatal("the parent's value is lost")
	}
	// A parent's earlier deadline wins, as with context.WithDeadline.
	early := time.Now().Add(time.Minute)
	p2, cancel := context.WithDeadline(context.Background(), early)
	defer cancel()
	ctx2 := newAttemptCtx(p2, &attempt{}, dl, nil)
	defer ctx2.stop()
	if d, ok := ctx2.Deadline(); !ok || !d.Equal(early) {
		t.Fatalf("Deadline under an earlier parent's %v: %v, %v", early, d, ok)
	}
	// Without a timeout there is no deadline.
	ctx3 := newAttemptCtx(context.Background(), &attempt{}, time.Time{}, nil)
	defer ctx3.stop()
	if _, ok := ctx3.Deadline(); ok {
		t.Fatal("an attempt without a timeout has a deadline")
	}
}

// An interrupt (the parent cancelled with a cause) reaches the context
// and its children, whether Done was asked before or after it.
func TestAttemptCtxInterrupt(t *testing.T) {
	for _, doneFirst := range []bool{false, true} {
		parent, cancel := context.WithCancelCause(context.Background())
		ctx := newAttemptCtx(parent, &attempt{}, time.Now().Add(time.Hour), timeoutCause(time.Hour))
		var child context.Context
		if doneFirst {
			_ = ctx.Done()
			var stopChild context.CancelFunc
			child, stopChild = context.WithCancel(ctx)
			defer stopChild()
		}
		lost := errors.New("lease lost")
		cancel(lost)
		if !errors.Is(ctx.Err(), context.Canceled) || context.Cause(ctx) != lost {
			t.Fatalf("doneFirst %v: Err %v, Cause %v; want context.Canceled and %v", doneFirst, ctx.Err(), context.Cause(ctx), lost)
		}
		<-ctx.Done()
		if child != nil {
			<-child.Done()
			if context.Cause(child) != lost {
				t.Fatalf("child's cause %v, want %v", context.Cause(child), lost)
			}
		}
		ctx.stop()
	}
}

// The attempt's end cancels its context, and what was derived from it,
// as the cancel function of context.WithCancel does; a context asked for
// after the end is already cancelled.
func TestAttemptCtxStop(t *testing.T) {
	ctx := newAttemptCtx(context.Background(), &attempt{}, time.Time{}, nil)
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	fired := make(chan struct{})
	context.AfterFunc(ctx, func() { close(fired) })
	ctx.stop()
	<-child.Done()
	<-fired
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Fatalf("Err after the end: %v, want context.Canceled", ctx.Err())
	}

	late := newAttemptCtx(context.Background(), &attempt{}, time.Now().Add(time.Hour), nil)
	late.stop()
	if !errors.Is(late.Err(), context.Canceled) {
		t.Fatalf("Err after the end, nothing asked before: %v, want context.Canceled", late.Err())
	}
	select {
	case <-late.Done():
	default:
		t.Fatal("Done asked after the end is open")
	}
}

// Goroutines of a handler may use the context while the attempt ends
// (run with -race).
func TestAttemptCtxConcurrent(t *testing.T) {
	ctx := newAttemptCtx(context.Background(), &attempt{}, time.Now().Add(time.Hour), nil)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if i%2 == 0 {
				<-ctx.Done()
			}
			for ctx.Err() == nil {
				_ = ctx.Value(ctxTestKey{})
			}
		})
	}
	ctx.stop()
	wg.Wait()
}

// The two shapes of an attempt's context: the context package's timer
// context over a value context, and attemptCtx, each made, given a value
// lookup and ended, as a no-op handler's attempt does.
func BenchmarkAttemptContext(b *testing.B) {
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := &attempt{}
	cause := timeoutCause(time.Minute)
	b.Run("context-package", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ctx, stop := context.WithDeadlineCause(context.WithValue(parent, attemptKey{}, a), time.Now().Add(time.Minute), cause)
			_ = attemptOf(ctx)
			stop()
		}
	})
	b.Run("attemptCtx", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ctx := newAttemptCtx(parent, a, time.Now().Add(time.Minute), cause)
			_ = attemptOf(ctx)
			ctx.stop()
		}
	})
}
