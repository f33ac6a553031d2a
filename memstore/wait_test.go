package memstore

import (
	"context"
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
	q := s.lookup(name)
	if q == nil {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if sched {
		return q.schedWait != nil
	}
	return q.readyWait != nil
}

// goWait runs wait in a goroutine and returns a channel closed when it
// returns; it fails the test if wait returns an error.
func goWait(t *testing.T, wait func() error) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := wait(); err != nil {
			t.Errorf("wait: %v", err)
		}
	}()
	return done
}

func TestWaitReadyWakesOnEnqueueFromAnotherGoroutine(t *testing.T) {
	s := New(nil)
	done := goWait(t, func() error { return s.WaitReady(context.Background(), []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block", func() bool { return waiting(s, testQueue, false) })
	go func() { // from another goroutine
		if _, err := s.Enqueue(context.Background(), []*store.NewJob{newJob("a")}); err != nil {
			t.Error(err)
		}
	}()
	returns(t, "WaitReady after an enqueue", done)
}

func TestWaitReadyDoesNotMissASignalSentBeforeTheCall(t *testing.T) {
	s := New(nil)
	if res := claim(t, s, 1, time.Minute); len(res.Jobs) != 0 {
		t.Fatal("claimed from an empty queue")
	}
	mustEnqueue(t, s, newJob("a")) // the signal nobody waited for
	done := goWait(t, func() error { return s.WaitReady(context.Background(), []string{testQueue}, forever) })
	returns(t, "WaitReady with a job already ready", done)
}

func TestWaitReadyWakesOnAnyOfSeveralQueues(t *testing.T) {
	s := New(nil)
	queues := []string{"a", "b", "c"}
	done := goWait(t, func() error { return s.WaitReady(context.Background(), queues, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block", func() bool { return waiting(s, "c", false) })
	mustEnqueue(t, s, &store.NewJob{ID: "x", Queue: "c", Kind: "k"})
	returns(t, "WaitReady after an enqueue to its last queue", done)
}

func TestWaitReadyOnAPausedQueueWaitsForResume(t *testing.T) {
	s := New(nil)
	ctx := context.Background()
	mustEnqueue(t, s, newJob("a"))
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{Paused: true}); err != nil {
		t.Fatal(err)
	}
	done := goWait(t, func() error { return s.WaitReady(ctx, []string{testQueue}, forever) })
	// It blocks although a job is ready: a paused queue has nothing to claim.
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block on a paused queue", func() bool { return waiting(s, testQueue, false) })
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{}); err != nil {
		t.Fatal(err)
	}
	returns(t, "WaitReady after resume", done)
}

func TestWaitReadyWakesWhenMaxRunningFreesASlot(t *testing.T) {
	s := New(nil)
	ctx := context.Background()
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{MaxRunning: 1}); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, newJob("a"), newJob("b"))
	c := claim(t, s, 2, time.Minute).Jobs[0]
	done := goWait(t, func() error { return s.WaitReady(ctx, []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block at MaxRunning", func() bool { return waiting(s, testQueue, false) })
	finish(t, s, store.FinishRequest{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: store.OutcomeAck})
	returns(t, "WaitReady after an ack freed a slot", done)
}

func TestWaitReadyReturnsWhenContextIsDone(t *testing.T) {
	s := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := goWait(t, func() error { return s.WaitReady(ctx, []string{"a", "b"}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitReady to block", func() bool { return waiting(s, "b", false) })
	cancel()
	returns(t, "WaitReady after cancel", done)
}

func TestWaitScheduleWakesOnADelayedEnqueue(t *testing.T) {
	s, _ := newClocked() // frozen: only a signal can end the wait
	done := goWait(t, func() error { return s.WaitSchedule(context.Background(), []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitSchedule to block", func() bool { return waiting(s, testQueue, true) })
	j := newJob("a")
	j.Delay = forever
	mustEnqueue(t, s, j)
	returns(t, "WaitSchedule after a delayed enqueue", done)
}

func TestWaitScheduleWakesOnALease(t *testing.T) {
	s, _ := newClocked()
	mustEnqueue(t, s, newJob("a"))
	done := goWait(t, func() error { return s.WaitSchedule(context.Background(), []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitSchedule to block", func() bool { return waiting(s, testQueue, true) })
	claim(t, s, 1, forever)
	returns(t, "WaitSchedule after a claim created a lease", done)
}

func TestWaitScheduleReturnsAtOnceWhenSomethingIsDue(t *testing.T) {
	s, clock := newClocked()
	j := newJob("a")
	j.Delay = time.Second
	mustEnqueue(t, s, j) // signalled before anyone waits
	clock.Advance(time.Second)
	done := goWait(t, func() error { return s.WaitSchedule(context.Background(), []string{testQueue}, forever) })
	returns(t, "WaitSchedule with a job due", done)
}

func TestWaitScheduleSleepsNoLongerThanTheNextDueTime(t *testing.T) {
	s, _ := newClocked() // frozen clock: the job stays 5ms away
	j := newJob("a")
	j.Delay = 5 * time.Millisecond
	mustEnqueue(t, s, j) // signalled before anyone waits
	done := goWait(t, func() error { return s.WaitSchedule(context.Background(), []string{testQueue}, forever) })
	returns(t, "WaitSchedule with a job due in 5ms", done)
}

func TestWaitScheduleWakesOnAShortenedLease(t *testing.T) {
	s, _ := newClocked()
	mustEnqueue(t, s, newJob("a"))
	c := claim(t, s, 1, forever).Jobs[0]
	done := goWait(t, func() error { return s.WaitSchedule(context.Background(), []string{testQueue}, forever) })
	testutil.EventuallyTrue(t, testutil.Wait, "WaitSchedule to block", func() bool { return waiting(s, testQueue, true) })
	ls, err := s.Extend(context.Background(), []store.LeaseRef{{Queue: testQueue, ID: "a", Token: c.Token}}, 2*forever)
	if err != nil || !ls[0].Held {
		t.Fatalf("Extend: %+v %v", ls, err)
	}
	if !waiting(s, testQueue, true) {
		t.Fatal("a longer lease woke WaitSchedule")
	}
	if _, err := s.Extend(context.Background(), []store.LeaseRef{{Queue: testQueue, ID: "a", Token: c.Token}}, forever/2); err != nil {
		t.Fatal(err)
	}
	returns(t, "WaitSchedule after a lease was shortened", done)
}
