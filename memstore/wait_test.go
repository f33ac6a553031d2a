package memstore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// forever is a wait timeout no test outlives: a wait that returns did so
// because it was woken.
const forever = time.Hour

// waiting reports whether some goroutine is blocked in WaitReady (or, with
// sched, WaitSchedule) on queue name.
func waiting(s *Store, name string, sched bool) bool {
	return anyWaiter(s, sched, func(w *waiter) bool { return w.queues[name] != nil })
}

// signalled reports whether a blocked WaitReady (or, with sched,
// WaitSchedule) call on the named queue was handed its signal: the hub
// records it in the waiter while the call that raised it still holds the
// hub's lock, before the waiter wakes.
func signalled(s *Store, name string, sched bool) bool {
	return anyWaiter(s, sched, func(w *waiter) bool { return slices.Contains(w.got, name) })
}

// anyWaiter reports whether one of the waiters of s's ready hub (or, with
// sched, its schedule hub) satisfies match, under the hub's lock.
func anyWaiter(s *Store, sched bool, match func(*waiter) bool) bool {
	h := &s.readyHub
	if sched {
		h = &s.schedHub
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for w := range h.waiters {
		if match(w) {
			return true
		}
	}
	return false
}

// goWait runs wait in a goroutine and returns a channel that receives the
// queues it returned; it fails the test if wait returns an error.
func goWait(t *testing.T, wait func() ([]string, error)) <-chan []string {
	done := make(chan []string, 1)
	go func() {
		got, err := wait()
		if err != nil {
			t.Errorf("wait: %v", err)
		}
		done <- got
	}()
	return done
}

// wantQueues fails unless the wait done returns exactly want (any order).
func wantQueues(t *testing.T, what string, done <-chan []string, want ...string) {
	t.Helper()
	got := testutil.Receive(t, done, testutil.Wait, what)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: returned %v, want %v", what, got, want)
	}
}

// settle takes the signals a new queue starts with.
func settle(t *testing.T, s *Store, queues ...string) {
	t.Helper()
	if _, err := s.WaitReady(context.Background(), queues, time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitSchedule(context.Background(), queues, time.Nanosecond); err != nil {
		t.Fatal(err)
	}
}

func TestWaitReadyNewQueueStartsSignalled(t *testing.T) {
	s := New(nil)
	got, err := s.WaitReady(context.Background(), []string{testQueue}, forever)
	if err != nil || !slices.Equal(got, []string{testQueue}) {
		t.Fatalf("first WaitReady on a new queue: %v %v, want it returned at once", got, err)
	}
	got, err = s.WaitReady(context.Background(), []string{testQueue}, time.Millisecond)
	if err != nil || got != nil {
		t.Fatalf("second WaitReady with nothing new: %v %v, want a timeout (nil)", got, err)
	}
}

func TestWaitReadyWakesOnEnqueueFromAnotherGoroutine(t *testing.T) {
	s := New(nil)
	settle(t, s, testQueue, "other")
	done := goWait(t, func() ([]string, error) {
		return s.WaitReady(context.Background(), []string{"other", testQueue}, forever)
	})
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block", func() bool { return waiting(s, testQueue, false) })
	go func() { // from another goroutine
		if _, err := s.Enqueue(context.Background(), []*store.NewJob{newJob("a")}); err != nil {
			t.Error(err)
		}
	}()
	wantQueues(t, "WaitReady after an enqueue", done, testQueue)
}

func TestWaitReadyDoesNotMissASignalSentBeforeTheCall(t *testing.T) {
	s := New(nil)
	settle(t, s, testQueue)
	if res := claim(t, s, 1, time.Minute); len(res.Jobs) != 0 {
		t.Fatal("claimed from an empty queue")
	}
	mustEnqueue(t, s, newJob("a")) // the signal nobody waited for
	done := goWait(t, func() ([]string, error) { return s.WaitReady(context.Background(), []string{testQueue}, forever) })
	wantQueues(t, "WaitReady with a job made ready before it", done, testQueue)
}

func TestWaitReadyReturnsOnlyTheSignalledQueues(t *testing.T) {
	s := New(nil)
	queues := []string{"a", "b", "c"}
	settle(t, s, queues...)
	mustEnqueue(t, s, &store.NewJob{ID: "x", Queue: "c", Kind: "k"}, &store.NewJob{ID: "y", Queue: "a", Kind: "k"})
	done := goWait(t, func() ([]string, error) { return s.WaitReady(context.Background(), queues, forever) })
	wantQueues(t, "WaitReady after enqueues to a and c", done, "a", "c")
}

func TestWaitReadyWakesEveryWaiterOnTheQueue(t *testing.T) {
	s := New(nil)
	settle(t, s, testQueue, "b")
	first := goWait(t, func() ([]string, error) { return s.WaitReady(context.Background(), []string{testQueue}, forever) })
	second := goWait(t, func() ([]string, error) { return s.WaitReady(context.Background(), []string{testQueue, "b"}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "both waiters to block", func() bool {
		return waiting(s, testQueue, false) && waiting(s, "b", false)
	})
	mustEnqueue(t, s, newJob("a"))
	wantQueues(t, "first waiter", first, testQueue)
	wantQueues(t, "second waiter", second, testQueue)
}

func TestWaitReadyOnAPausedQueueWaitsForResume(t *testing.T) {
	s := New(nil)
	ctx := context.Background()
	mustEnqueue(t, s, newJob("a"))
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{Paused: true}); err != nil {
		t.Fatal(err)
	}
	settle(t, s, testQueue)
	done := goWait(t, func() ([]string, error) { return s.WaitReady(ctx, []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block on a paused queue", func() bool { return waiting(s, testQueue, false) })
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{}); err != nil {
		t.Fatal(err)
	}
	wantQueues(t, "WaitReady after resume", done, testQueue)
}

func TestWaitReadyWakesWhenMaxRunningFreesASlot(t *testing.T) {
	s := New(nil)
	ctx := context.Background()
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{MaxRunning: 1}); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, newJob("a"), newJob("b"))
	c := claim(t, s, 2, time.Minute).Jobs[0]
	settle(t, s, testQueue)
	done := goWait(t, func() ([]string, error) { return s.WaitReady(ctx, []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block at MaxRunning", func() bool { return waiting(s, testQueue, false) })
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: store.OutcomeAck})
	wantQueues(t, "WaitReady after an ack freed a slot", done, testQueue)
}

// A signal taken by a wait whose context ends is given back: the caller
// will not claim, so the next wait must see it.
func TestWaitReadyCancelledKeepsTheSignal(t *testing.T) {
	s := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := s.WaitReady(ctx, []string{testQueue}, forever); err != nil || got != nil {
		t.Fatalf("WaitReady with a cancelled context: %v %v, want nil", got, err)
	}
	if got, _ := s.WaitReady(context.Background(), []string{testQueue}, forever); !slices.Equal(got, []string{testQueue}) {
		t.Fatalf("WaitReady after the cancelled one: %v, want the signal it gave back", got)
	}
}

func TestWaitReadyReturnsWhenContextIsDone(t *testing.T) {
	s := New(nil)
	settle(t, s, "a", "b")
	ctx, cancel := context.WithCancel(context.Background())
	done := goWait(t, func() ([]string, error) { return s.WaitReady(ctx, []string{"a", "b"}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block", func() bool { return waiting(s, "b", false) })
	cancel()
	wantQueues(t, "WaitReady after cancel", done)
}

func TestWaitScheduleWakesOnADelayedEnqueue(t *testing.T) {
	s, _ := newClocked() // frozen: only a signal can end the wait
	settle(t, s, testQueue)
	done := goWait(t, func() ([]string, error) { return s.WaitSchedule(context.Background(), []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitSchedule to block", func() bool { return waiting(s, testQueue, true) })
	j := newJob("a")
	j.Delay = forever
	mustEnqueue(t, s, j)
	wantQueues(t, "WaitSchedule after a delayed enqueue", done, testQueue)
}

func TestWaitScheduleWakesOnALease(t *testing.T) {
	s, _ := newClocked()
	mustEnqueue(t, s, newJob("a"))
	settle(t, s, testQueue)
	done := goWait(t, func() ([]string, error) { return s.WaitSchedule(context.Background(), []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitSchedule to block", func() bool { return waiting(s, testQueue, true) })
	claim(t, s, 1, forever)
	wantQueues(t, "WaitSchedule after a claim created a lease", done, testQueue)
}

func TestWaitScheduleWakesOnAShortenedLease(t *testing.T) {
	s, _ := newClocked()
	mustEnqueue(t, s, newJob("a"))
	c := claim(t, s, 1, forever).Jobs[0]
	settle(t, s, testQueue)
	done := goWait(t, func() ([]string, error) { return s.WaitSchedule(context.Background(), []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitSchedule to block", func() bool { return waiting(s, testQueue, true) })
	ls, err := s.Extend(context.Background(), []store.LeaseRef{{Queue: testQueue, ID: "a", Token: c.Token}}, 2*forever)
	if err != nil || !ls[0].Held {
		t.Fatalf("Extend: %+v %v", ls, err)
	}
	// A wrong wake-up is handed to the waiter inside Extend; the waiter
	// leaves the hub only later, on its own goroutine: both are looked at.
	if !waiting(s, testQueue, true) || signalled(s, testQueue, true) {
		t.Fatal("a longer lease woke WaitSchedule")
	}
	if _, err := s.Extend(context.Background(), []store.LeaseRef{{Queue: testQueue, ID: "a", Token: c.Token}}, forever/2); err != nil {
		t.Fatal(err)
	}
	wantQueues(t, "WaitSchedule after a lease was shortened", done, testQueue)
}
