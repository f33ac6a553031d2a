package redisstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// A failed task's job is requeued (Inspector.RetryWorkflow, RequeueJobs)
// and a worker runs and acks it before RequeueJobs delivered the
// requeue's record to the workflow: the workflow goes on, the dependent
// runs. The ack, applied in its own step on one server, was dropped (the
// task was still failed), and the requeue's record, delivered after it,
// put the task back to enqueued with no job left to run it: the workflow
// stayed running for good (found by trying the guide's workflows page).
// With one slot a script (as on a Cluster), the ack's record took the
// place of the requeue's, and the workflow stayed failed.
func TestWorkflowTaskRequeuedThenAckedBeforeItsRecord(t *testing.T) {
	bothWorkflowSteps(t, testRequeuedThenAcked)
}

// bothWorkflowSteps runs test with a task's end applied in the step that
// ends its job, on one server, and with one slot a script (as on a
// Cluster), where a record delivered after it applies it.
func bothWorkflowSteps(t *testing.T, test func(t *testing.T, oneSlot bool)) {
	for _, oneSlot := range []bool{false, true} {
		name := "one server"
		if oneSlot {
			name = "one slot a script"
		}
		t.Run(name, func(t *testing.T) { test(t, oneSlot) })
	}
}

func testRequeuedThenAcked(t *testing.T, oneSlot bool) {
	ctx := context.Background()
	_, rdb, prefix := newPrefixedStore(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, OneSlotPerScript: oneSlot})
	// The process that requeues: its delivery stops before it applies
	// the requeue's record, the moment a fast worker's ack comes in.
	requeuer := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, OneSlotPerScript: oneSlot})
	redisstore.CrashWorkflowsAt(requeuer, "apply")

	const q = "rq"
	wf := &store.NewWorkflow{ID: "wfr", Tasks: []*store.NewTask{wfTask("wfr", "a", q), wfTask("wfr", "b", q, "a")}}
	if _, err := s.EnqueueWorkflow(ctx, wf); err != nil {
		t.Fatal(err)
	}
	a := store.TaskJobID("wfr", "a")
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 10, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != a {
		t.Fatalf("claim: %v, %v; want task a's job", res.Jobs, err)
	}
	j := res.Jobs[0]
	if _, err := s.Finish(ctx, []store.AttemptEnd{{Queue: q, ID: a, Token: j.Token, Attempt: j.Attempt, Outcome: store.OutcomeGarbage, Error: &store.AttemptError{Attempt: j.Attempt, Error: "permanent"}}}); err != nil {
		t.Fatal(err)
	}
	if rec, err := s.GetWorkflow(ctx, "wfr"); err != nil || rec.State != store.WorkflowFailed {
		t.Fatalf("after a's failure: %+v, %v; want failed", rec, err)
	}

	if n, err := requeuer.RequeueJobs(ctx, q, store.StateGarbage, []string{a}); n != 1 {
		t.Fatalf("RequeueJobs: %d, %v; want 1", n, err)
	}
	// The worker runs the requeued job and acks it with a result.
	res, err = s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 10, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != a {
		t.Fatalf("claim of the requeued job: %v, %v; want task a's job", res.Jobs, err)
	}
	j = res.Jobs[0]
	if _, err := s.Finish(ctx, []store.AttemptEnd{{Queue: q, ID: a, Token: j.Token, Attempt: j.Attempt, Outcome: store.OutcomeAck, Result: []byte("a's result")}}); err != nil {
		t.Fatal(err)
	}
	// The requeue's delivery goes on after the ack.
	if err := redisstore.DeliverTaskEnds(ctx, s, q, []string{a}); err != nil {
		t.Fatal(err)
	}
	if got := readyIDs(t, s, q); !slices.Equal(got, []string{store.TaskJobID("wfr", "b")}) {
		rec, _ := s.GetWorkflow(ctx, "wfr")
		t.Fatalf("ready after the requeued a succeeded: %v, want b's job; workflow %s %v", got, rec.State, rec.Counts)
	}
	// The dependent reads what the requeued task recorded.
	if got, err := s.TaskResults(ctx, "wfr", []string{"a"}); err != nil || len(got) != 1 || string(got[0]) != "a's result" {
		t.Fatalf("task a's result after its requeued run: %q, %v; want \"a's result\"", got, err)
	}
	claimAck(t, s, q)
	if rec, err := s.GetWorkflow(ctx, "wfr"); err != nil || rec.State != store.WorkflowSucceeded {
		t.Fatalf("after b: %+v, %v; want succeeded", rec, err)
	}
}

// A failed task's job is requeued and fails again before RequeueJobs
// delivered the requeue's record: the workflow ends failed again, with
// the new end's time. The requeue and the new failure were applied in
// one step that never saw the workflow running, so it kept the first
// failure's end time: its retention counted from it, the dashboard's
// "Ended" was stale (found by trying the dashboard from outside).
func TestWorkflowTaskRequeuedThenFailedBeforeItsRecord(t *testing.T) {
	bothWorkflowSteps(t, testRequeuedThenFailed)
}

func testRequeuedThenFailed(t *testing.T, oneSlot bool) {
	ctx := context.Background()
	_, rdb, prefix := newPrefixedStore(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, OneSlotPerScript: oneSlot})
	requeuer := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, OneSlotPerScript: oneSlot})
	redisstore.CrashWorkflowsAt(requeuer, "apply")

	const q = "rqf"
	wf := &store.NewWorkflow{ID: "wff", Tasks: []*store.NewTask{wfTask("wff", "a", q), wfTask("wff", "b", q, "a")}}
	if _, err := s.EnqueueWorkflow(ctx, wf); err != nil {
		t.Fatal(err)
	}
	a := store.TaskJobID("wff", "a")
	fail := func(what string) {
		t.Helper()
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 10, Lease: time.Minute})
		if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != a {
			t.Fatalf("claim %s: %v, %v; want task a's job", what, res.Jobs, err)
		}
		j := res.Jobs[0]
		if _, err := s.Finish(ctx, []store.AttemptEnd{{Queue: q, ID: a, Token: j.Token, Attempt: j.Attempt, Outcome: store.OutcomeGarbage,
			Error: &store.AttemptError{Attempt: j.Attempt, Error: "permanent"}}}); err != nil {
			t.Fatal(err)
		}
	}
	fail("of a")
	first, err := s.GetWorkflow(ctx, "wff")
	if err != nil || first.State != store.WorkflowFailed {
		t.Fatalf("after a's failure: %+v, %v; want failed", first, err)
	}
	// The end time is in ms: the second failure must come in a later one.
	for now := time.Now(); !time.Now().After(now.Add(2 * time.Millisecond)); {
	}
	if n, err := requeuer.RequeueJobs(ctx, q, store.StateGarbage, []string{a}); n != 1 {
		t.Fatalf("RequeueJobs: %d, %v; want 1", n, err)
	}
	fail("of the requeued a")
	if err := redisstore.DeliverTaskEnds(ctx, s, q, []string{a}); err != nil {
		t.Fatal(err)
	}
	again, err := s.GetWorkflow(ctx, "wff")
	if err != nil || again.State != store.WorkflowFailed || !again.EndedAt.After(first.EndedAt) {
		t.Fatalf("after the requeued a failed again: %+v, %v; want failed, ended after %v", again, err, first.EndedAt)
	}
}
