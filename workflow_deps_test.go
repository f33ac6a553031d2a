package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// wfReadCounter counts the workflow reads a task handler makes
// (TaskResults and TaskDeps). It implements store.Workflows itself, so
// hopper finds it on the outer value.
type wfReadCounter struct {
	hopper.Store
	ws    store.Workflows
	reads atomic.Int64
}

func newWfReadCounter(t *testing.T, s hopper.Store) *wfReadCounter {
	ws, ok := s.(store.Workflows)
	if !ok {
		t.Fatalf("%T runs no workflows", s)
	}
	return &wfReadCounter{Store: s, ws: ws}
}

var _ store.Workflows = (*wfReadCounter)(nil)

func (c *wfReadCounter) EnqueueWorkflow(ctx context.Context, w *store.NewWorkflow) (bool, error) {
	return c.ws.EnqueueWorkflow(ctx, w)
}

func (c *wfReadCounter) AddTasks(ctx context.Context, wf, by string, tasks []*store.NewTask) error {
	return c.ws.AddTasks(ctx, wf, by, tasks)
}

func (c *wfReadCounter) TaskResults(ctx context.Context, wf string, tasks []string) ([][]byte, error) {
	c.reads.Add(1)
	return c.ws.TaskResults(ctx, wf, tasks)
}

func (c *wfReadCounter) TaskDeps(ctx context.Context, wf, task string, results bool) ([]store.TaskDep, error) {
	c.reads.Add(1)
	return c.ws.TaskDeps(ctx, wf, task, results)
}

func (c *wfReadCounter) GetWorkflow(ctx context.Context, id string) (*store.WorkflowRecord, error) {
	return c.ws.GetWorkflow(ctx, id)
}

func (c *wfReadCounter) ListWorkflows(ctx context.Context, f store.ListWorkflowsOpts) (store.WorkflowPage, error) {
	return c.ws.ListWorkflows(ctx, f)
}

func (c *wfReadCounter) CancelWorkflow(ctx context.Context, id string) error {
	return c.ws.CancelWorkflow(ctx, id)
}

func (c *wfReadCounter) RetryWorkflow(ctx context.Context, id string) (int, error) {
	return c.ws.RetryWorkflow(ctx, id)
}

func (c *wfReadCounter) MaintainWorkflows(ctx context.Context, batch int) (time.Duration, error) {
	return c.ws.MaintainWorkflows(ctx, batch)
}

type DepLeaf struct{ N int }
type DepJoin struct{ Names []string }

func (DepLeaf) Kind() string { return "test.dep-leaf" }
func (DepJoin) Kind() string { return "test.dep-join" }

// joinRead is what a join handler saw: a value, its error, and how many
// workflow reads it took.
type joinRead[V any] struct {
	v     V
	err   error
	reads int64
}

// readIn returns what read returns and how many workflow reads of s it
// made.
func readIn[V any](s *wfReadCounter, read func() (V, error)) joinRead[V] {
	before := s.reads.Load()
	v, err := read()
	return joinRead[V]{v: v, err: err, reads: s.reads.Load() - before}
}

// runJoin runs a workflow of leaves (each recording what leaf returns for
// it, or failing when leaf returns an error) and a join after all of them
// (made with opts), on s; join runs in the join's handler, whose result
// runJoin returns.
func runJoin[V any](t *testing.T, s *wfReadCounter, n int, leaf func(i int) (any, error), anyOutcome bool, join func(ctx context.Context) joinRead[V]) joinRead[V] {
	t.Helper()
	q := "deps"
	cfg := testConfig(q)
	cfg.Concurrency = 16
	w := hopper.NewWorker(s, cfg)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[DepLeaf]) error {
		v, err := leaf(job.Args.N)
		if err != nil {
			return err
		}
		if v == nil {
			return nil
		}
		return hopper.RecordResult(ctx, v)
	})
	got := make(chan joinRead[V], 1)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[DepJoin]) error {
		got <- join(ctx)
		return nil
	})
	startWorker(t, w)
	wf := hopper.NewWorkflow(t.Name(), nil)
	j := hopper.AddTask(wf, "join", DepJoin{}, &hopper.TaskOpts{Queue: q})
	if anyOutcome {
		j.AnyOutcome()
	}
	for i := range n {
		j.After(hopper.AddTask(wf, fmt.Sprintf("leaf-%d", i), DepLeaf{N: i}, &hopper.TaskOpts{Queue: q, MaxRetries: hopper.NoRetry}))
	}
	if _, err := hopper.EnqueueWorkflow(t.Context(), hopper.NewClient(s, nil), wf); err != nil {
		t.Fatalf("EnqueueWorkflow: %v", err)
	}
	select {
	case r := <-got:
		return r
	case <-time.After(30 * time.Second):
		t.Fatalf("the join did not run within 30s")
		panic("unreachable")
	}
}

// TestTaskResultsReadsAJoinInOneStoreCall: a join over 100 leaves reads
// every leaf's result with one store call (TaskResult per leaf made 100).
func TestTaskResultsReadsAJoinInOneStoreCall(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		s := newWfReadCounter(t, open())
		r := runJoin(t, s, 100, func(i int) (any, error) { return 2 * i, nil }, false,
			func(ctx context.Context) joinRead[map[string]int] {
				return readIn(s, func() (map[string]int, error) { return hopper.TaskResults[int](ctx) })
			})
		if r.err != nil || len(r.v) != 100 {
			t.Fatalf("TaskResults[int](ctx) in a join over 100 leaves: %d results, %v; want 100, nil", len(r.v), r.err)
		}
		for i := range 100 {
			if got := r.v[fmt.Sprintf("leaf-%d", i)]; got != 2*i {
				t.Fatalf("TaskResults: leaf-%d's result %d, want %d", i, got, 2*i)
			}
		}
		if r.reads != 1 {
			t.Fatalf("TaskResults over 100 dependencies made %d store calls, want 1", r.reads)
		}
	})
}

// TestTaskResultsOfNamedTasks: naming tasks reads those, each once, in one
// store call.
func TestTaskResultsOfNamedTasks(t *testing.T) {
	s := newWfReadCounter(t, newStore())
	r := runJoin(t, s, 10, func(i int) (any, error) { return fmt.Sprint("r", i), nil }, false,
		func(ctx context.Context) joinRead[map[string]string] {
			return readIn(s, func() (map[string]string, error) {
				return hopper.TaskResults[string](ctx, "leaf-7", "leaf-2", "leaf-7")
			})
		})
	want := map[string]string{"leaf-7": "r7", "leaf-2": "r2"}
	if r.err != nil || fmt.Sprint(r.v) != fmt.Sprint(want) || r.reads != 1 {
		t.Fatalf("TaskResults[string](leaf-7, leaf-2, leaf-7): %v, %v in %d store calls; want %v, nil in 1", r.v, r.err, r.reads, want)
	}
}

// TestTaskResultsNamesTasksWithoutResults: a fan-in under AnyOutcome gets
// the results that decoded, and an error naming each task that recorded
// none, failed, or recorded something else.
func TestTaskResultsNamesTasksWithoutResults(t *testing.T) {
	s := newWfReadCounter(t, newStore())
	r := runJoin(t, s, 4, func(i int) (any, error) {
		switch i {
		case 1:
			return nil, nil // records nothing
		case 2:
			return "not an int", nil
		case 3:
			return nil, hopper.Permanent(errors.New("boom"))
		}
		return 42, nil
	}, true, func(ctx context.Context) joinRead[map[string]int] {
		return readIn(s, func() (map[string]int, error) { return hopper.TaskResults[int](ctx) })
	})
	if fmt.Sprint(r.v) != "map[leaf-0:42]" {
		t.Fatalf("TaskResults with leaves that recorded nothing, another type, or failed: %v, want map[leaf-0:42]", r.v)
	}
	if !errors.Is(r.err, hopper.ErrNoResult) || !errors.Is(r.err, hopper.ErrDecode) {
		t.Fatalf("TaskResults error %v, want one wrapping ErrNoResult and ErrDecode", r.err)
	}
	for _, want := range []string{`task "leaf-1" of workflow`, `cannot decode result of task "leaf-2" into int`, `task "leaf-3" of workflow`, "failed"} {
		if !strings.Contains(r.err.Error(), want) {
			t.Errorf("TaskResults error %q does not say %q", r.err, want)
		}
	}
	if strings.Contains(r.err.Error(), "decode args") {
		t.Errorf("TaskResults error %q says args did not decode: a result did not", r.err)
	}
	if strings.Contains(r.err.Error(), "leaf-0") {
		t.Errorf("TaskResults error %q names leaf-0, which has its result", r.err)
	}
}

type DepSplit struct{ N int }

func (DepSplit) Kind() string { return "test.dep-split" }

// TestTaskDepsListsTasksAddedAtRunTime: a task lists its dependencies,
// those a running task added with Before included, in one store call.
func TestTaskDepsListsTasksAddedAtRunTime(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		s := newWfReadCounter(t, open())
		client := hopper.NewClient(s, nil)
		cfg := testConfig("deps")
		w := hopper.NewWorker(s, cfg)
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[DepSplit]) error {
			more := hopper.MoreTasks(ctx)
			for i := range job.Args.N {
				hopper.AddTask(more, fmt.Sprintf("map-%d", i), DepLeaf{N: i}, &hopper.TaskOpts{Queue: "deps"}).Before("join")
			}
			return hopper.EnqueueTasks(ctx, client, more)
		})
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[DepLeaf]) error { return nil })
		got := make(chan joinRead[[]hopper.TaskDep], 1)
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[DepJoin]) error {
			got <- readIn(s, func() ([]hopper.TaskDep, error) { return hopper.TaskDeps(ctx) })
			return nil
		})
		startWorker(t, w)
		wf := hopper.NewWorkflow(t.Name(), nil)
		hopper.AddTask(wf, "join", DepJoin{}, &hopper.TaskOpts{Queue: "deps"}).After(
			hopper.AddTask(wf, "split", DepSplit{N: 3}, &hopper.TaskOpts{Queue: "deps"}))
		if _, err := hopper.EnqueueWorkflow(t.Context(), client, wf); err != nil {
			t.Fatalf("EnqueueWorkflow: %v", err)
		}
		var r joinRead[[]hopper.TaskDep]
		select {
		case r = <-got:
		case <-time.After(30 * time.Second):
			t.Fatalf("the join did not run within 30s")
		}
		want := []hopper.TaskDep{{Name: "split", State: hopper.TaskSucceeded}, {Name: "map-0", State: hopper.TaskSucceeded},
			{Name: "map-1", State: hopper.TaskSucceeded}, {Name: "map-2", State: hopper.TaskSucceeded}}
		if r.err != nil || !slices.Equal(r.v, want) || r.reads != 1 {
			t.Fatalf("TaskDeps in the join: %v, %v in %d store calls; want %v, nil in 1", r.v, r.err, r.reads, want)
		}
	})
}

// TestTaskDepsOutsideAWorkflowTask: both calls say what is wrong when the
// job is not a workflow task.
func TestTaskDepsOutsideAWorkflowTask(t *testing.T) {
	s := newStore()
	w := hopper.NewWorker(s, testConfig("plain"))
	errs := make(chan error, 2)
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Echo]) error {
		_, err := hopper.TaskDeps(ctx)
		errs <- err
		_, err = hopper.TaskResults[int](ctx)
		errs <- err
		return nil
	})
	startWorker(t, w)
	if _, err := hopper.Enqueue(t.Context(), hopper.NewClient(s, nil), Echo{}, &hopper.EnqueueOpts{Queue: "plain"}); err != nil {
		t.Fatal(err)
	}
	for _, call := range []string{"TaskDeps", "TaskResults"} {
		if err := <-errs; !errors.Is(err, hopper.ErrInvalidWorkflow) {
			t.Errorf("%s in a job that is no workflow task: %v, want ErrInvalidWorkflow", call, err)
		}
	}
	if _, err := hopper.TaskDeps(t.Context()); err == nil || !strings.Contains(err.Error(), "outside a job handler") {
		t.Errorf("TaskDeps outside a handler: %v, want an error saying so", err)
	}
}

// TestTaskResultOfATaskTheWorkflowLacks: TaskResult of a name the
// workflow has no task of fails with ErrTaskNotFound saying so (it said
// `task recorded no result: task "nonexistent"`), not ErrNoResult; a
// task that exists and recorded nothing still gives ErrNoResult. The
// same in TaskResults of named tasks.
func TestTaskResultOfATaskTheWorkflowLacks(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		s := newWfReadCounter(t, open())
		type reads struct{ missing, empty, many error }
		r := runJoin(t, s, 1, func(int) (any, error) { return nil, nil }, false,
			func(ctx context.Context) joinRead[reads] {
				_, missing := hopper.TaskResult[int](ctx, "nonexistent")
				_, empty := hopper.TaskResult[int](ctx, "leaf-0")
				_, many := hopper.TaskResults[int](ctx, "leaf-0", "nonexistent")
				return joinRead[reads]{v: reads{missing, empty, many}}
			})
		if err := r.v.missing; !errors.Is(err, hopper.ErrTaskNotFound) || errors.Is(err, hopper.ErrNoResult) ||
			!strings.HasPrefix(err.Error(), `hopper: task not found: workflow "`) || !strings.HasSuffix(err.Error(), `" has no task "nonexistent"`) {
			t.Errorf("TaskResult of a task the workflow lacks: %v, want ErrTaskNotFound (not ErrNoResult) saying the workflow has no such task", err)
		}
		if err := r.v.empty; !errors.Is(err, hopper.ErrNoResult) || errors.Is(err, hopper.ErrTaskNotFound) {
			t.Errorf("TaskResult of a task that recorded nothing: %v, want ErrNoResult", err)
		}
		if err := r.v.many; !errors.Is(err, hopper.ErrNoResult) || !errors.Is(err, hopper.ErrTaskNotFound) || !strings.Contains(err.Error(), `has no task "nonexistent"`) {
			t.Errorf("TaskResults of leaf-0 and a task the workflow lacks: %v, want ErrNoResult and ErrTaskNotFound", err)
		}
	})
}

// TestEnqueueTasksOfNoTasks: a fan-out whose input gives no tasks
// (EnqueueTasks of an empty MoreTasks) adds nothing and succeeds, and the
// tasks after it run; it failed with "workflow \"\" has no tasks", and the
// task was retried with backoff, holding the workflow up.
func TestEnqueueTasksOfNoTasks(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		s := open()
		client := hopper.NewClient(s, nil)
		w := hopper.NewWorker(s, testConfig("deps"))
		added := make(chan error, 1)
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[DepSplit]) error {
			err := hopper.EnqueueTasks(ctx, client, hopper.MoreTasks(ctx))
			added <- err
			return err
		})
		hopper.Handle(w, func(ctx context.Context, job *hopper.Job[DepJoin]) error { return nil })
		startWorker(t, w)
		wf := hopper.NewWorkflow(t.Name(), nil)
		hopper.AddTask(wf, "join", DepJoin{}, &hopper.TaskOpts{Queue: "deps"}).After(
			hopper.AddTask(wf, "split", DepSplit{}, &hopper.TaskOpts{Queue: "deps"}))
		info, err := hopper.EnqueueWorkflow(t.Context(), client, wf)
		if err != nil {
			t.Fatalf("EnqueueWorkflow: %v", err)
		}
		if err := <-added; err != nil {
			t.Fatalf("EnqueueTasks of no tasks: %v, want nil", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if _, err := client.WaitWorkflow(ctx, info.ID); err != nil {
			t.Fatalf("WaitWorkflow: %v, want the workflow to succeed", err)
		}
	})
}

// TestDependencyNamedTwice: a task made to wait for the same task twice
// (Chain and then OnSuccess over the same tasks, After twice, a long
// fan-in with a repeat) waits for it once; EnqueueWorkflow failed with
// "names dependency twice".
func TestDependencyNamedTwice(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		s := open()
		client := hopper.NewClient(s, nil)
		wf := hopper.NewWorkflow(t.Name(), nil)
		a := hopper.AddTask(wf, "a", DepLeaf{}, &hopper.TaskOpts{Queue: "deps"})
		b := hopper.AddTask(wf, "b", DepLeaf{}, &hopper.TaskOpts{Queue: "deps"})
		wf.Chain(a, b).OnSuccess(b, a)
		b.After(a, a)
		var leaves []*hopper.Task
		for i := range 40 {
			leaves = append(leaves, hopper.AddTask(wf, fmt.Sprintf("leaf-%d", i), DepLeaf{N: i}, &hopper.TaskOpts{Queue: "deps"}))
		}
		join := hopper.AddTask(wf, "join", DepJoin{}, &hopper.TaskOpts{Queue: "deps"})
		join.After(leaves...).After(leaves[3], leaves[30]).After(leaves...)
		if _, err := hopper.EnqueueWorkflow(t.Context(), client, wf); err != nil {
			t.Fatalf("EnqueueWorkflow: %v, want the repeats taken once", err)
		}
		rec, err := hopper.NewInspector(s).GetWorkflow(t.Context(), wf.ID())
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range rec.Tasks {
			want := map[string]int{"b": 1, "join": 40}[task.Name]
			if len(task.Deps) != want {
				t.Errorf("task %s waits for %v, want %d dependencies, each once", task.Name, task.Deps, want)
			}
		}
	})
}
