package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// A workflow that ends while the process that enqueued it has yet to write
// its first state ("running") to the index must end up indexed in the state
// it ended in, with its expiry: the late write of "running" used to win, so
// that the workflow was listed as running for ever and never expired. On
// one server the create step indexes the workflow itself (and enqueues its
// first task), so there is no late write to lose; on the records path
// (Cluster, OneSlotPerScript) another process ends it in that moment.
func TestWorkflowIndexLateWriteLoses(t *testing.T) {
	forWorkflowPaths(t, func(t *testing.T, records bool) {
		t.Parallel()
		ctx := context.Background()
		o := &redisstore.Config{Prefix: redistest.Prefix(t), OneSlotPerScript: records}
		s, rdb := newStore(t, o)
		other := storeOn(t, rdb, o)
		// Another process runs the task, and so ends the workflow,
		// between the release and the index write of EnqueueWorkflow.
		ran := false
		redisstore.BeforeWorkflowIndex(s, func() {
			ran = true
			if ids := claimAck(t, other, "qi"); len(ids) != 1 {
				t.Errorf("claimed %v, want the workflow's one task", ids)
			}
		})
		if _, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "fast", Tasks: []*store.NewTask{wfTask("fast", "a", "qi")}}); err != nil {
			t.Fatal(err)
		}
		if ran == !records {
			t.Fatalf("an index write after the create step: %v, want %v", ran, records)
		}
		if !records {
			if ids := claimAck(t, other, "qi"); len(ids) != 1 {
				t.Fatalf("claimed %v, want the workflow's one task", ids)
			}
		}
		rec, err := s.GetWorkflow(ctx, "fast")
		if err != nil {
			t.Fatal(err)
		}
		if rec.State != store.WorkflowSucceeded {
			t.Fatalf("workflow state %q, want succeeded", rec.State)
		}
		for _, st := range []store.WorkflowState{store.WorkflowRunning, store.WorkflowSucceeded} {
			page, err := s.ListWorkflows(ctx, store.ListWorkflowsOpts{State: st})
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			if st == store.WorkflowSucceeded {
				want = 1
			}
			if page.Total != want {
				t.Errorf("ListWorkflows(%s): %d workflows, want %d", st, page.Total, want)
			}
		}
		if n := redisstore.WorkflowsExpiring(ctx, s); n != 1 {
			t.Errorf("%d workflows wait for their retention to end, want 1 (the ended one)", n)
		}
	})
}

// A workflow that ends and is deleted (its retention over) before the
// process that enqueued it wrote its first state to the index must not be
// listed afterwards: the late write used to put it back in the index, where
// nothing would ever take it out. (On the records path: on one server the
// create step writes the index itself.)
func TestWorkflowIndexLateWriteOfGoneWorkflow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := &redisstore.Config{Prefix: redistest.Prefix(t), OneSlotPerScript: true}
	s, rdb := newStore(t, o)
	other := storeOn(t, rdb, o)
	redisstore.BeforeWorkflowIndex(s, func() {
		claimAck(t, other, "qg")
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := other.MaintainWorkflows(ctx, 100); err != nil {
				t.Error(err)
				return
			}
			if _, err := other.GetWorkflow(ctx, "brief"); errors.Is(err, store.ErrWorkflowNotFound) {
				return
			}
			if time.Now().After(deadline) {
				t.Error("the sweeper did not delete the ended workflow within 10 s")
				return
			}
		}
	})
	w := &store.NewWorkflow{ID: "brief", Retention: time.Millisecond, Tasks: []*store.NewTask{wfTask("brief", "a", "qg")}}
	if _, err := s.EnqueueWorkflow(ctx, w); err != nil {
		t.Fatal(err)
	}
	page, err := s.ListWorkflows(ctx, store.ListWorkflowsOpts{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 0 || len(page.Workflows) != 0 {
		t.Errorf("ListWorkflows after the workflow was deleted: %d listed, %d in all; want none", len(page.Workflows), page.Total)
	}
}

// Workflows a late index write left listed as running after they ended
// (before the fix above) are put right by MaintainWorkflows, which checks
// the running list against each workflow's own state: the ended one is
// listed under its state and expires, one deleted meanwhile leaves the
// index, one still running stays.
func TestWorkflowIndexRepair(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := &redisstore.Config{Prefix: redistest.Prefix(t)}
	s, _ := newStore(t, o)
	for _, id := range []string{"ended", "open"} {
		if _, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: id, Tasks: []*store.NewTask{wfTask(id, "a", "qr")}}); err != nil {
			t.Fatal(err)
		}
	}
	// Run the first task of "ended" only (claim one job at a time).
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "qr", Max: 1, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != store.TaskJobID("ended", "a") {
		t.Fatalf("claim: %+v, %v; want the task of workflow ended", res, err)
	}
	if _, err := s.Finish(ctx, []store.AttemptEnd{{Queue: "qr", ID: res.Jobs[0].ID, Token: res.Jobs[0].Token, Attempt: res.Jobs[0].Attempt, Outcome: store.OutcomeAck}}); err != nil {
		t.Fatal(err)
	}
	// What a late write left: ended listed as running, without expiry; a
	// workflow that no longer exists listed as running.
	for _, id := range []string{"ended", "gone"} {
		if err := redisstore.IndexWorkflowAs(ctx, s, id, "running"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.MaintainWorkflows(ctx, 100); err != nil {
		t.Fatal(err)
	}
	count := func(st store.WorkflowState) int {
		page, err := s.ListWorkflows(ctx, store.ListWorkflowsOpts{State: st})
		if err != nil {
			t.Fatal(err)
		}
		return page.Total
	}
	if n := count(store.WorkflowRunning); n != 1 {
		t.Errorf("%d workflows listed as running after the sweep, want 1 (open)", n)
	}
	if n := count(store.WorkflowSucceeded); n != 1 {
		t.Errorf("%d workflows listed as succeeded after the sweep, want 1 (ended)", n)
	}
	if n := count(""); n != 2 {
		t.Errorf("%d workflows listed after the sweep, want 2 (gone is not)", n)
	}
	if n := redisstore.WorkflowsExpiring(ctx, s); n != 1 {
		t.Errorf("%d workflows wait for their retention to end, want 1 (ended)", n)
	}
}
