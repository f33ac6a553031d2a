package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// kindIndexFunc is a KindIndex case: the store as a store.Searcher, with
// its store.Admin.
type kindIndexFunc = func(t *testing.T, s store.Store, se store.Searcher, a store.Admin)

func kindIndexCases() []testCase[kindIndexFunc] {
	return []testCase[kindIndexFunc]{
		{name: "WalkFollowsJobs", fn: testKindIndexWalk},
		{name: "SearchEmpty", fn: testSearchEmpty},
		{name: "SearchRefusesInvalid", fn: testSearchInvalid},
	}
}

// kindIndexWorkflowFunc is a KindIndexWorkflows case: a KindIndex case
// whose store keeps workflows too.
type kindIndexWorkflowFunc = func(t *testing.T, s store.Store, se store.Searcher, w store.Workflows, a store.Admin)

func kindIndexWorkflowCases() []testCase[kindIndexWorkflowFunc] {
	return []testCase[kindIndexWorkflowFunc]{
		{name: "WorkflowTasks", fn: testKindIndexWorkflowTasks},
	}
}

// testKindIndexWorkflowTasks: the jobs of workflow tasks are indexed by
// kind like any other, whether a task is enqueued with its workflow or
// released later by its dependency's end.
func testKindIndexWorkflowTasks(t *testing.T, s store.Store, se store.Searcher, w store.Workflows, a store.Admin) {
	ctx := t.Context()
	q := newQueue(t)
	if err := a.SetQueueConfig(ctx, q, store.QueueConfig{KindIndex: true}); err != nil {
		t.Fatal(err)
	}
	wf := newWorkflowID(t)
	first, other, then := wfTask(wf, q, "first"), wfTask(wf, q, "other"), wfTask(wf, q, "then", "first")
	first.Job.Kind, then.Job.Kind = "rare", "rare"
	enqueueWorkflow(t, w, newWorkflow(wf, first, other, then))
	rare := func(why string, wantIDs ...string) {
		t.Helper()
		p, err := se.SearchJobs(ctx, store.SearchJobsOpts{Queue: q, State: store.StateReady, Kind: "rare", Walk: store.SearchWalkKind, Examine: 100, Limit: 100})
		if err != nil {
			t.Fatalf("SearchJobs(ready, kind rare, the index): %v", err)
		}
		if got := ids(p.Jobs); !slices.Equal(got, wantIDs) {
			t.Fatalf("%s: the index walk found %v, want %v", why, got, wantIDs)
		}
	}
	rare("enqueued with the workflow", store.TaskJobID(wf, "first"))
	runTask(t, s, q, wf, "first")
	rare("released by its dependency's end", store.TaskJobID(wf, "then"))
}

// testKindIndexWalk: with QueueConfig.KindIndex a search walks the kind's
// jobs (every state, oldest enqueue first) keeping those in the state
// asked, when that is shorter than the state; acked and deleted jobs
// leave it; turned off, a walk of the index is refused.
func testKindIndexWalk(t *testing.T, s store.Store, se store.Searcher, a store.Admin) {
	ctx := t.Context()
	q := newQueue(t)
	if err := a.SetQueueConfig(ctx, q, store.QueueConfig{KindIndex: true}); err != nil {
		t.Fatal(err)
	}
	var jobs []*store.NewJob
	for i := range 40 {
		j := job(q, fmt.Sprintf("j%02d", i))
		if i%10 == 5 {
			j.Kind = "rare"
		}
		if i == 25 {
			j.Delay = time.Hour
		}
		jobs = append(jobs, j)
	}
	add(t, s, jobs...)
	search := func(st store.JobState, walk store.SearchWalk) store.SearchPage {
		t.Helper()
		p, err := se.SearchJobs(ctx, store.SearchJobsOpts{Queue: q, State: st, Kind: "rare", Walk: walk, Examine: 100, Limit: 100})
		if err != nil {
			t.Fatalf("SearchJobs(%s, kind rare, walk %d): %v", st, walk, err)
		}
		return p
	}
	want := func(p store.SearchPage, why string, walk store.SearchWalk, total int, wantIDs ...string) {
		t.Helper()
		if got := ids(p.Jobs); !slices.Equal(got, wantIDs) || p.Walk != walk || p.Total != total {
			t.Fatalf("%s: %v, walk %d, Total %d; want %v, walk %d, Total %d", why, got, p.Walk, p.Total, wantIDs, walk, total)
		}
	}
	want(search(store.StateReady, store.SearchWalkShorter), "rare jobs in ready", store.SearchWalkKind, 4, "j05", "j15", "j35")
	want(search(store.StatePending, store.SearchWalkShorter), "rare jobs in pending (the shorter walk is the state)", store.SearchWalkState, 1, "j25")
	want(search(store.StatePending, store.SearchWalkKind), "rare jobs in pending through the index", store.SearchWalkKind, 4, "j25")

	// Claim up to j09 and ack them: j05 is deleted, so it leaves the index.
	res := claim(t, s, q, 10, time.Hour)
	var acks []store.AttemptEnd
	for _, j := range res.Jobs {
		acks = append(acks, store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck})
	}
	finishOK(t, s, acks...)
	if n, err := a.DeleteJobs(ctx, q, store.StateReady, []string{"j15"}); err != nil || n != 1 {
		t.Fatalf("Delete(j15): %d, %v", n, err)
	}
	want(search(store.StateReady, store.SearchWalkShorter), "rare jobs in ready after an ack and a delete", store.SearchWalkKind, 2, "j35")

	if err := a.SetQueueConfig(ctx, q, store.QueueConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := se.SearchJobs(ctx, store.SearchJobsOpts{Queue: q, State: store.StateReady, Kind: "rare", Walk: store.SearchWalkKind, Examine: 100, Limit: 100}); !errors.Is(err, store.ErrNoKindIndex) {
		t.Fatalf("a walk of the index once it is off: %v, want ErrNoKindIndex", err)
	}
	want(search(store.StateReady, store.SearchWalkShorter), "rare jobs in ready once the index is off", store.SearchWalkState, 28, "j35")
}
