package memstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// newTask returns task name of workflow wf in queue testQueue, waiting for
// deps.
func newTask(wf, name string, deps ...string) *store.NewTask {
	return &store.NewTask{Name: name, Deps: deps, Job: &store.NewJob{
		ID:      store.TaskJobID(wf, name),
		Queue:   testQueue,
		Kind:    "k",
		Args:    []byte("args-" + name),
		JobSpec: store.JobSpec{Meta: map[string]string{store.MetaWorkflow: wf, store.MetaTask: name}},
	}}
}

func enqueueWF(t *testing.T, s *Store, w *store.NewWorkflow) {
	t.Helper()
	dup, err := s.EnqueueWorkflow(context.Background(), w)
	if err != nil || dup {
		t.Fatalf("EnqueueWorkflow(%s): duplicate %v, %v", w.ID, dup, err)
	}
}

func getWF(t *testing.T, s *Store, id string) *store.WorkflowRecord {
	t.Helper()
	r, err := s.GetWorkflow(context.Background(), id)
	if err != nil {
		t.Fatalf("GetWorkflow(%s): %v", id, err)
	}
	return r
}

// taskStates returns the state of every task of wf by name.
func taskStates(t *testing.T, s *Store, wf string) map[string]store.TaskState {
	t.Helper()
	out := map[string]store.TaskState{}
	for _, tr := range getWF(t, s, wf).Tasks {
		out[tr.Name] = tr.State
	}
	return out
}

func wantStates(t *testing.T, s *Store, wf string, want map[string]store.TaskState) {
	t.Helper()
	if got := taskStates(t, s, wf); !maps.Equal(got, want) {
		t.Fatalf("workflow %s tasks %v, want %v", wf, got, want)
	}
}

func wantWF(t *testing.T, s *Store, wf string, st store.WorkflowState) *store.WorkflowRecord {
	t.Helper()
	r := getWF(t, s, wf)
	if r.State != st {
		t.Fatalf("workflow %s is %s, want %s", wf, r.State, st)
	}
	return r
}

// claimAll claims every ready job of testQueue, by ID.
func claimAll(t *testing.T, s *Store) map[string]*store.JobRecord {
	t.Helper()
	out := map[string]*store.JobRecord{}
	for _, r := range claim(t, s, 1000, time.Minute).Jobs {
		out[r.ID] = r
	}
	return out
}

// readyIDs lists the ready jobs of testQueue, sorted.
func readyIDs(t *testing.T, s *Store) []string {
	t.Helper()
	got, _ := listIDs(t, s, store.ListJobsOpts{State: store.StateReady, Limit: 1000})
	slices.Sort(got)
	return got
}

func wantReady(t *testing.T, s *Store, ids ...string) {
	t.Helper()
	slices.Sort(ids)
	if got := readyIDs(t, s); !slices.Equal(got, ids) {
		t.Fatalf("ready %v, want %v", got, ids)
	}
}

// end finishes the claimed job r with outcome o (and result for an ack).
func end(t *testing.T, s *Store, r *store.JobRecord, o store.Outcome, result []byte) {
	t.Helper()
	if errs := finish(t, s, store.AttemptEnd{Queue: r.Queue, ID: r.ID, Token: r.Token, Outcome: o, Result: result}); errs[0] != nil {
		t.Fatalf("finish %s %v: %v", r.ID, o, errs[0])
	}
}

// runOne claims the ready job of task name of wf alone and finishes it.
func runOne(t *testing.T, s *Store, wf, name string, o store.Outcome, result []byte) {
	t.Helper()
	id := store.TaskJobID(wf, name)
	jobs := claimAll(t, s)
	r := jobs[id]
	if r == nil || len(jobs) != 1 {
		t.Fatalf("claimed %v, want %s alone", slices.Sorted(maps.Keys(jobs)), id)
	}
	end(t, s, r, o, result)
}

func TestWorkflowChain(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	c := newTask("w", "c", "b")
	c.Job.Delay = time.Minute
	w := &store.NewWorkflow{ID: "w", Name: "chain", Tasks: []*store.NewTask{newTask("w", "a"), newTask("w", "b", "a"), c}}
	enqueueWF(t, s, w)
	if dup, err := s.EnqueueWorkflow(ctx, w); !dup || err != nil {
		t.Fatalf("again: duplicate %v, %v", dup, err)
	}
	wantReady(t, s, "w~a")
	r := wantWF(t, s, "w", store.WorkflowRunning)
	if !r.CreatedAt.Equal(t0.Truncate(time.Millisecond)) || r.Retention != store.DefaultWorkflowRetention || r.Name != "chain" {
		t.Fatalf("record %+v", r)
	}
	if a := getJob(t, s, "w~a"); a.Meta[store.MetaWorkflow] != "w" || a.Meta[store.MetaTask] != "a" || string(a.Args) != "args-a" {
		t.Fatalf("job a %+v", a)
	}

	runOne(t, s, "w", "a", store.OutcomeAck, []byte("ra"))
	wantReady(t, s, "w~b")
	if res, err := s.TaskResults(ctx, "w", []string{"a", "b", "nope"}); err != nil || string(res[0]) != "ra" || res[1] != nil || res[2] != nil {
		t.Fatalf("results %q %v", res, err)
	}

	clock.Advance(time.Hour)
	runOne(t, s, "w", "b", store.OutcomeAck, nil)
	// c's Delay counts from its release.
	cj := getJob(t, s, "w~c")
	if cj.State != store.StatePending || !cj.RunAt.Equal(t0.Add(time.Hour+time.Minute).Truncate(time.Millisecond)) {
		t.Fatalf("c released %+v, want pending a minute after b's ack", cj)
	}
	wantStates(t, s, "w", map[string]store.TaskState{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskEnqueued})
	clock.Advance(time.Minute)
	maintain(t, s, store.MaintainOpts{})
	runOne(t, s, "w", "c", store.OutcomeAck, nil)
	r = wantWF(t, s, "w", store.WorkflowSucceeded)
	if !r.EndedAt.Equal(clock.Now().Truncate(time.Millisecond)) || r.Counts[store.TaskSucceeded] != 3 || r.Counts[store.TaskWaiting] != 0 {
		t.Fatalf("ended record %+v", r)
	}
	if _, err := s.GetWorkflow(ctx, "nope"); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("unknown workflow: %v", err)
	}
	if _, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "bad~id", Tasks: w.Tasks}); !errors.Is(err, store.ErrInvalidWorkflow) {
		t.Fatalf("invalid workflow: %v", err)
	}
}

func TestWorkflowDiamondAcrossQueues(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	b := newTask("d", "b", "a")
	b.Job.Queue = "other"
	enqueueWF(t, s, &store.NewWorkflow{ID: "d", Tasks: []*store.NewTask{
		newTask("d", "join", "b", "c"), newTask("d", "a"), b, newTask("d", "c", "a"),
	}})
	runOne(t, s, "d", "a", store.OutcomeAck, []byte("A"))
	wantReady(t, s, "d~c")
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "other", Max: 10, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != "d~b" {
		t.Fatalf("claim other: %+v %v", res, err)
	}
	end(t, s, res.Jobs[0], store.OutcomeAck, nil)
	wantStates(t, s, "d", map[string]store.TaskState{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskEnqueued, "join": store.TaskWaiting})
	runOne(t, s, "d", "c", store.OutcomeAck, nil)
	runOne(t, s, "d", "join", store.OutcomeAck, nil)
	r := wantWF(t, s, "d", store.WorkflowSucceeded)
	var names []string
	for _, tr := range r.Tasks {
		names = append(names, tr.Name)
	}
	if !slices.Equal(names, []string{"join", "a", "b", "c"}) || !slices.Equal(r.Tasks[0].Deps, []string{"b", "c"}) ||
		r.Tasks[2].Queue != "other" || r.Tasks[2].JobID != "d~b" || r.Tasks[2].Kind != "k" {
		t.Fatalf("tasks %+v", r.Tasks)
	}
}

func TestWorkflowFailure(t *testing.T) {
	for _, tt := range []struct {
		name         string
		allowFailure bool // on a
		anyOutcome   bool // on b
		outcome      store.Outcome
		b, c         store.TaskState
		wf           store.WorkflowState
	}{
		{"default", false, false, store.OutcomeGarbage, store.TaskSkipped, store.TaskSkipped, store.WorkflowFailed},
		{"allow failure", true, false, store.OutcomeGarbage, store.TaskSucceeded, store.TaskSucceeded, store.WorkflowSucceeded},
		{"any outcome", false, true, store.OutcomeGarbage, store.TaskSucceeded, store.TaskSucceeded, store.WorkflowFailed},
		{"cancelled", false, false, store.OutcomeCancel, store.TaskSkipped, store.TaskSkipped, store.WorkflowFailed},
		{"cancelled allowed", true, false, store.OutcomeCancel, store.TaskSucceeded, store.TaskSucceeded, store.WorkflowSucceeded},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newClocked()
			a, b := newTask("f", "a"), newTask("f", "b", "a")
			a.AllowFailure, b.AnyOutcome = tt.allowFailure, tt.anyOutcome
			enqueueWF(t, s, &store.NewWorkflow{ID: "f", Tasks: []*store.NewTask{a, b, newTask("f", "c", "b")}})
			runOne(t, s, "f", "a", tt.outcome, nil)
			wantA := store.TaskFailed
			if tt.outcome == store.OutcomeCancel {
				wantA = store.TaskCancelled
			}
			if tt.b == store.TaskSucceeded {
				runOne(t, s, "f", "b", store.OutcomeAck, nil)
				runOne(t, s, "f", "c", store.OutcomeAck, nil)
			}
			wantStates(t, s, "f", map[string]store.TaskState{"a": wantA, "b": tt.b, "c": tt.c})
			wantWF(t, s, "f", tt.wf)
			if res, err := s.TaskResults(context.Background(), "f", []string{"a"}); err != nil || res[0] != nil {
				t.Fatalf("result of a failed task: %q %v", res, err)
			}
		})
	}
}

func TestWorkflowSkipOnlyThroughUnsatisfiedDeps(t *testing.T) {
	// a fails; b (after a) is skipped; c (after b, AnyOutcome) runs; d
	// (after c) runs. The workflow fails: a failed and b was skipped.
	s, _ := newClocked()
	c := newTask("s", "c", "b")
	c.AnyOutcome = true
	enqueueWF(t, s, &store.NewWorkflow{ID: "s", Tasks: []*store.NewTask{newTask("s", "a"), newTask("s", "b", "a"), c, newTask("s", "d", "c")}})
	runOne(t, s, "s", "a", store.OutcomeGarbage, nil)
	runOne(t, s, "s", "c", store.OutcomeAck, nil)
	runOne(t, s, "s", "d", store.OutcomeAck, nil)
	wantStates(t, s, "s", map[string]store.TaskState{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskSucceeded, "d": store.TaskSucceeded})
	r := wantWF(t, s, "s", store.WorkflowFailed)
	if r.Counts[store.TaskSkipped] != 1 || r.Counts[store.TaskFailed] != 1 || r.Counts[store.TaskSucceeded] != 2 {
		t.Fatalf("counts %v", r.Counts)
	}
}

func TestWorkflowJobEndsOutsideFinish(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	enqueueWF(t, s, &store.NewWorkflow{ID: "x", Tasks: []*store.NewTask{
		newTask("x", "lease"), newTask("x", "cancel"), newTask("x", "del"), newTask("x", "retry"),
		newTask("x", "after-del", "del"),
	}})
	// lease: claimed, its lease expires with no retry left.
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: testQueue, Max: 1, Lease: time.Second})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != "x~lease" {
		t.Fatalf("claim: %+v %v", res, err)
	}
	clock.Advance(time.Second)
	maintain(t, s, store.MaintainOpts{})
	// cancel: cancelled while waiting; del: deleted while waiting.
	if _, err := s.CancelJob(ctx, testQueue, "x~cancel"); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteJobs(ctx, testQueue, store.StateReady, []string{"x~del"}); n != 1 || err != nil {
		t.Fatalf("delete: %d %v", n, err)
	}
	// retry: fails once with a retry left, then is flagged by Cancel while
	// it runs and finishes with retry: cancelled.
	runOne(t, s, "x", "retry", store.OutcomeRetry, nil)
	wantStates(t, s, "x", map[string]store.TaskState{"lease": store.TaskFailed, "cancel": store.TaskCancelled, "del": store.TaskFailed,
		"retry": store.TaskEnqueued, "after-del": store.TaskSkipped})
	maintain(t, s, store.MaintainOpts{})
	r := claimAll(t, s)["x~retry"]
	if _, err := s.CancelJob(ctx, testQueue, "x~retry"); err != nil {
		t.Fatal(err)
	}
	if st := taskStates(t, s, "x")["retry"]; st != store.TaskEnqueued {
		t.Fatalf("flagged running task is %s", st)
	}
	end(t, s, r, store.OutcomeRetry, nil)
	wantStates(t, s, "x", map[string]store.TaskState{"lease": store.TaskFailed, "cancel": store.TaskCancelled, "del": store.TaskFailed,
		"retry": store.TaskCancelled, "after-del": store.TaskSkipped})
	wantWF(t, s, "x", store.WorkflowFailed)
	// Deleting ended jobs changes nothing.
	if n, _ := s.DeleteJobs(ctx, testQueue, store.StateGarbage, nil); n != 3 {
		t.Fatalf("deleted %d garbage jobs, want 3", n)
	}
	wantStates(t, s, "x", map[string]store.TaskState{"lease": store.TaskFailed, "cancel": store.TaskCancelled, "del": store.TaskFailed,
		"retry": store.TaskCancelled, "after-del": store.TaskSkipped})
}

func TestCancelWorkflow(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	run := newTask("c", "run")
	run.Job.MaxRetries = 3
	enqueueWF(t, s, &store.NewWorkflow{ID: "c", Tasks: []*store.NewTask{
		run, newTask("c", "queued"), newTask("c", "wait", "run"), newTask("c", "wait2", "queued", "wait"),
	}})
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: testQueue, Max: 1, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != "c~run" {
		t.Fatalf("claim: %+v %v", res, err)
	}
	if err := s.CancelWorkflow(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	wantStates(t, s, "c", map[string]store.TaskState{"run": store.TaskEnqueued, "queued": store.TaskCancelled, "wait": store.TaskCancelled, "wait2": store.TaskCancelled})
	if r := wantWF(t, s, "c", store.WorkflowRunning); !r.Cancelled || !r.EndedAt.IsZero() {
		t.Fatalf("record %+v", r)
	}
	if j := getJob(t, s, "c~queued"); j.State != store.StateGarbage || !j.Cancelled {
		t.Fatalf("queued job %+v", j)
	}
	if j := getJob(t, s, "c~run"); j.State != store.StateUnack || !j.Cancelled {
		t.Fatalf("running job %+v", j)
	}
	if err := s.AddTasks(ctx, "c", "run", []*store.NewTask{newTask("c", "more")}); !errors.Is(err, store.ErrWorkflowEnded) {
		t.Fatalf("AddTasks to a cancelled workflow: %v", err)
	}
	if _, err := s.RetryWorkflow(ctx, "c"); !errors.Is(err, store.ErrWorkflowEnded) {
		t.Fatalf("RetryWorkflow of a cancelled workflow: %v", err)
	}
	end(t, s, res.Jobs[0], store.OutcomeRetry, nil) // cancelled instead
	wantStates(t, s, "c", map[string]store.TaskState{"run": store.TaskCancelled, "queued": store.TaskCancelled, "wait": store.TaskCancelled, "wait2": store.TaskCancelled})
	r := wantWF(t, s, "c", store.WorkflowCancelled)
	if err := s.CancelWorkflow(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if r2 := getWF(t, s, "c"); !r2.EndedAt.Equal(r.EndedAt) || r2.State != store.WorkflowCancelled {
		t.Fatalf("cancelling again changed %+v", r2)
	}
	if err := s.CancelWorkflow(ctx, "nope"); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("cancel unknown: %v", err)
	}

	// A workflow cancelled with nothing running ends at once; one that
	// ended is left as it is.
	enqueueWF(t, s, &store.NewWorkflow{ID: "c2", Tasks: []*store.NewTask{newTask("c2", "a")}})
	if err := s.CancelWorkflow(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
	wantWF(t, s, "c2", store.WorkflowCancelled)
	enqueueWF(t, s, &store.NewWorkflow{ID: "c3", Tasks: []*store.NewTask{newTask("c3", "a")}})
	runOne(t, s, "c3", "a", store.OutcomeAck, nil)
	if err := s.CancelWorkflow(ctx, "c3"); err != nil {
		t.Fatal(err)
	}
	if r := wantWF(t, s, "c3", store.WorkflowSucceeded); r.Cancelled {
		t.Fatalf("ended workflow marked cancelled: %+v", r)
	}
}

func TestRequeueReopensWorkflow(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	other := newTask("r", "other")
	enqueueWF(t, s, &store.NewWorkflow{ID: "r", Tasks: []*store.NewTask{
		newTask("r", "a"), newTask("r", "b", "a"), newTask("r", "c", "b", "other"), other,
	}})
	jobs := claimAll(t, s)
	end(t, s, jobs["r~a"], store.OutcomeGarbage, nil)
	end(t, s, jobs["r~other"], store.OutcomeAck, nil)
	r := wantWF(t, s, "r", store.WorkflowFailed)
	if r.EndedAt.IsZero() {
		t.Fatal("ended workflow without EndedAt")
	}
	clock.Advance(time.Second)

	if n, err := s.RequeueJobs(ctx, testQueue, store.StateGarbage, []string{"r~a"}); n != 1 || err != nil {
		t.Fatalf("requeue: %d %v", n, err)
	}
	wantStates(t, s, "r", map[string]store.TaskState{"a": store.TaskEnqueued, "b": store.TaskWaiting, "c": store.TaskWaiting, "other": store.TaskSucceeded})
	if r := wantWF(t, s, "r", store.WorkflowRunning); !r.EndedAt.IsZero() {
		t.Fatalf("re-opened workflow keeps EndedAt %v", r.EndedAt)
	}
	runOne(t, s, "r", "a", store.OutcomeAck, nil)
	runOne(t, s, "r", "b", store.OutcomeAck, nil)
	// c's count was recomputed: other had succeeded already.
	runOne(t, s, "r", "c", store.OutcomeAck, nil)
	wantWF(t, s, "r", store.WorkflowSucceeded)

}

func TestRequeueDoneTaskLeavesWorkflow(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	enqueueWF(t, s, &store.NewWorkflow{ID: "dn", Tasks: []*store.NewTask{newTask("dn", "a")}})
	r := claimAll(t, s)["dn~a"]
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: r.ID, Token: r.Token, Outcome: store.OutcomeAck, Result: []byte("1"), Retention: time.Hour})
	ended := wantWF(t, s, "dn", store.WorkflowSucceeded)
	if n, err := s.RequeueJobs(ctx, testQueue, store.StateDone, []string{"dn~a"}); n != 1 || err != nil {
		t.Fatalf("requeue: %d %v", n, err)
	}
	runOne(t, s, "dn", "a", store.OutcomeGarbage, nil)
	if n, err := s.RequeueJobs(ctx, testQueue, store.StateGarbage, []string{"dn~a"}); n != 1 || err != nil {
		t.Fatalf("requeue: %d %v", n, err)
	}
	if r := wantWF(t, s, "dn", store.WorkflowSucceeded); !r.EndedAt.Equal(ended.EndedAt) || r.Counts[store.TaskSucceeded] != 1 {
		t.Fatalf("workflow changed: %+v", r)
	}
	if res, _ := s.TaskResults(ctx, "dn", []string{"a"}); string(res[0]) != "1" {
		t.Fatalf("result %q", res[0])
	}
}

func TestRetryWorkflow(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	b := newTask("rw", "b")
	enqueueWF(t, s, &store.NewWorkflow{ID: "rw", Tasks: []*store.NewTask{
		newTask("rw", "a"), b, newTask("rw", "ok"), newTask("rw", "join", "a", "b", "ok"),
	}})
	jobs := claimAll(t, s)
	end(t, s, jobs["rw~a"], store.OutcomeGarbage, nil)
	end(t, s, jobs["rw~b"], store.OutcomeCancel, nil)
	end(t, s, jobs["rw~ok"], store.OutcomeAck, nil)
	wantWF(t, s, "rw", store.WorkflowFailed)
	n, err := s.RetryWorkflow(ctx, "rw")
	if n != 2 || err != nil {
		t.Fatalf("retry: %d %v, want 2", n, err)
	}
	wantStates(t, s, "rw", map[string]store.TaskState{"a": store.TaskEnqueued, "b": store.TaskEnqueued, "ok": store.TaskSucceeded, "join": store.TaskWaiting})
	wantWF(t, s, "rw", store.WorkflowRunning)
	jobs = claimAll(t, s)
	end(t, s, jobs["rw~a"], store.OutcomeAck, nil)
	// join stays skipped-free: b is still open.
	wantStates(t, s, "rw", map[string]store.TaskState{"a": store.TaskSucceeded, "b": store.TaskEnqueued, "ok": store.TaskSucceeded, "join": store.TaskWaiting})
	end(t, s, jobs["rw~b"], store.OutcomeGarbage, nil)
	wantStates(t, s, "rw", map[string]store.TaskState{"a": store.TaskSucceeded, "b": store.TaskFailed, "ok": store.TaskSucceeded, "join": store.TaskSkipped})
	if n, err := s.RetryWorkflow(ctx, "rw"); n != 1 || err != nil {
		t.Fatalf("retry again: %d %v", n, err)
	}
	runOne(t, s, "rw", "b", store.OutcomeAck, nil)
	runOne(t, s, "rw", "join", store.OutcomeAck, nil)
	wantWF(t, s, "rw", store.WorkflowSucceeded)
	if n, err := s.RetryWorkflow(ctx, "rw"); n != 0 || err != nil {
		t.Fatalf("retry a succeeded workflow: %d %v", n, err)
	}
	if _, err := s.RetryWorkflow(ctx, "nope"); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("retry unknown: %v", err)
	}
}

func TestAddTasks(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	enqueueWF(t, s, &store.NewWorkflow{ID: "g", Tasks: []*store.NewTask{
		newTask("g", "done"), newTask("g", "bad"), newTask("g", "split"), newTask("g", "join", "split"),
	}})
	jobs := claimAll(t, s)
	end(t, s, jobs["g~done"], store.OutcomeAck, []byte("D"))
	end(t, s, jobs["g~bad"], store.OutcomeGarbage, nil)

	blocked := func(name string, deps ...string) *store.NewTask {
		nt := newTask("g", name, deps...)
		nt.Blocks = []string{"join"}
		return nt
	}
	for _, tt := range []struct {
		name  string
		by    string
		tasks []*store.NewTask
		want  error
	}{
		{"dep on a waiting task", "split", []*store.NewTask{newTask("g", "x", "join")}, store.ErrInvalidWorkflow},
		{"dep on an unknown task", "split", []*store.NewTask{newTask("g", "x", "nope")}, store.ErrInvalidWorkflow},
		{"blocks an enqueued task", "split", []*store.NewTask{func() *store.NewTask { nt := newTask("g", "x"); nt.Blocks = []string{"split"}; return nt }()}, store.ErrInvalidWorkflow},
		{"blocks an unknown task", "split", []*store.NewTask{func() *store.NewTask { nt := newTask("g", "x"); nt.Blocks = []string{"nope"}; return nt }()}, store.ErrInvalidWorkflow},
		{"bad job", "split", []*store.NewTask{newTask("w", "x")}, store.ErrInvalidWorkflow},
	} {
		if err := s.AddTasks(ctx, "g", tt.by, tt.tasks); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
	}
	if err := s.AddTasks(ctx, "nope", "split", []*store.NewTask{newTask("nope", "x")}); !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Errorf("unknown workflow: %v", err)
	}
	if n := len(getWF(t, s, "g").Tasks); n != 4 {
		t.Fatalf("failed AddTasks added tasks: %d", n)
	}

	// The fan-out: part-1 and part-2 wait for split and block join; after
	// waits for done, which succeeded (released at once); skip waits for
	// bad, which failed (skipped at once).
	add := []*store.NewTask{newTask("g", "tail", "part-1"), blocked("part-1", "split"), blocked("part-2", "split"), newTask("g", "after", "done"), newTask("g", "skip", "bad"), newTask("g", "join")}
	for range 2 { // the second time changes nothing
		if err := s.AddTasks(ctx, "g", "split", add); err != nil {
			t.Fatal(err)
		}
	}
	r := getWF(t, s, "g")
	var names []string
	for _, tr := range r.Tasks {
		names = append(names, tr.Name)
		if tr.Name == "join" && !slices.Equal(tr.Deps, []string{"split", "part-1", "part-2"}) {
			t.Errorf("join deps %v", tr.Deps)
		}
		if tr.Name == "done" && tr.Deps != nil {
			t.Errorf("done deps %#v, want nil", tr.Deps)
		}
		if want := map[bool]string{true: "split", false: ""}[len(names) > 4]; tr.AddedBy != want {
			t.Errorf("%s added by %q, want %q", tr.Name, tr.AddedBy, want)
		}
	}
	if !slices.Equal(names, []string{"done", "bad", "split", "join", "tail", "part-1", "part-2", "after", "skip"}) {
		t.Fatalf("tasks %v", names)
	}
	wantStates(t, s, "g", map[string]store.TaskState{"done": store.TaskSucceeded, "bad": store.TaskFailed, "split": store.TaskEnqueued,
		"join": store.TaskWaiting, "tail": store.TaskWaiting, "part-1": store.TaskWaiting, "part-2": store.TaskWaiting,
		"after": store.TaskEnqueued, "skip": store.TaskSkipped})
	wantReady(t, s, "g~after")

	end(t, s, jobs["g~split"], store.OutcomeAck, nil)
	jobs = claimAll(t, s)
	if len(jobs) != 3 || jobs["g~part-1"] == nil || jobs["g~part-2"] == nil || jobs["g~after"] == nil {
		t.Fatalf("claimed %v", slices.Sorted(maps.Keys(jobs)))
	}
	end(t, s, jobs["g~part-1"], store.OutcomeAck, nil)
	end(t, s, jobs["g~after"], store.OutcomeAck, nil)
	if st := taskStates(t, s, "g")["join"]; st != store.TaskWaiting {
		t.Fatalf("join %s before part-2 ended", st)
	}
	end(t, s, jobs["g~part-2"], store.OutcomeAck, nil)
	jobs = claimAll(t, s)
	if len(jobs) != 2 || jobs["g~join"] == nil || jobs["g~tail"] == nil {
		t.Fatalf("claimed %v", slices.Sorted(maps.Keys(jobs)))
	}
	end(t, s, jobs["g~join"], store.OutcomeAck, nil)
	end(t, s, jobs["g~tail"], store.OutcomeAck, nil)
	wantWF(t, s, "g", store.WorkflowFailed) // bad failed, skip was skipped
	if err := s.AddTasks(ctx, "g", "join", []*store.NewTask{newTask("g", "late")}); !errors.Is(err, store.ErrWorkflowEnded) {
		t.Fatalf("AddTasks to an ended workflow: %v", err)
	}
}

func TestWorkflowRetention(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	enqueueWF(t, s, &store.NewWorkflow{ID: "old", Retention: time.Hour, Tasks: []*store.NewTask{newTask("old", "a")}})
	enqueueWF(t, s, &store.NewWorkflow{ID: "lazy", Retention: time.Hour, Tasks: []*store.NewTask{newTask("lazy", "a")}})
	enqueueWF(t, s, &store.NewWorkflow{ID: "keep", Tasks: []*store.NewTask{newTask("keep", "a")}})
	jobs := claimAll(t, s)
	end(t, s, jobs["old~a"], store.OutcomeAck, []byte("x"))
	end(t, s, jobs["lazy~a"], store.OutcomeAck, nil)
	end(t, s, jobs["keep~a"], store.OutcomeAck, nil)

	if d, err := s.MaintainWorkflows(ctx, 10); err != nil || d != wfMaintainMax {
		t.Fatalf("maintain: %v %v, want the cap", d, err)
	}
	clock.Advance(time.Hour - 2*time.Second)
	if d, err := s.MaintainWorkflows(ctx, 10); err != nil || d != 2*time.Second {
		t.Fatalf("maintain: %v %v, want 2s", d, err)
	}
	getWF(t, s, "old")
	clock.Advance(2 * time.Second)
	if d, err := s.MaintainWorkflows(ctx, 1); err != nil || d != 0 {
		t.Fatalf("maintain batch 1: %v %v, want 0 (more due)", d, err)
	}
	// One of old and lazy was removed; reads treat the other as gone too.
	for _, id := range []string{"old", "lazy"} {
		if _, err := s.GetWorkflow(ctx, id); !errors.Is(err, store.ErrWorkflowNotFound) {
			t.Fatalf("GetWorkflow(%s) past retention: %v", id, err)
		}
		if _, err := s.TaskResults(ctx, id, []string{"a"}); !errors.Is(err, store.ErrWorkflowNotFound) {
			t.Fatalf("TaskResults(%s) past retention: %v", id, err)
		}
	}
	if d, err := s.MaintainWorkflows(ctx, 10); err != nil || d != wfMaintainMax {
		t.Fatalf("maintain: %v %v", d, err)
	}
	if len(s.wf.byID) != 1 {
		t.Fatalf("%d workflows kept, want keep alone", len(s.wf.byID))
	}
	// The ID may be used again; the old task's job, if kept, is replaced.
	enqueueWF(t, s, &store.NewWorkflow{ID: "old", Tasks: []*store.NewTask{newTask("old", "a")}})
	wantReady(t, s, "old~a")
	if _, err := s.MaintainWorkflows(ctx, -1); !errors.Is(err, store.ErrInvalidConfig) {
		t.Fatalf("negative batch: %v", err)
	}
}

func TestWorkflowReleaseReplacesEndedJob(t *testing.T) {
	s, clock := newClocked()
	enqueueWF(t, s, &store.NewWorkflow{ID: "re", Retention: time.Hour, Tasks: []*store.NewTask{newTask("re", "a")}})
	r := claimAll(t, s)["re~a"]
	// The job is kept in done longer than its workflow.
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: r.ID, Token: r.Token, Outcome: store.OutcomeAck, Retention: 48 * time.Hour})
	if j := getJob(t, s, "re~a"); j.State != store.StateDone {
		t.Fatalf("job %+v", j)
	}
	clock.Advance(time.Hour)
	enqueueWF(t, s, &store.NewWorkflow{ID: "re", Tasks: []*store.NewTask{newTask("re", "a")}})
	runOne(t, s, "re", "a", store.OutcomeAck, nil)
	wantWF(t, s, "re", store.WorkflowSucceeded)
}

func TestListWorkflows(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	for i := range 5 {
		id := fmt.Sprintf("wf-%d", i)
		enqueueWF(t, s, &store.NewWorkflow{ID: id, Name: fmt.Sprintf("nightly %d", i%2), Tasks: []*store.NewTask{newTask(id, "a")}})
		if i != 3 {
			clock.Advance(time.Second) // wf-3 and wf-4 share a CreatedAt
		}
	}
	jobs := claimAll(t, s)
	end(t, s, jobs["wf-0~a"], store.OutcomeAck, nil)
	end(t, s, jobs["wf-1~a"], store.OutcomeGarbage, nil)
	if err := s.CancelWorkflow(ctx, "wf-2"); err != nil {
		t.Fatal(err)
	}
	end(t, s, jobs["wf-2~a"], store.OutcomeRetry, nil) // flagged: cancelled
	list := func(f store.ListWorkflowsOpts) ([]string, store.WorkflowPage) {
		t.Helper()
		page, err := s.ListWorkflows(ctx, f)
		if err != nil {
			t.Fatalf("ListWorkflows(%+v): %v", f, err)
		}
		var ids []string
		for _, w := range page.Workflows {
			if w.Tasks != nil {
				t.Fatalf("listed with tasks: %+v", w)
			}
			ids = append(ids, w.ID)
		}
		return ids, page
	}
	wantCounts := map[store.WorkflowState]int{store.WorkflowRunning: 2, store.WorkflowSucceeded: 1, store.WorkflowFailed: 1, store.WorkflowCancelled: 1}
	for _, tt := range []struct {
		f     store.ListWorkflowsOpts
		want  []string
		total int
	}{
		{store.ListWorkflowsOpts{}, []string{"wf-4", "wf-3", "wf-2", "wf-1", "wf-0"}, 5},
		{store.ListWorkflowsOpts{Offset: 1, Limit: 2}, []string{"wf-3", "wf-2"}, 5},
		{store.ListWorkflowsOpts{Offset: 9}, nil, 5},
		{store.ListWorkflowsOpts{State: store.WorkflowRunning}, []string{"wf-4", "wf-3"}, 2},
		{store.ListWorkflowsOpts{State: store.WorkflowFailed}, []string{"wf-1"}, 1},
		{store.ListWorkflowsOpts{Search: "nightly 1"}, []string{"wf-3", "wf-1"}, 2},
		{store.ListWorkflowsOpts{Search: "wf-2"}, []string{"wf-2"}, 1},
		{store.ListWorkflowsOpts{Search: "f-2"}, nil, 0}, // an ID matches by prefix only
		{store.ListWorkflowsOpts{Search: "nightly", State: store.WorkflowCancelled}, []string{"wf-2"}, 1},
	} {
		ids, page := list(tt.f)
		if !slices.Equal(ids, tt.want) || page.Total != tt.total || !maps.Equal(page.Counts, wantCounts) {
			t.Errorf("%+v: %v total %d counts %v, want %v total %d counts %v", tt.f, ids, page.Total, page.Counts, tt.want, tt.total, wantCounts)
		}
	}
	_, page := list(store.ListWorkflowsOpts{Search: "wf-1"})
	if w := page.Workflows[0]; w.State != store.WorkflowFailed || w.Counts[store.TaskFailed] != 1 || w.Name != "nightly 1" || w.EndedAt.IsZero() {
		t.Errorf("record %+v", w)
	}
	for _, f := range []store.ListWorkflowsOpts{{Offset: -1}, {Limit: -1}, {Limit: 1001}, {State: "nope"}} {
		if _, err := s.ListWorkflows(ctx, f); !errors.Is(err, store.ErrInvalidConfig) {
			t.Errorf("%+v: %v", f, err)
		}
	}
}

func TestWorkflowRecordsAreCopies(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	a, b := newTask("cp", "a"), newTask("cp", "b", "a")
	enqueueWF(t, s, &store.NewWorkflow{ID: "cp", Tasks: []*store.NewTask{a, b}})
	// Changing what was given changes nothing stored.
	b.Job.Args[0] = 'X'
	b.Job.Meta["k"] = "v"
	b.Deps[0] = "zz"
	r := getWF(t, s, "cp")
	r.Tasks[1].Deps[0] = "zz"
	r.Counts[store.TaskWaiting] = 99
	r.Tasks[0].State = store.TaskFailed
	if r := getWF(t, s, "cp"); r.Tasks[1].Deps[0] != "a" || !maps.Equal(r.Counts, map[store.TaskState]int{store.TaskWaiting: 1, store.TaskEnqueued: 1}) ||
		r.Tasks[0].State != store.TaskEnqueued {
		t.Fatalf("record changed through a copy: %+v", r)
	}
	result := []byte("result")
	runOne(t, s, "cp", "a", store.OutcomeAck, result)
	result[0] = 'X'
	res, _ := s.TaskResults(ctx, "cp", []string{"a"})
	res[0][1] = 'X'
	if res, _ := s.TaskResults(ctx, "cp", []string{"a"}); string(res[0]) != "result" {
		t.Fatalf("result %q", res[0])
	}
	if j := getJob(t, s, "cp~b"); string(j.Args) != "args-b" || len(j.Meta) != 2 {
		t.Fatalf("released job %+v", j)
	}
}

// TestWorkflowConcurrentFanIn runs a wide fan-out over several queues with
// workers finishing in parallel: the join is released exactly once, after
// every part.
func TestWorkflowConcurrentFanIn(t *testing.T) {
	s := New(nil)
	ctx := context.Background()
	const parts, queues = 200, 4
	var tasks []*store.NewTask
	var names []string
	for i := range parts {
		nt := newTask("fan", fmt.Sprintf("p%d", i))
		nt.Job.Queue = fmt.Sprintf("q%d", i%queues)
		nt.AllowFailure = i%10 == 7 // the parts that fail
		tasks = append(tasks, nt)
		names = append(names, nt.Name)
	}
	tasks = append(tasks, newTask("fan", "join", names...))
	enqueueWF(t, s, &store.NewWorkflow{ID: "fan", Tasks: tasks})
	var wg sync.WaitGroup
	for i := range queues {
		wg.Go(func() {
			q := fmt.Sprintf("q%d", i)
			for {
				res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 3, Lease: time.Minute})
				if err != nil {
					t.Error(err)
					return
				}
				if len(res.Jobs) == 0 {
					return
				}
				for _, j := range res.Jobs {
					o := store.OutcomeAck
					if j.ID[len(j.ID)-1] == '7' {
						o = store.OutcomeGarbage
					}
					if errs, err := s.Finish(ctx, []store.AttemptEnd{{Queue: q, ID: j.ID, Token: j.Token, Outcome: o}}); err != nil || errs[0] != nil {
						t.Error(err, errs[0])
					}
				}
			}
		})
		wg.Go(func() {
			for range 50 {
				if _, err := s.ListWorkflows(ctx, store.ListWorkflowsOpts{}); err != nil {
					t.Error(err)
				}
				if _, err := s.GetWorkflow(ctx, "fan"); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	r := getWF(t, s, "fan")
	if r.Counts[store.TaskSucceeded] != parts-parts/10 || r.Counts[store.TaskFailed] != parts/10 || r.Counts[store.TaskEnqueued] != 1 {
		t.Fatalf("counts %v", r.Counts)
	}
	wantReady(t, s, "fan~join")
	runOne(t, s, "fan", "join", store.OutcomeAck, nil)
	wantWF(t, s, "fan", store.WorkflowSucceeded)
}

// TestRequeueInCancelledWorkflow: requeueing a failed task's job by hand
// in a cancelled workflow runs it again and re-opens the workflow, but the
// tasks it would release are cancelled, and it ends cancelled again.
func TestRequeueInCancelledWorkflow(t *testing.T) {
	s, _ := newClocked()
	ctx := context.Background()
	enqueueWF(t, s, &store.NewWorkflow{ID: "rc", Tasks: []*store.NewTask{newTask("rc", "a"), newTask("rc", "b", "a"), newTask("rc", "c")}})
	jobs := claimAll(t, s)
	end(t, s, jobs["rc~a"], store.OutcomeGarbage, nil)
	if err := s.CancelWorkflow(ctx, "rc"); err != nil {
		t.Fatal(err)
	}
	end(t, s, jobs["rc~c"], store.OutcomeAck, nil) // running when cancelled: its ack stands
	wantStates(t, s, "rc", map[string]store.TaskState{"a": store.TaskFailed, "b": store.TaskSkipped, "c": store.TaskSucceeded})
	wantWF(t, s, "rc", store.WorkflowCancelled)
	if n, err := s.RequeueJobs(ctx, testQueue, store.StateGarbage, []string{"rc~a"}); n != 1 || err != nil {
		t.Fatalf("requeue: %d %v", n, err)
	}
	wantStates(t, s, "rc", map[string]store.TaskState{"a": store.TaskEnqueued, "b": store.TaskWaiting, "c": store.TaskSucceeded})
	if r := wantWF(t, s, "rc", store.WorkflowRunning); !r.Cancelled {
		t.Fatalf("re-opened workflow lost its cancel: %+v", r)
	}
	runOne(t, s, "rc", "a", store.OutcomeAck, nil)
	wantStates(t, s, "rc", map[string]store.TaskState{"a": store.TaskSucceeded, "b": store.TaskCancelled, "c": store.TaskSucceeded})
	wantWF(t, s, "rc", store.WorkflowCancelled)
	wantReady(t, s)
}
