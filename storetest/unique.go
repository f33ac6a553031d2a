package storetest

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

func uniqueCases() []engineCase {
	return []engineCase{
		{name: "HeldReportsHolder", fn: testUniqueHeld},
		{name: "PerQueue", fn: testUniquePerQueue},
		{name: "InOneBatch", fn: testUniqueInBatch},
		{name: "HeldWhileRunningAndRetrying", fn: testUniqueHeldThroughRetry},
		{name: "ReleasedAfterAck", fn: func(t *testing.T, s store.Store) { testUniqueReleased(t, s, releaseByAck) }},
		{name: "ReleasedAfterAckKeptAsDone", fn: func(t *testing.T, s store.Store) { testUniqueReleased(t, s, releaseByAckRetained) }},
		{name: "ReleasedAfterGarbage", fn: func(t *testing.T, s store.Store) { testUniqueReleased(t, s, releaseByGarbage) }},
		{name: "UniqueForExpires", fn: testUniqueForExpires},
	}
}

func unique(q, id, key string) *store.NewJob {
	j := job(q, id)
	j.UniqueKey = key
	return j
}

// requireUniqueDup fails unless enqueueing id with key reports a duplicate
// held by holder and adds nothing (see requireFree: a job with ID id and
// no key is left, due in two hours).
func requireUniqueDup(t *testing.T, s store.Store, q, id, key, holder, when string) {
	t.Helper()
	r := enqueue(t, s, unique(q, id, key))[0]
	if want := (store.EnqueueResult{ID: holder, Duplicate: true}); r != want {
		t.Fatalf("Enqueue of %q with unique key %q %s: got %+v, want %+v", id, key, when, r, want)
	}
	requireFree(t, s, q, id, "an enqueue refused as a unique duplicate")
}

func testUniqueHeld(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, unique(q, "holder", "k"))
	requireUniqueDup(t, s, q, "second", "k", "holder", "held by a ready job")
	add(t, s, unique(q, "other-key", "k2"), job(q, "no-key"))
	requireReady(t, s, q, "holder", "other-key", "no-key")
}

func testUniquePerQueue(t *testing.T, s store.Store) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, unique(q1, "a", "k"))
	add(t, s, unique(q2, "b", "k"))
	claimOne(t, s, q2, "b", long)
}

func testUniqueInBatch(t *testing.T, s store.Store) {
	q := newQueue(t)
	res := enqueue(t, s, unique(q, "first", "k"), unique(q, "second", "k"))
	if res[0].Duplicate || res[0].ID != "first" {
		t.Fatalf("first of two jobs with unique key k in one batch: got %+v, want it added", res[0])
	}
	if want := (store.EnqueueResult{ID: "first", Duplicate: true}); res[1] != want {
		t.Fatalf("second of two jobs with unique key k in one batch: got %+v, want %+v", res[1], want)
	}
	requireReady(t, s, q, "first")
}

func testUniqueHeldThroughRetry(t *testing.T, s store.Store) {
	q := newQueue(t)
	j := unique(q, "holder", "k")
	j.MaxRetries = 3
	add(t, s, j)
	c := claimOne(t, s, q, "holder", long)
	requireUniqueDup(t, s, q, "while-running", "k", "holder", "held by a running job")
	finishOK(t, s, failed(c, store.OutcomeRetry, "boom", long))
	requireUniqueDup(t, s, q, "while-retrying", "k", "holder", "held by a job waiting to retry")
}

// release ends the job holder (ready in q) in a way that frees its unique
// key.
type release func(t *testing.T, s store.Store, q, holder string)

func releaseByAck(t *testing.T, s store.Store, q, holder string) {
	finishOK(t, s, outcome(claimOne(t, s, q, holder, long), store.OutcomeAck))
}

func releaseByAckRetained(t *testing.T, s store.Store, q, holder string) {
	r := outcome(claimOne(t, s, q, holder, long), store.OutcomeAck)
	r.Retention = long
	finishOK(t, s, r)
	requireHeld(t, s, q, holder, "an ack with a retention keeps the job in done")
}

func releaseByGarbage(t *testing.T, s store.Store, q, holder string) {
	finishOK(t, s, failed(claimOne(t, s, q, holder, long), store.OutcomeGarbage, "dead", 0))
}

func testUniqueReleased(t *testing.T, s store.Store, rel release) {
	q := newQueue(t)
	add(t, s, unique(q, "holder", "k"))
	rel(t, s, q, "holder")
	r := enqueue(t, s, unique(q, "next", "k"))[0]
	if r.Duplicate || r.ID != "next" {
		t.Fatalf("Enqueue with unique key k after its holder finished: got %+v, want it added (key released)", r)
	}
	claimOne(t, s, q, "next", long)
}

func testUniqueForExpires(t *testing.T, s store.Store) {
	q := newQueue(t)
	const hold = 150 * time.Millisecond
	j := unique(q, "holder", "k")
	j.UniqueFor = hold
	start := time.Now()
	add(t, s, j)
	n := 0
	testutil.Eventually(t, waitFor, func() error {
		n++
		id := fmt.Sprintf("next%d", n)
		r := enqueue(t, s, unique(q, id, "k"))[0]
		if r.Duplicate {
			if r.ID != "holder" {
				t.Fatalf("Enqueue %q with key k: duplicate naming %q, want holder", id, r.ID)
			}
			return fmt.Errorf("unique key k with UniqueFor %v still held by holder", hold)
		}
		if r.ID != id {
			t.Fatalf("Enqueue %q with key k: got %+v, want it added", id, r)
		}
		return nil
	})
	if held := time.Since(start); held < hold-2*msSlack {
		t.Fatalf("unique key with UniqueFor %v was released after at most %v", hold, held)
	}
	requireReady(t, s, q, "holder", fmt.Sprintf("next%d", n))
}

func periodicCases() []engineCase {
	return []engineCase{
		{name: "SameTickOnce", fn: testPeriodicSameTick},
		{name: "OlderTickSkipped", fn: testPeriodicOlderTick},
		{name: "NewerTickEnqueued", fn: testPeriodicNewerTick},
		{name: "PerScheduleName", fn: testPeriodicPerName},
		{name: "PerQueue", fn: testPeriodicPerQueue},
		{name: "TickOutlivesJob", fn: testPeriodicTickOutlivesJob},
		{name: "ConcurrentSameTick", fn: testPeriodicConcurrent},
	}
}

func tick(q, id, schedule string, at time.Time) *store.NewJob {
	j := job(q, id)
	j.Schedule, j.Tick = schedule, at
	return j
}

// requireSkipped fails unless enqueueing j reports a skipped tick and adds
// nothing (see requireFree: a job with j's ID is left, due in two hours).
func requireSkipped(t *testing.T, s store.Store, j *store.NewJob, why string) {
	t.Helper()
	r := enqueue(t, s, j)[0]
	if want := (store.EnqueueResult{Duplicate: true}); r != want {
		t.Fatalf("Enqueue of periodic job %q (schedule %q, tick %v, %s): got %+v, want %+v (skipped)",
			j.ID, j.Schedule, j.Tick, why, r, want)
	}
	requireFree(t, s, j.Queue, j.ID, "a skipped periodic tick")
}

var tick0 = time.Date(2030, 1, 2, 3, 4, 0, 0, time.UTC)

func testPeriodicSameTick(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, tick(q, "t1", "every-minute", tick0))
	requireSkipped(t, s, tick(q, "t1-again", "every-minute", tick0), "same tick as the last one")
	requireReady(t, s, q, "t1")
}

func testPeriodicOlderTick(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, tick(q, "t1", "every-minute", tick0))
	requireSkipped(t, s, tick(q, "t0", "every-minute", tick0.Add(-time.Minute)), "older than the last one")
}

func testPeriodicNewerTick(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, tick(q, "t1", "every-minute", tick0))
	add(t, s, tick(q, "t2", "every-minute", tick0.Add(time.Minute)))
	requireSkipped(t, s, tick(q, "t1-late", "every-minute", tick0), "older than the newest one")
	requireReady(t, s, q, "t1", "t2")
}

func testPeriodicPerName(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, tick(q, "a", "schedule-a", tick0), tick(q, "b", "schedule-b", tick0))
	requireReady(t, s, q, "a", "b")
}

func testPeriodicPerQueue(t *testing.T, s store.Store) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, tick(q1, "a", "every-minute", tick0))
	add(t, s, tick(q2, "a", "every-minute", tick0))
	requireSkipped(t, s, tick(q2, "b", "every-minute", tick0), "same tick in the same queue")
}

func testPeriodicTickOutlivesJob(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, tick(q, "t1", "every-minute", tick0))
	finishOK(t, s, outcome(claimOne(t, s, q, "t1", long), store.OutcomeAck))
	requireFree(t, s, q, "t1", "ack")
	requireSkipped(t, s, tick(q, "t1-again", "every-minute", tick0), "same tick as a job already run and acked")
}

func testPeriodicConcurrent(t *testing.T, s store.Store) {
	q := newQueue(t)
	const n = 16
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		added []string
		start = make(chan struct{})
	)
	for i := range n {
		wg.Go(func() {
			<-start
			id := fmt.Sprintf("scheduler%d", i)
			res, err := s.Enqueue(t.Context(), []*store.NewJob{tick(q, id, "every-minute", tick0)})
			if err != nil {
				t.Errorf("Enqueue from scheduler %d: unexpected error: %v", i, err)
				return
			}
			if len(res) == 1 && !res[0].Duplicate {
				mu.Lock()
				added = append(added, id)
				mu.Unlock()
			}
		})
	}
	close(start)
	wg.Wait()
	if len(added) != 1 {
		t.Fatalf("%d schedulers enqueued the same tick at once: %d were added (%v), want exactly 1", n, len(added), added)
	}
	requireReady(t, s, q, added...)
}
