package storetest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// Workflows cases build store-level workflows directly: each task's job has
// the ID store.TaskJobID(workflow, task) and the Meta the store.Workflows
// contract asks for, as hopper's Client would build it. Tasks of one
// workflow are spread over several fresh queues (on a Redis Cluster, over
// several shards). The suite plays the worker through store.Store (Claim,
// Finish, Extend) and the operator through store.Admin (Cancel, Requeue,
// Delete, GetJob), and reads what a user sees through GetWorkflow,
// ListWorkflows and TaskResults.

// workflowFunc is a Workflows case: it builds workflows through w, runs
// their tasks' jobs through s, the same store, and acts on jobs through a,
// the store as a store.Admin, nil when it is not one.
type workflowFunc = func(t *testing.T, s store.Store, w store.Workflows, a store.Admin)

type workflowCase = testCase[workflowFunc]

// newWorkflowID returns a workflow ID no other subtest (in this or another
// run) uses, with a readable hint of the subtest's name.
func newWorkflowID(t *testing.T) string {
	return fmt.Sprintf("wf.%s.%s.%d", nameHint(t), runID, queueSeq.Add(1))
}

// newQueues returns n fresh queue names.
func newQueues(t *testing.T, n int) []string {
	qs := make([]string, n)
	for i := range qs {
		qs[i] = newQueue(t)
	}
	return qs
}

// wfTask returns task name of workflow wf, its job in queue q, waiting for
// deps. Callers set AllowFailure, AnyOutcome, Blocks and job fields on the
// result.
func wfTask(wf, q, name string, deps ...string) *store.NewTask {
	return &store.NewTask{Name: name, Deps: deps, Job: &store.NewJob{
		ID:      store.TaskJobID(wf, name),
		Queue:   q,
		Kind:    kind,
		Args:    []byte("args of " + name),
		JobSpec: store.JobSpec{Meta: map[string]string{store.MetaWorkflow: wf, store.MetaTask: name}},
	}}
}

// newWorkflow returns workflow id holding tasks, kept for an hour once
// ended.
func newWorkflow(id string, tasks ...*store.NewTask) *store.NewWorkflow {
	return &store.NewWorkflow{ID: id, Name: "storetest " + id, Retention: long, Tasks: tasks}
}

// enqueueWorkflow calls EnqueueWorkflow and fails unless it stored nw.
func enqueueWorkflow(t *testing.T, w store.Workflows, nw *store.NewWorkflow) {
	t.Helper()
	dup, err := w.EnqueueWorkflow(t.Context(), nw)
	if err != nil || dup {
		t.Fatalf("EnqueueWorkflow(%q, %d tasks): duplicate %v, error %v; want it stored", nw.ID, len(nw.Tasks), dup, err)
	}
}

// getWorkflow returns workflow id as GetWorkflow reports it, or fails the
// test.
func getWorkflow(t *testing.T, w store.Workflows, id string) *store.WorkflowRecord {
	t.Helper()
	r, err := w.GetWorkflow(t.Context(), id)
	if err != nil {
		t.Fatalf("GetWorkflow(%q): unexpected error: %v", id, err)
	}
	if r == nil || r.ID != id {
		t.Fatalf("GetWorkflow(%q) returned %+v, want the workflow", id, r)
	}
	return r
}

// requireNoWorkflow fails unless GetWorkflow reports ErrWorkflowNotFound for id.
func requireNoWorkflow(t *testing.T, w store.Workflows, id, why string) {
	t.Helper()
	r, err := w.GetWorkflow(t.Context(), id)
	if !errors.Is(err, store.ErrWorkflowNotFound) {
		t.Fatalf("GetWorkflow(%q) after %s: got %+v, error %v; want ErrWorkflowNotFound", id, why, r, err)
	}
}

// taskStates maps task names to the states a case expects them in.
type taskStates map[string]store.TaskState

// requireWorkflow fails unless workflow id is in state st with its tasks in
// the states tasks gives (every task, none missing), its Counts matching
// them, and EndedAt set exactly when it has ended. It returns the record.
func requireWorkflow(t *testing.T, w store.Workflows, id string, st store.WorkflowState, tasks taskStates) *store.WorkflowRecord {
	t.Helper()
	r := getWorkflow(t, w, id)
	got := make(taskStates, len(r.Tasks))
	for _, tr := range r.Tasks {
		got[tr.Name] = tr.State
	}
	if r.State != st || !maps.Equal(got, tasks) {
		t.Fatalf("workflow %q: %s with tasks %v; want %s with tasks %v", id, r.State, got, st, tasks)
	}
	if want := countStates(tasks); !maps.Equal(nonZero(r.Counts), want) {
		t.Fatalf("workflow %q: Counts %v, want %v (its tasks' states)", id, r.Counts, want)
	}
	if ended := st != store.WorkflowRunning; r.EndedAt.IsZero() == ended {
		t.Fatalf("workflow %q in state %s: EndedAt %v; want it set exactly when the workflow has ended", id, st, r.EndedAt)
	}
	return r
}

// countStates counts the tasks of tasks per state.
func countStates(tasks taskStates) map[store.TaskState]int {
	out := map[store.TaskState]int{}
	for _, st := range tasks {
		out[st]++
	}
	return out
}

// nonZero returns the entries of m that are not zero (a store may or may
// not report states no task is in).
func nonZero[K comparable](m map[K]int) map[K]int {
	out := make(map[K]int, len(m))
	for k, n := range m {
		if n != 0 {
			out[k] = n
		}
	}
	return out
}

// taskRecord returns task name of the record r, or fails the test.
func taskRecord(t *testing.T, r *store.WorkflowRecord, name string) store.TaskRecord {
	t.Helper()
	for _, tr := range r.Tasks {
		if tr.Name == name {
			return tr
		}
	}
	t.Fatalf("workflow %q has no task %q; its tasks: %v", r.ID, name, taskNames(r))
	return store.TaskRecord{}
}

// taskNames lists the names of r's tasks in order.
func taskNames(r *store.WorkflowRecord) []string {
	out := make([]string, len(r.Tasks))
	for i, tr := range r.Tasks {
		out[i] = tr.Name
	}
	return out
}

// claimTask claims one job from q, fails unless it is the job of task name
// of workflow wf carrying its Meta, and returns it.
func claimTask(t *testing.T, s store.Store, q, wf, name string) *store.JobRecord {
	t.Helper()
	c := claimOne(t, s, q, store.TaskJobID(wf, name), long)
	if c.Meta[store.MetaWorkflow] != wf || c.Meta[store.MetaTask] != name {
		t.Fatalf("claimed job of task %q of workflow %q: Meta %v, want %s=%q and %s=%q", name, wf, c.Meta, store.MetaWorkflow, wf, store.MetaTask, name)
	}
	return c
}

// ack acks the claim c with result, kept for no retention: the job is
// deleted, as most are.
func ack(t *testing.T, s store.Store, c *store.JobRecord, result []byte) {
	t.Helper()
	r := outcome(c, store.OutcomeAck)
	r.Result = result
	finishOK(t, s, r)
}

// kill ends the claim c in garbage, as a permanent failure.
func kill(t *testing.T, s store.Store, c *store.JobRecord) {
	t.Helper()
	finishOK(t, s, failed(c, store.OutcomeGarbage, "boom", 0))
}

// runTask claims the job of task name of wf from q and acks it without a
// result.
func runTask(t *testing.T, s store.Store, q, wf, name string) {
	t.Helper()
	ack(t, s, claimTask(t, s, q, wf, name), nil)
}

// failTask claims the job of task name of wf from q and moves it to
// garbage.
func failTask(t *testing.T, s store.Store, q, wf, name string) {
	t.Helper()
	kill(t, s, claimTask(t, s, q, wf, name))
}

// requireNoJobs fails unless no job can be claimed from any of queues,
// once Maintain has promoted whatever fell due.
func requireNoJobs(t *testing.T, s store.Store, why string, queues ...string) {
	t.Helper()
	for _, q := range queues {
		maintain(t, s, q, store.MaintainOpts{})
		claimNone(t, s, q, why)
	}
}

// requireNoTaskJob fails unless the queue q holds no job of task name of
// wf (needs a: without store.Admin it checks nothing).
func requireNoTaskJob(t *testing.T, a store.Admin, q, wf, name, why string) {
	t.Helper()
	if a != nil {
		requireNotFound(t, a, q, store.TaskJobID(wf, name), why)
	}
}

// claimAll claims every ready job of q (at most max) and returns them by
// ID.
func claimAll(t *testing.T, s store.Store, q string, max int) map[string]*store.JobRecord {
	t.Helper()
	out := map[string]*store.JobRecord{}
	for {
		res := claim(t, s, q, max, long)
		if len(res.Jobs) == 0 {
			return out
		}
		for _, j := range res.Jobs {
			if out[j.ID] != nil {
				t.Fatalf("Claim(%q) returned job %q twice", q, j.ID)
			}
			out[j.ID] = j
		}
	}
}

// finishConcurrently sends reqs to Finish from workers goroutines at
// once, in batches of at most batch, and fails unless every one succeeds.
func finishConcurrently(t *testing.T, s store.Store, reqs []store.AttemptEnd, workers, batch int) {
	t.Helper()
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	per := (len(reqs) + workers - 1) / workers
	for part := range slices.Chunk(reqs, max(per, 1)) {
		wg.Go(func() {
			for b := range slices.Chunk(part, batch) {
				got, err := s.Finish(t.Context(), b)
				if err != nil {
					fail(fmt.Errorf("Finish(%d requests): %w", len(b), err))
					return
				}
				for i, e := range got {
					if e != nil {
						fail(fmt.Errorf("Finish %s of %q: %w", b[i].Outcome, b[i].ID, e))
					}
				}
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d finishes sent at once failed, first: %v", len(errs), len(reqs), errs[0])
	}
}

// maintainWorkflows calls MaintainWorkflows or fails the test.
func maintainWorkflows(t *testing.T, w store.Workflows) {
	t.Helper()
	if _, err := w.MaintainWorkflows(t.Context(), 100); err != nil {
		t.Fatalf("MaintainWorkflows(100): unexpected error: %v", err)
	}
}

// awaitWorkflowGone runs MaintainWorkflows until GetWorkflow reports
// workflow id gone.
func awaitWorkflowGone(t *testing.T, w store.Workflows, id string) {
	t.Helper()
	testutil.Eventually(t, waitFor, func() error {
		maintainWorkflows(t, w)
		r, err := w.GetWorkflow(t.Context(), id)
		switch {
		case errors.Is(err, store.ErrWorkflowNotFound):
			return nil
		case err != nil:
			t.Fatalf("GetWorkflow(%q): unexpected error: %v", id, err)
		}
		return fmt.Errorf("workflow %q is still there (%s, ended %v, retention %v), want it removed after its retention", id, r.State, r.EndedAt, r.Retention)
	})
}

// listWorkflows calls ListWorkflows or fails the test.
func listWorkflows(t *testing.T, w store.Workflows, f store.ListWorkflowsOpts) store.WorkflowPage {
	t.Helper()
	p, err := w.ListWorkflows(t.Context(), f)
	if err != nil {
		t.Fatalf("ListWorkflows(%+v): unexpected error: %v", f, err)
	}
	for _, r := range p.Workflows {
		if r.Tasks != nil {
			t.Fatalf("ListWorkflows(%+v) returned workflow %q with %d tasks, want none (a listing holds no tasks)", f, r.ID, len(r.Tasks))
		}
	}
	for i := 1; i < len(p.Workflows); i++ {
		if p.Workflows[i].CreatedAt.After(p.Workflows[i-1].CreatedAt) {
			t.Fatalf("ListWorkflows(%+v) lists %q (created %v) after %q (created %v), want newest first",
				f, p.Workflows[i].ID, p.Workflows[i].CreatedAt, p.Workflows[i-1].ID, p.Workflows[i-1].CreatedAt)
		}
	}
	return p
}

// listedIDs returns the IDs of a page's workflows in order.
func listedIDs(p store.WorkflowPage) []string {
	out := make([]string, len(p.Workflows))
	for i, r := range p.Workflows {
		out[i] = r.ID
	}
	return out
}
