package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func waitCases() []testCase {
	return []testCase{
		{name: "ReadyWakesOnEnqueue", fn: testWaitReadyEnqueue},
		{name: "ReadyWakesOnPromote", fn: testWaitReadyPromote},
		{name: "ReadyReturnsAfterTimeout", fn: func(t *testing.T, s store.Store) {
			testWaitTimeout(t, s, s.WaitReady)
		}},
		{name: "ReadyReturnsOnCancel", fn: func(t *testing.T, s store.Store) {
			testWaitCancel(t, s, s.WaitReady)
		}},
		{name: "ScheduleWakesOnDelayedEnqueue", fn: testWaitScheduleEnqueue},
		{name: "ScheduleWakesOnRetry", fn: testWaitScheduleRetry},
		{name: "ScheduleReturnsAfterTimeout", fn: func(t *testing.T, s store.Store) {
			testWaitTimeout(t, s, s.WaitSchedule)
		}},
		{name: "ScheduleReturnsOnCancel", fn: func(t *testing.T, s store.Store) {
			testWaitCancel(t, s, s.WaitSchedule)
		}},
	}
}

// waitFunc is Store.WaitReady or Store.WaitSchedule.
type waitFunc func(ctx context.Context, queues []string, timeout time.Duration) error

// wakes runs a waiter in another goroutine: like a worker, it calls wait
// (whose own timeout is a minute) until, after a return, done reports that
// what it waits for happened; wakeups may be spurious. Once the waiter runs,
// wakes calls poke every 20ms until the waiter finishes. It fails unless the
// waiter finishes without error within waitFor, well before wait's own
// timeout, and returns how many pokes were made. Poking repeatedly makes the
// test independent of when exactly the waiter starts to block.
func wakes(t *testing.T, what string, wait func(ctx context.Context) error, done func() bool, poke func(i int)) int {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	started, exited := make(chan struct{}), make(chan struct{})
	defer func() {
		cancel()
		<-exited
	}()
	result := make(chan error, 1)
	go func() {
		defer close(exited)
		close(started)
		for {
			if err := wait(ctx); err != nil || ctx.Err() != nil {
				result <- err
				return
			}
			if done() {
				result <- nil
				return
			}
		}
	}()
	<-started
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.NewTimer(waitFor)
	defer deadline.Stop()
	for i := 0; ; i++ {
		poke(i)
		select {
		case err := <-result:
			if err != nil {
				t.Fatalf("%s: wait returned error %v, want nil", what, err)
			}
			return i + 1
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("%s: a wait with a 1m timeout had not returned %v after the first of %d events, want it woken by them", what, waitFor, i+1)
		}
	}
}

// has returns a condition for a waiter goroutine: queue q has a job in
// state st.
func has(t *testing.T, s store.Store, q string, st store.JobState) func() bool {
	return func() bool {
		qs, err := adm(t, s).QueueStats(t.Context(), q)
		if err != nil {
			t.Errorf("QueueStats(%q): unexpected error: %v", q, err)
			return true
		}
		return qs.Counts.Get(st) > 0
	}
}

func testWaitReadyEnqueue(t *testing.T, s store.Store) {
	idle, q := newQueue(t), newQueue(t)
	wait := func(ctx context.Context) error { return s.WaitReady(ctx, []string{idle, q}, time.Minute) }
	wakes(t, "WaitReady on two queues while jobs are enqueued into the second", wait, has(t, s, q, store.StateReady), func(i int) {
		add(t, s, job(q, fmt.Sprint("j", i)))
	})
	if len(claim(t, s, q, 1, long).Jobs) != 1 {
		t.Fatalf("WaitReady returned but no job is claimable in %q", q)
	}
}

func testWaitReadyPromote(t *testing.T, s store.Store) {
	q := newQueue(t)
	// Jobs fall due one after the other, every 20ms for a few seconds from
	// 200ms on (time for the enqueue to land first, even on a slow or new
	// connection); they are all enqueued before the wait starts, so only a
	// promotion wakes it.
	const n = 200
	var jobs []*store.NewJob
	now := time.Now()
	for i := range n {
		j := job(q, fmt.Sprint("j", i))
		j.RunAt = now.Add(200*time.Millisecond + time.Duration(i)*20*time.Millisecond)
		jobs = append(jobs, j)
	}
	add(t, s, jobs...)
	promoted := 0
	wait := func(ctx context.Context) error { return s.WaitReady(ctx, []string{q}, time.Minute) }
	wakes(t, "WaitReady while Maintain promotes delayed jobs", wait, has(t, s, q, store.StateReady), func(int) {
		promoted += maintain(t, s, q, store.MaintainOptions{}).Promoted
	})
	if promoted == 0 || len(claim(t, s, q, 1, long).Jobs) != 1 {
		t.Fatalf("WaitReady returned after %d promotions; want a job ready and claimable", promoted)
	}
}

func testWaitScheduleEnqueue(t *testing.T, s store.Store) {
	idle, q := newQueue(t), newQueue(t)
	wait := func(ctx context.Context) error { return s.WaitSchedule(ctx, []string{idle, q}, time.Minute) }
	// Each job is due a little earlier than the one before, so each moves
	// the queue's next due time earlier.
	wakes(t, "WaitSchedule on two queues while delayed jobs are enqueued into the second", wait, has(t, s, q, store.StatePending), func(i int) {
		add(t, s, delayed(q, fmt.Sprint("j", i), long-time.Duration(i)*time.Second))
	})
	if r := maintain(t, s, q, store.MaintainOptions{}); r.Idle {
		t.Fatalf("WaitSchedule returned but Maintain finds nothing scheduled in %q", q)
	}
}

func testWaitScheduleRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	const n = 200
	var jobs []*store.NewJob
	for i := range n {
		jobs = append(jobs, withRetries(q, fmt.Sprint("j", i), 1))
	}
	add(t, s, jobs...)
	claimed := claim(t, s, q, n, 2*long).Jobs
	if len(claimed) != n {
		t.Fatalf("Claim Max %d: got %d jobs, want %d", n, len(claimed), n)
	}
	wait := func(ctx context.Context) error { return s.WaitSchedule(ctx, []string{q}, time.Minute) }
	pokes := wakes(t, "WaitSchedule while jobs are sent to retry", wait, has(t, s, q, store.StateRetry), func(i int) {
		if i >= n {
			t.Fatalf("WaitSchedule did not return after %d jobs were sent to retry", n)
		}
		// each retry is due earlier than the ones before it
		finishOK(t, s, failed(claimed[i], store.OutcomeRetry, "boom", long-time.Duration(i)*time.Second))
	})
	if r := stats(t, s, q).Counts.Retry; r != int64(pokes) {
		t.Fatalf("%d jobs in retry after %d were sent there", r, pokes)
	}
}

func testWaitTimeout(t *testing.T, s store.Store, wait waitFunc) {
	q := newQueue(t)
	result := make(chan error, 1)
	go func() { result <- wait(t.Context(), []string{q}, 50*time.Millisecond) }()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("wait with a 50ms timeout on an idle queue returned %v, want nil", err)
		}
	case <-time.After(waitFor):
		t.Fatalf("wait with a 50ms timeout on an idle queue had not returned after %v", waitFor)
	}
}

func testWaitCancel(t *testing.T, s store.Store, wait waitFunc) {
	q := newQueue(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	started := make(chan struct{})
	result := make(chan error, 1)
	go func() {
		close(started)
		result <- wait(ctx, []string{q}, time.Hour)
	}()
	<-started
	cancel()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("wait whose context was cancelled returned %v, want nil", err)
		}
	case <-time.After(waitFor):
		t.Fatalf("wait with a 1h timeout had not returned %v after its context was cancelled", waitFor)
	}
}
