package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func waitCases() []engineCase {
	return []engineCase{
		{name: "ReadyWakesOnEnqueue", fn: testWaitReadyEnqueue},
		{name: "ReadyWakesOnPromote", fn: testWaitReadyPromote},
		{name: "ReadyReturnsAfterTimeout", fn: func(t *testing.T, s store.Store) {
			testWaitTimeout(t, s, s.WaitReady)
		}},
		{name: "ReadyReturnsOnCancel", fn: func(t *testing.T, s store.Store) {
			testWaitCancel(t, s, s.WaitReady)
		}},
		{name: "ReadyNamesTheQueue", fn: testWaitReadyNames},
		{name: "ReadyKeepsASignalForTheNextWait", fn: testWaitReadyKeeps},
		{name: "ScheduleWakesOnDelayedEnqueue", fn: testWaitScheduleEnqueue},
		{name: "ScheduleNamesTheQueue", fn: testWaitScheduleNames},
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
type waitFunc func(ctx context.Context, queues []string, timeout time.Duration) ([]string, error)

// wakes runs a waiter in another goroutine: like a worker, it calls wait
// (whose own timeout is a minute) until, after a return, done reports that
// what it waits for happened; wakeups may be spurious. Once the waiter runs,
// wakes calls poke every 20ms until the waiter finishes. It fails unless the
// waiter finishes without error within waitFor, well before wait's own
// timeout, and returns how many pokes were made. Poking repeatedly makes the
// test independent of when exactly the waiter starts to block.
func wakes(t *testing.T, what string, wait func(ctx context.Context) ([]string, error), done func() bool, poke func(i int)) int {
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
			if _, err := wait(ctx); err != nil || ctx.Err() != nil {
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

// claims returns a condition for a waiter goroutine, as a worker checks
// after each wait: a Claim from q returned a job. It counts the jobs
// claimed in *n.
func claims(t *testing.T, s store.Store, q string, n *atomic.Int64) func() bool {
	return func() bool {
		res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: q, Max: 1, Lease: long, WorkerID: "waiter"})
		if err != nil {
			t.Errorf("Claim(%q) after a wait: unexpected error: %v", q, err)
			return true
		}
		n.Add(int64(len(res.Jobs)))
		return len(res.Jobs) > 0
	}
}

// scheduled returns a condition for a waiter goroutine, as a scheduler
// checks after each wait: Maintain finds something in q due within the
// next hour.
func scheduled(t *testing.T, s store.Store, q string) func() bool {
	return func() bool {
		r, err := s.Maintain(t.Context(), q, store.MaintainOpts{})
		if err != nil {
			t.Errorf("Maintain(%q) after a wait: unexpected error: %v", q, err)
			return true
		}
		return !r.Idle && r.NextIn <= long
	}
}

func testWaitReadyEnqueue(t *testing.T, s store.Store) {
	idle, q := newQueue(t), newQueue(t)
	var claimed atomic.Int64
	wait := func(ctx context.Context) ([]string, error) { return s.WaitReady(ctx, []string{idle, q}, time.Minute) }
	wakes(t, "WaitReady on two queues while jobs are enqueued into the second", wait, claims(t, s, q, &claimed), func(i int) {
		add(t, s, job(q, fmt.Sprint("j", i)))
	})
	if claimed.Load() != 1 {
		t.Fatalf("WaitReady returned and the waiter claimed %d jobs from %q, want 1", claimed.Load(), q)
	}
}

func testWaitReadyPromote(t *testing.T, s store.Store) {
	// Jobs fall due one after the other, every 20ms for a few seconds from
	// a lead on (time for the enqueue to land first); they are all
	// enqueued before the wait starts, so only a promotion wakes it. An
	// enqueue that landed after the first was due (a slow machine, a new
	// connection, scripts loaded on first use) put it in ready, and the
	// wait would return without a promotion: then the set-up is made
	// again in a new queue with twice the lead.
	const n = 200
	var q string
	for lead := 200 * time.Millisecond; ; lead *= 2 {
		q = newQueue(t)
		var jobs []*store.NewJob
		now := time.Now()
		for i := range n {
			j := job(q, fmt.Sprint("j", i))
			j.RunAt = now.Add(lead + time.Duration(i)*20*time.Millisecond)
			jobs = append(jobs, j)
		}
		res := enqueue(t, s, jobs...)
		for i, r := range res {
			if r.Err != nil || r.Duplicate || r.ID != jobs[i].ID {
				t.Fatalf("Enqueue of job %s: %+v, want it added", jobs[i].ID, r)
			}
		}
		if res[0].State == store.StatePending {
			break
		}
		if lead > 10*time.Second {
			t.Fatalf("enqueueing %d delayed jobs took longer than %v, the first one's delay", n, lead)
		}
	}
	promoted := 0
	var claimed atomic.Int64
	wait := func(ctx context.Context) ([]string, error) { return s.WaitReady(ctx, []string{q}, time.Minute) }
	wakes(t, "WaitReady while Maintain promotes delayed jobs", wait, claims(t, s, q, &claimed), func(int) {
		promoted += maintain(t, s, q, store.MaintainOpts{}).Promoted
	})
	if promoted == 0 || claimed.Load() != 1 {
		t.Fatalf("WaitReady returned after %d promotions and the waiter claimed %d jobs; want a job promoted and claimed", promoted, claimed.Load())
	}
}

func testWaitScheduleEnqueue(t *testing.T, s store.Store) {
	idle, q := newQueue(t), newQueue(t)
	wait := func(ctx context.Context) ([]string, error) {
		return s.WaitSchedule(ctx, []string{idle, q}, time.Minute)
	}
	// Each job is due a little earlier than the one before, so each moves
	// the queue's next due time earlier.
	pokes := wakes(t, "WaitSchedule on two queues while delayed jobs are enqueued into the second", wait, scheduled(t, s, q), func(i int) {
		add(t, s, delayed(q, fmt.Sprint("j", i), long-time.Duration(i)*time.Second))
	})
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long-time.Duration(pokes-1)*time.Second, "the latest delayed job, the earliest due")
}

func testWaitScheduleRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	const n = 200
	var jobs []*store.NewJob
	for i := range n {
		jobs = append(jobs, withRetries(q, fmt.Sprint("j", i), 1))
	}
	add(t, s, jobs...)
	// The leases, of two hours, are not due within the hour that
	// scheduled looks for.
	claimed := claim(t, s, q, n, 2*long+time.Minute).Jobs
	if len(claimed) != n {
		t.Fatalf("Claim Max %d: got %d jobs, want %d", n, len(claimed), n)
	}
	wait := func(ctx context.Context) ([]string, error) { return s.WaitSchedule(ctx, []string{q}, time.Minute) }
	pokes := wakes(t, "WaitSchedule while jobs are sent to retry", wait, scheduled(t, s, q), func(i int) {
		if i >= n {
			t.Fatalf("WaitSchedule did not return after %d jobs were sent to retry", n)
		}
		// each retry is due earlier than the ones before it
		finishOK(t, s, failed(claimed[i], store.OutcomeRetry, "boom", long-time.Duration(i)*time.Second))
	})
	requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long-time.Duration(pokes-1)*time.Second, "the latest retry, the earliest due")
}

func testWaitTimeout(t *testing.T, s store.Store, wait waitFunc) {
	q := newQueue(t)
	settle(t, wait, q)
	result := make(chan error, 1)
	go func() {
		got, err := wait(t.Context(), []string{q}, 50*time.Millisecond)
		if err == nil && got != nil {
			err = fmt.Errorf("queues %v signalled", got)
		}
		result <- err
	}()
	select {
	case err := <-result:
		if err != nil {
			t.Fatalf("wait with a 50ms timeout on an idle queue returned %v, want nil (a timeout)", err)
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
	settle(t, wait, q)
	go func() {
		close(started)
		_, err := wait(ctx, []string{q}, time.Hour)
		result <- err
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

// settle waits on queues until a wait returns no queue, taking the
// signals a store may report at first (a new queue, a new connection).
func settle(t *testing.T, wait waitFunc, queues ...string) {
	t.Helper()
	testutil.Eventually(t, waitFor, func() error {
		got, err := wait(t.Context(), queues, 20*time.Millisecond)
		if err != nil {
			t.Fatalf("wait on %v: unexpected error: %v", queues, err)
		}
		if got != nil {
			return fmt.Errorf("wait on %v still returns %v with nothing happening", queues, got)
		}
		return nil
	})
}

// waitNamed waits (for up to waitFor) and fails unless the wait returns
// with q among its queues.
func waitNamed(t *testing.T, what string, wait waitFunc, queues []string, q string) {
	t.Helper()
	got, err := wait(t.Context(), queues, waitFor)
	if err != nil || !slices.Contains(got, q) {
		t.Fatalf("%s: wait on %v returned %v, %v; want %q among the queues", what, queues, got, err, q)
	}
}

// testWaitReadyNames: WaitReady returns the queue a job was enqueued into.
func testWaitReadyNames(t *testing.T, s store.Store) {
	idle, q := newQueue(t), newQueue(t)
	settle(t, s.WaitReady, idle, q)
	type result struct {
		got []string
		err error
	}
	done := make(chan result, 1)
	go func() {
		// The goroutine only reports: a test may not fail from it once
		// the test is over.
		got, err := s.WaitReady(t.Context(), []string{idle, q}, waitFor)
		done <- result{got, err}
	}()
	// Enqueue until the waiter returns: it may not block yet.
	n := 0
	var res result
	testutil.EventuallyTrue(t, waitFor, "the waiter to return", func() bool {
		n++
		add(t, s, job(q, fmt.Sprint("j", n)))
		select {
		case res = <-done:
			return true
		case <-time.After(20 * time.Millisecond):
			return false
		}
	})
	if res.err != nil || !slices.Contains(res.got, q) {
		t.Fatalf("WaitReady while a job is enqueued: wait on %v returned %v, %v; want %q among the queues", []string{idle, q}, res.got, res.err, q)
	}
}

// testWaitReadyKeeps: a job made ready while no one waits (between a
// worker's empty claim and its wait) is not missed by the next wait.
func testWaitReadyKeeps(t *testing.T, s store.Store) {
	q := newQueue(t)
	settle(t, s.WaitReady, q)
	claimNone(t, s, q, "the queue is empty")
	add(t, s, job(q, "a"))
	waitNamed(t, "WaitReady after a job was enqueued with no one waiting", s.WaitReady, []string{q}, q)
	claimOne(t, s, q, "a", long)
}

// testWaitScheduleNames: WaitSchedule returns the queue whose next due
// time moved earlier.
func testWaitScheduleNames(t *testing.T, s store.Store) {
	idle, q := newQueue(t), newQueue(t)
	settle(t, s.WaitSchedule, idle, q)
	add(t, s, delayed(q, "a", long))
	waitNamed(t, "WaitSchedule after a delayed enqueue", s.WaitSchedule, []string{idle, q}, q)
}
