package storetest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func enqueueCases() []engineCase {
	return []engineCase{
		{name: "ReadyWhenDue", fn: testEnqueueReady},
		{name: "PendingWhenDelayed", fn: testEnqueuePending},
		{name: "RunAtWinsOverDelay", fn: testEnqueueRunAtWins},
		{name: "BatchSeveralQueues", fn: testEnqueueBatchQueues},
		{name: "BatchWithDuplicate", fn: testEnqueueBatchWithDuplicate},
		{name: "DuplicateInOneBatch", fn: testEnqueueDuplicateInBatch},
		{name: "DuplicateID", sub: duplicateIDCases()},
		{name: "DuplicateIDOfALoneCall", fn: testEnqueueDuplicateIDOfALoneCall},
		{name: "SameIDOtherQueue", fn: testEnqueueSameIDOtherQueue},
		{name: "ConcurrentSameID", fn: testEnqueueConcurrentSameID},
		{name: "EmptyBatch", fn: testEnqueueEmptyBatch},
		{name: "QueueName64Bytes", fn: testEnqueueLongestQueueName},
		{name: "InvalidQueue", sub: invalidQueueCases()},
		{name: "InvalidJob", sub: invalidJobCases()},
		{name: "Args", sub: argsCases()},
		{name: "MetaRoundTrip", fn: testEnqueueMeta},
		{name: "FieldsRoundTrip", fn: testEnqueueFields},
	}
}

func testEnqueueReady(t *testing.T, s store.Store) {
	q := newQueue(t)
	negative := job(q, "negative-delay")
	negative.Delay = -time.Minute
	past := job(q, "past-run-at")
	past.RunAt = time.Now().Add(-time.Hour)
	jobs := []*store.NewJob{job(q, "no-delay"), negative, past}
	for i, r := range enqueue(t, s, jobs...) {
		if r.Duplicate || r.ID != jobs[i].ID || r.State != store.StateReady {
			t.Fatalf("Enqueue result %d for %q: got %+v, want ID %q, State ready, not duplicate", i, jobs[i].ID, r, jobs[i].ID)
		}
	}
	got := claim(t, s, q, 10, long).Jobs
	if !sameIDs(got, []string{"no-delay", "negative-delay", "past-run-at"}) {
		t.Fatalf("Claim after enqueueing three due jobs returned %v, want all three in enqueue order", ids(got))
	}
}

func testEnqueuePending(t *testing.T, s store.Store) {
	q := newQueue(t)
	runAt := time.Now().Add(2 * long)
	atTime := job(q, "run-at")
	atTime.RunAt = runAt
	jobs := []*store.NewJob{delayed(q, "delay", long), atTime}
	for i, r := range enqueue(t, s, jobs...) {
		if r.Duplicate || r.ID != jobs[i].ID || r.State != store.StatePending {
			t.Fatalf("Enqueue result %d for %q: got %+v, want ID %q, State pending", i, jobs[i].ID, r, jobs[i].ID)
		}
	}
	claimNone(t, s, q, "both jobs are due in an hour or more")
	res := maintain(t, s, q, store.MaintainOpts{})
	if res.Promoted != 0 {
		t.Fatalf("Maintain promoted %d jobs, want 0: none is due", res.Promoted)
	}
	requireNextIn(t, res, long, "a job delayed 1h and one due in 2h")
	claimNone(t, s, q, "both jobs are due in an hour or more, even after Maintain")
	requireHeld(t, s, q, "delay", "enqueued with Delay 1h")
	requireHeld(t, s, q, "run-at", "enqueued with RunAt in 2h")
}

func testEnqueueRunAtWins(t *testing.T, s store.Store) {
	q := newQueue(t)
	past := job(q, "past-run-at-long-delay")
	past.RunAt, past.Delay = time.Now().Add(-time.Minute), long
	future := job(q, "future-run-at-short-delay")
	future.RunAt, future.Delay = time.Now().Add(2*long), time.Millisecond
	res := enqueue(t, s, past, future)
	if res[0].State != store.StateReady {
		t.Fatalf("job with RunAt in the past and Delay 1h: State %q, want ready (RunAt wins over Delay)", res[0].State)
	}
	if res[1].State != store.StatePending {
		t.Fatalf("job with RunAt in 2h and Delay 1ms: State %q, want pending (RunAt wins over Delay)", res[1].State)
	}
	finishOK(t, s, outcome(claimOne(t, s, q, past.ID, long), store.OutcomeAck))
	claimNone(t, s, q, "the job with RunAt in 2h and Delay 1ms is due in 2h")
	requireNextInAbout(t, maintain(t, s, q, store.MaintainOpts{}), time.Until(future.RunAt), "a job with RunAt in 2h and Delay 1ms")
}

func testEnqueueBatchQueues(t *testing.T, s store.Store) {
	qs := []string{newQueue(t), newQueue(t), newQueue(t)}
	var jobs []*store.NewJob
	for i := range 9 {
		j := job(qs[i%3], fmt.Sprintf("j%d", i))
		if i%4 == 1 {
			j.Delay = long
		}
		jobs = append(jobs, j)
	}
	for i, r := range enqueue(t, s, jobs...) {
		want := store.StateReady
		if jobs[i].Delay > 0 {
			want = store.StatePending
		}
		if r.Duplicate || r.ID != jobs[i].ID || r.State != want {
			t.Fatalf("result %d of a batch over 3 queues: got %+v, want ID %q, State %q (results in request order)", i, r, jobs[i].ID, want)
		}
	}
	for _, q := range qs {
		var ready []*store.NewJob
		for _, j := range jobs {
			if j.Queue == q && j.Delay == 0 {
				ready = append(ready, j)
			}
		}
		got := claim(t, s, q, 10, long).Jobs
		if len(got) != len(ready) {
			t.Fatalf("Claim from %q returned %v, want the %d ready jobs of the batch addressed to it", q, ids(got), len(ready))
		}
		for i, j := range ready {
			if got[i].ID != j.ID || got[i].Queue != q || !bytes.Equal(got[i].Args, j.Args) {
				t.Fatalf("Claim from %q returned job %q of queue %q with args %q, want %q with args %q (enqueue order)",
					q, got[i].ID, got[i].Queue, got[i].Args, j.ID, j.Args)
			}
		}
	}
	for _, j := range jobs {
		if j.Delay > 0 {
			requireHeld(t, s, j.Queue, j.ID, "a delayed job of the batch")
		}
	}
}

func testEnqueueBatchWithDuplicate(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "b"))
	again := job(q, "b")
	again.Args = []byte("other args")
	res := enqueue(t, s, job(q, "a"), again, job(q, "c"))
	want := []store.EnqueueResult{
		{ID: "a", State: store.StateReady},
		{ID: "b", Duplicate: true},
		{ID: "c", State: store.StateReady},
	}
	if !slices.Equal(res, want) {
		t.Fatalf("Enqueue(a, b again, c): got %+v, want %+v", res, want)
	}
	got := claim(t, s, q, 10, long).Jobs
	if !sameIDs(got, []string{"b", "a", "c"}) {
		t.Fatalf("Claim after Enqueue(b), Enqueue(a, b again, c): %v, want [b a c]", ids(got))
	}
	if string(got[0].Args) != "args of b" {
		t.Fatalf("duplicate enqueue changed b's args to %q, want %q", got[0].Args, "args of b")
	}
	// A batch of jobs all there already adds nothing.
	res = enqueue(t, s, job(q, "a"), job(q, "c"))
	want = []store.EnqueueResult{{ID: "a", Duplicate: true}, {ID: "c", Duplicate: true}}
	if !slices.Equal(res, want) {
		t.Fatalf("Enqueue(a, c) again: got %+v, want %+v", res, want)
	}
	if got := claim(t, s, q, 10, long).Jobs; len(got) != 0 {
		t.Fatalf("Claim after Enqueue(a, c) again: %v, want none", ids(got))
	}
}

func testEnqueueDuplicateInBatch(t *testing.T, s store.Store) {
	q := newQueue(t)
	second := job(q, "x")
	second.Args = []byte("second")
	res := enqueue(t, s, job(q, "x"), second)
	if res[0].Duplicate || res[0].ID != "x" {
		t.Fatalf("first of two jobs with ID x in one batch: got %+v, want it added", res[0])
	}
	if !res[1].Duplicate || res[1].ID != "x" {
		t.Fatalf("second of two jobs with ID x in one batch: got %+v, want Duplicate naming x", res[1])
	}
	got := claim(t, s, q, 10, long).Jobs
	if !sameIDs(got, []string{"x"}) {
		t.Fatalf("Claim after a batch with ID x twice: %v, want [x]", ids(got))
	}
	if string(got[0].Args) != "args of x" {
		t.Fatalf("job x has args %q, want the first job's %q", got[0].Args, "args of x")
	}
}

func duplicateIDCases() []engineCase {
	var cases []engineCase
	for _, ps := range putStates {
		cases = append(cases, engineCase{name: ps.name, fn: func(t *testing.T, s store.Store) {
			testEnqueueDuplicateID(t, s, ps.state)
		}})
	}
	return cases
}

// duplicateOf returns a job with ID id that differs from job(q, id) in
// everything else: another kind and args, and due at once, or in an hour
// when st is ready.
func duplicateOf(q, id string, st store.JobState) *store.NewJob {
	again := job(q, id)
	again.Kind, again.Args = "other_kind", []byte("other args")
	if st == store.StateReady {
		again.Delay = long
	}
	return again
}

func testEnqueueDuplicateID(t *testing.T, s store.Store, st store.JobState) {
	q := newQueue(t)
	c := drive(t, s, withRetries(q, "holder", 3), st)
	res := enqueue(t, s, duplicateOf(q, "holder", st))
	if want := (store.EnqueueResult{ID: "holder", Duplicate: true}); res[0] != want {
		t.Fatalf("Enqueue of an ID held by a job in %s: got %+v, want %+v", st, res[0], want)
	}
	// The job is where it was, as it was: the duplicate, due at once (or
	// in an hour for a ready holder), added nothing.
	switch st {
	case store.StateReady:
		r := requireReady(t, s, q, "holder")[0]
		if r.Kind != kind || string(r.Args) != "args of holder" || r.Attempt != 1 {
			t.Fatalf("ready holder after a duplicate enqueue: Kind %q, Args %q, claimed with Attempt %d; want %q, %q, 1",
				r.Kind, r.Args, r.Attempt, kind, "args of holder")
		}
		requireIdle(t, s, q, "the only job is ready: the duplicate, due in an hour, added nothing")
	case store.StateUnack:
		requireOwner(t, s, c, "a duplicate enqueue")
		claimNone(t, s, q, "the holder is running and the duplicate added nothing")
		finishOK(t, s, outcome(c, store.OutcomeRelease))
		if r := claimOne(t, s, q, "holder", long); r.Kind != kind || string(r.Args) != "args of holder" || r.Attempt != c.Attempt {
			t.Fatalf("running holder after a duplicate enqueue, released and claimed again: Kind %q, Args %q, Attempt %d; want %q, %q, %d",
				r.Kind, r.Args, r.Attempt, kind, "args of holder", c.Attempt)
		}
	case store.StatePending, store.StateRetry:
		claimNone(t, s, q, "the holder is due in an hour and the duplicate, due at once, added nothing")
		requireNextIn(t, maintain(t, s, q, store.MaintainOpts{}), long, "the holder due in an hour")
		claimNone(t, s, q, "the holder is due in an hour, even after Maintain")
	case store.StateGarbage, store.StateDone:
		maintain(t, s, q, store.MaintainOpts{})
		claimNone(t, s, q, "the holder is finished and the duplicate, due at once, added nothing")
		requireHeld(t, s, q, "holder", "a duplicate enqueue")
	}
}

// testEnqueueDuplicateIDOfALoneCall enqueues one job a call, due now,
// into a queue that has seen nothing else: the call apps make most, which
// a store may serve by a shorter way than the others (redisstore's lean
// mark). An ID the queue holds is a duplicate there too.
func testEnqueueDuplicateIDOfALoneCall(t *testing.T, s store.Store) {
	q := newQueue(t)
	for _, id := range []string{"a", "b", "c"} {
		add(t, s, job(q, id))
	}
	again := job(q, "b")
	again.Args = []byte("other args")
	if res := enqueue(t, s, again); res[0] != (store.EnqueueResult{ID: "b", Duplicate: true}) {
		t.Fatalf("lone Enqueue of an ID the queue holds: got %+v, want a duplicate", res[0])
	}
	got := claimAll(t, s, q, 10)
	if len(got) != 3 || got["b"] == nil || string(got["b"].Args) != "args of b" {
		t.Fatalf("claimed %d jobs, b with args %q; want a, b, c once each, b with %q", len(got), argsOf(got["b"]), "args of b")
	}
}

// argsOf returns r's arguments, or nil for no record.
func argsOf(r *store.JobRecord) []byte {
	if r == nil {
		return nil
	}
	return r.Args
}

func testEnqueueSameIDOtherQueue(t *testing.T, s store.Store) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, job(q1, "same"))
	other := job(q2, "same")
	other.Args = []byte("in q2")
	add(t, s, other)
	if got := claimOne(t, s, q1, "same", long).Args; string(got) != "args of same" {
		t.Fatalf("job same in %q has args %q, want %q", q1, got, "args of same")
	}
	if got := claimOne(t, s, q2, "same", long).Args; string(got) != "in q2" {
		t.Fatalf("job same in %q has args %q, want %q", q2, got, "in q2")
	}
}

func testEnqueueConcurrentSameID(t *testing.T, s store.Store) {
	q := newQueue(t)
	const n = 32
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results = make([]store.EnqueueResult, n)
		errs    = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			j := job(q, "once")
			j.Args = fmt.Appendf(nil, "from goroutine %d", i)
			res, err := s.Enqueue(t.Context(), []*store.NewJob{j})
			errs[i] = err
			if err == nil && len(res) == 1 {
				results[i] = res[0]
			}
		})
	}
	close(start)
	wg.Wait()
	added := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("concurrent Enqueue %d: unexpected error: %v", i, errs[i])
		}
		if r.ID != "once" {
			t.Fatalf("concurrent Enqueue %d: result %+v, want ID once", i, r)
		}
		if !r.Duplicate {
			added++
		}
	}
	if added != 1 {
		t.Fatalf("%d goroutines enqueued ID once at the same time: %d were added, want exactly 1", n, added)
	}
	if got := claim(t, s, q, n, long).Jobs; !sameIDs(got, []string{"once"}) {
		t.Fatalf("Claim after %d concurrent enqueues of ID once: %v, want [once]", n, ids(got))
	}
}

func testEnqueueEmptyBatch(t *testing.T, s store.Store) {
	res, err := s.Enqueue(t.Context(), nil)
	if err != nil || len(res) != 0 {
		t.Fatalf("Enqueue(nil): got %v, %v; want no results and no error", res, err)
	}
}

func testEnqueueLongestQueueName(t *testing.T, s store.Store) {
	q := newQueue(t) + "_.-"
	q += strings.Repeat("x", store.MaxQueueNameLen-len(q))
	add(t, s, job(q, "a"))
	claimOne(t, s, q, "a", long)
}
