package memstore

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// scribble changes everything mutable that r shares with whoever gave it.
func scribble(r *store.JobRecord) {
	for i := range r.Args {
		r.Args[i] = 'X'
	}
	r.Args = append(r.Args, 'X')
	for k := range r.Meta {
		r.Meta[k] = "X"
	}
	if r.Meta != nil {
		r.Meta["new"] = "X"
	}
	for i := range r.Errors {
		r.Errors[i].Error = "X"
	}
	for i := range r.Result {
		r.Result[i] = 'X'
	}
}

// checkIntact fails unless job id still has its original args, meta, errors
// and result.
func checkIntact(t *testing.T, s *Store, id, step string, errs int, result string) {
	t.Helper()
	r := getJob(t, s, id)
	if string(r.Args) != "args-"+id || len(r.Meta) != 1 || r.Meta["trace"] != "t-"+id {
		t.Fatalf("%s: args %q meta %v changed", step, r.Args, r.Meta)
	}
	if len(r.Errors) != errs {
		t.Fatalf("%s: %d errors, want %d", step, len(r.Errors), errs)
	}
	for _, e := range r.Errors {
		if e.Error != "boom" {
			t.Fatalf("%s: error %q changed", step, e.Error)
		}
	}
	if string(r.Result) != result {
		t.Fatalf("%s: result %q, want %q", step, r.Result, result)
	}
}

func TestRecordsCrossingTheStoreAreCopies(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	nj := newJob("a")
	nj.Meta = map[string]string{"trace": "t-a"}
	nj.MaxRetries = 5
	nj.Retention = time.Hour
	mustEnqueue(t, s, nj)
	nj.Args[0] = 'X'
	nj.Meta["trace"] = "X"
	checkIntact(t, s, "a", "after changing the enqueued job", 0, "")

	scribble(getJob(t, s, "a"))
	checkIntact(t, s, "a", "after changing GetJob's record", 0, "")

	c := claim(t, s, 1, time.Minute).Jobs[0]
	tok := c.Token
	scribble(c)
	checkIntact(t, s, "a", "after changing Claim's record", 0, "")

	e := &store.AttemptError{Error: "boom"}
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: "a", Token: tok, Outcome: store.OutcomeRetry, Error: e})
	e.Error = "X"
	checkIntact(t, s, "a", "after changing the finish error", 1, "")
	scribble(getJob(t, s, "a"))
	checkIntact(t, s, "a", "after changing GetJob's errors", 1, "")

	maintain(t, s, store.MaintainOpts{})
	c = claim(t, s, 1, time.Minute).Jobs[0]
	scribble(c)
	checkIntact(t, s, "a", "after changing a retried claim", 1, "")

	result := []byte("result")
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: "a", Token: c.Token, Outcome: store.OutcomeAck, Result: result, Retention: time.Hour})
	result[0] = 'X'
	checkIntact(t, s, "a", "after changing the finish result", 1, "result")

	page, err := s.ListJobs(ctx, store.ListJobsOpts{Queue: testQueue, State: store.StateDone, Limit: 10})
	if err != nil || len(page.Jobs) != 1 {
		t.Fatalf("ListJobs: %+v %v", page, err)
	}
	scribble(page.Jobs[0])
	checkIntact(t, s, "a", "after changing ListJobs' record", 1, "result")
}

func TestClaimedBatchRecordsDoNotShareArgs(t *testing.T) {
	s, _ := newClocked()
	mustEnqueue(t, s, newJob("a"), newJob("b"))
	jobs := claim(t, s, 2, time.Minute).Jobs
	_ = append(jobs[0].Args, "XXXX"...)
	if string(jobs[1].Args) != "args-b" {
		t.Fatalf("appending to a's args changed b's to %q", jobs[1].Args)
	}
}

func TestReusedJobsStartClean(t *testing.T) {
	s, _ := newClocked()
	a := newJob("a")
	a.Meta = map[string]string{"k": "v"}
	a.UniqueKey = "u"
	mustEnqueue(t, s, a)
	c := claim(t, s, 1, time.Minute).Jobs[0]
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: "a", Token: c.Token, Outcome: store.OutcomeAck})

	b := newJob("b")
	b.Args = []byte("x")
	mustEnqueue(t, s, b, &store.NewJob{ID: "c", Queue: testQueue, Kind: "k"})
	rb, rc := getJob(t, s, "b"), getJob(t, s, "c")
	if !bytes.Equal(rb.Args, []byte("x")) || rb.Meta != nil || rb.UniqueKey != "" || rb.Attempt != 0 || rb.Token != 0 {
		t.Fatalf("b inherited from a: %+v", rb)
	}
	if rc.Args != nil {
		t.Fatalf("c has args %q, want nil", rc.Args)
	}
}
