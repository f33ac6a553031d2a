package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func enqueueCases() []testCase {
	return []testCase{
		{name: "ReadyWhenDue", fn: testEnqueueReady},
		{name: "PendingWhenDelayed", fn: testEnqueuePending},
		{name: "RunAtWinsOverDelay", fn: testEnqueueRunAtWins},
		{name: "BatchSeveralQueues", fn: testEnqueueBatchQueues},
		{name: "BatchWithDuplicate", fn: testEnqueueBatchWithDuplicate},
		{name: "DuplicateInOneBatch", fn: testEnqueueDuplicateInBatch},
		{name: "DuplicateID", sub: duplicateIDCases()},
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
		requireState(t, s, q, jobs[i].ID, store.StateReady)
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
	d := requireState(t, s, q, "delay", store.StatePending)
	requireNear(t, "RunAt of a job enqueued with Delay 1h, relative to its EnqueuedAt", d.RunAt, d.EnqueuedAt.Add(long), time.Second)
	a := requireState(t, s, q, "run-at", store.StatePending)
	requireNear(t, "RunAt of a job enqueued with RunAt", a.RunAt, runAt, msSlack)
	claimNone(t, s, q, "both jobs are due in an hour or more")
	if res := maintain(t, s, q, store.MaintainOptions{}); res.Promoted != 0 {
		t.Fatalf("Maintain promoted %d jobs, want 0: none is due", res.Promoted)
	}
	claimNone(t, s, q, "both jobs are due in an hour or more, even after Maintain")
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
	f := requireState(t, s, q, future.ID, store.StatePending)
	requireNear(t, "RunAt of the job with RunAt in 2h and Delay 1ms", f.RunAt, future.RunAt, msSlack)
	claimOne(t, s, q, past.ID, long)
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
	for i, j := range jobs {
		got := getJob(t, s, j.Queue, j.ID)
		if !bytes.Equal(got.Args, j.Args) {
			t.Fatalf("job %q in %q has args %q, want %q", j.ID, j.Queue, got.Args, j.Args)
		}
		other := qs[(i+1)%3]
		if _, err := adm(t, s).GetJob(t.Context(), other, j.ID); !errors.Is(err, store.ErrJobNotFound) {
			t.Fatalf("GetJob(%q, %q) for a job enqueued into %q: got error %v, want ErrJobNotFound", other, j.ID, j.Queue, err)
		}
	}
	for _, q := range qs {
		if n := stats(t, s, q).Counts.Total(); n != 3 {
			t.Fatalf("queue %q holds %d jobs, want the 3 of the batch addressed to it", q, n)
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
	if got := getJob(t, s, q, "b").Args; string(got) != "args of b" {
		t.Fatalf("duplicate enqueue changed b's args to %q, want %q", got, "args of b")
	}
	requireCounts(t, s, q, store.StateCounts{Ready: 3})
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
	if got := getJob(t, s, q, "x").Args; string(got) != "args of x" {
		t.Fatalf("job x has args %q, want the first job's %q", got, "args of x")
	}
	requireCounts(t, s, q, store.StateCounts{Ready: 1})
}

func duplicateIDCases() []testCase {
	var cases []testCase
	for _, ps := range putStates {
		cases = append(cases, testCase{name: ps.name, fn: func(t *testing.T, s store.Store) {
			testEnqueueDuplicateID(t, s, ps.state)
		}})
	}
	return cases
}

func testEnqueueDuplicateID(t *testing.T, s store.Store, st store.JobState) {
	q := newQueue(t)
	before := put(t, s, withRetries(q, "holder", 3), st)
	counts := stats(t, s, q).Counts
	again := job(q, "holder")
	again.Kind, again.Args, again.Delay = "other_kind", []byte("other args"), 0
	if st == store.StateReady {
		again.Delay = long
	}
	res := enqueue(t, s, again)
	if want := (store.EnqueueResult{ID: "holder", Duplicate: true}); res[0] != want {
		t.Fatalf("Enqueue of an ID held by a job in %s: got %+v, want %+v", st, res[0], want)
	}
	after := requireState(t, s, q, "holder", st)
	if after.Kind != before.Kind || !bytes.Equal(after.Args, before.Args) || after.Attempt != before.Attempt ||
		!after.RunAt.Equal(before.RunAt) || after.Token != before.Token {
		t.Fatalf("duplicate enqueue changed the job in %s:\nbefore %+v\nafter  %+v", st, before, after)
	}
	if got := stats(t, s, q).Counts; got != counts {
		t.Fatalf("duplicate enqueue changed the counts from %+v to %+v", counts, got)
	}
}

func testEnqueueSameIDOtherQueue(t *testing.T, s store.Store) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, job(q1, "same"))
	other := job(q2, "same")
	other.Args = []byte("in q2")
	add(t, s, other)
	if got := getJob(t, s, q1, "same").Args; string(got) != "args of same" {
		t.Fatalf("job same in %q has args %q, want %q", q1, got, "args of same")
	}
	if got := getJob(t, s, q2, "same").Args; string(got) != "in q2" {
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
	requireCounts(t, s, q, store.StateCounts{Ready: 1})
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
	requireState(t, s, q, "a", store.StateReady)
	claimOne(t, s, q, "a", long)
}
