package hopper

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hopperq/hopper/store"
)

// Workflow declares jobs that depend on jobs: tasks, each a job with its
// own args type, queue and options, and the dependencies between them (a
// directed acyclic graph). Build one with NewWorkflow and AddTask, link
// tasks with Task.After (or the Chain, OnSuccess and OnComplete
// shorthands), and store it with EnqueueWorkflow, which stores every
// task or none.
//
// A task becomes ready only when every dependency has been acked. When a
// dependency fails (its job reaches garbage: retries used up, a permanent
// failure, cancelled) or is deleted, its dependents are skipped, unless the
// dependency was declared with AllowFailure or the dependent with
// AnyOutcome:
//
//	dependency ends as   dependent (default)   dep.AllowFailure() or dependent.AnyOutcome()
//	succeeded            runs                  runs
//	failed / cancelled   skipped               runs
//	deleted              skipped               runs
//	skipped              skipped               runs
//
// A workflow runs until every task has ended, then ends as cancelled
// (Inspector.CancelWorkflow was called), failed (a task failed without
// AllowFailure, or was skipped) or succeeded. Cancelling a workflow cancels
// its waiting tasks and flags its running ones (their handlers see
// Cancelled). Requeueing a failed task's job (Inspector.RequeueJobs or
// Inspector.RetryWorkflow) re-opens the workflow: the task runs again and
// the tasks skipped because of it wait again. An ended workflow is kept
// for its retention (WorkflowOpts.Retention, default 24 h), then removed.
//
// A running task reads what its dependencies recorded (RecordResult) with
// TaskResult, and may add tasks to its own workflow with MoreTasks and
// EnqueueTasks (a fan-out whose width is known only at run time).
//
// Tasks are ordinary jobs: the handler of their kind runs them, with
// retries, timeouts and middleware as for any job. A task's job ID is
// "<workflow ID>~<task name>". Other systems call workflows flows (BullMQ),
// batches (Sidekiq Pro) or chains and chords (Celery).
//
// The zero value is an empty, unnamed workflow with a generated ID and the
// default retention, ready for AddTask: NewWorkflow("", nil) without the
// call. A Workflow is built by one goroutine; it is not safe for
// concurrent use. Errors (a bad name, args that do not encode, a
// dependency on a task of another workflow) are kept and returned by
// EnqueueWorkflow.
type Workflow struct {
	id, name  string
	retention time.Duration
	tasks     []*Task
	byName    map[string]*Task
	err       error
	// parent is set for the tasks a running task adds (MoreTasks): the
	// workflow and task they are added to and by.
	parent *taskRef
}

type taskRef struct{ workflow, task string }

// WorkflowOpts are the options of NewWorkflow. A nil *WorkflowOpts, and
// every zero field, means the default.
type WorkflowOpts struct {
	// ID identifies the workflow store-wide (1 to 64 letters, digits, '_',
	// '.', '-' or ':'). Storing a workflow whose ID is held reports a
	// duplicate and stores nothing, which makes EnqueueWorkflow
	// idempotent. Defaults to a new time-ordered ID.
	ID string
	// Retention keeps the workflow, and what its tasks recorded, this long
	// after it ends. Zero means 24 hours.
	Retention time.Duration
}

// NewWorkflow returns an empty workflow named name (a label for people;
// the dashboard searches it).
func NewWorkflow(name string, opts *WorkflowOpts) *Workflow {
	w := &Workflow{name: name, byName: map[string]*Task{}}
	if opts != nil {
		w.id, w.retention = opts.ID, opts.Retention
	}
	return w
}

// ID returns the workflow's ID: the one given in WorkflowOpts, or the one
// EnqueueWorkflow generated; empty before that, and for a nil *Workflow.
func (w *Workflow) ID() string {
	if w == nil {
		return ""
	}
	return w.id
}

// Task is one task of a Workflow, returned by AddTask. Its methods declare
// its dependencies and return the task, so they chain. Name of a nil *Task
// is empty; its other methods panic with a message naming the method and
// the nil *Task, as they do on a Task not made by AddTask.
type Task struct {
	wf     *Workflow
	name   string
	args   Args
	opts   *EnqueueOpts
	deps   []string
	blocks []string
	// depSet and blockSet hold deps and blocks once they are long
	// (appendNew).
	depSet, blockSet map[string]struct{}
	allowFailure     bool
	anyOutcome       bool
}

// AddTask adds a task named name to wf (1 to 60 letters, digits, '_', '.',
// '-' or ':', unique within the workflow) that runs args' handler with
// opts resolved as Enqueue resolves them. Errors are kept in wf and
// returned by EnqueueWorkflow (or EnqueueTasks). On a nil wf it returns a
// task of no workflow: EnqueueWorkflow of the nil wf fails, and so does
// that of a workflow with a task that depends on it.
func AddTask[T Args](wf *Workflow, name string, args T, opts *TaskOpts) *Task {
	if wf == nil {
		wf = &Workflow{}
		wf.fail(fmt.Errorf("%w: AddTask(%q) on a nil *Workflow", ErrInvalidWorkflow, name))
	}
	if wf.byName == nil { // the zero Workflow
		wf.byName = map[string]*Task{}
	}
	t := &Task{wf: wf, name: name}
	if err := store.ValidateTaskName(name); err != nil {
		wf.fail(err)
	} else if _, dup := wf.byName[name]; dup {
		wf.fail(fmt.Errorf("%w: two tasks are named %q", ErrInvalidWorkflow, name))
	}
	wf.byName[name] = t
	wf.tasks = append(wf.tasks, t)
	// The Client is not known yet: keep the args and options, resolved
	// when the workflow is enqueued.
	t.args, t.opts = args, opts.enqueueOpts()
	return t
}

// Name returns the task's name, empty for a nil *Task.
func (t *Task) Name() string {
	if t == nil {
		return ""
	}
	return t.name
}

// mustBeMade panics, naming method, when t is nil or was not made by
// AddTask: a clear message at the call rather than a nil dereference.
func (t *Task) mustBeMade(method string) {
	switch {
	case t == nil:
		panic("hopper: Task." + method + " on a nil *Task (make tasks with AddTask)")
	case t.wf == nil:
		panic("hopper: Task." + method + " on a Task not made by AddTask")
	}
}

// After makes t wait for deps, tasks of the same workflow (a fan-in when
// there are several), and returns t. A task t already waits for (named
// again, by After, Chain or OnSuccess) changes nothing. A nil dep is an
// error EnqueueWorkflow returns.
func (t *Task) After(deps ...*Task) *Task {
	t.mustBeMade("After")
	for _, d := range deps {
		switch {
		case d == nil:
			t.wf.fail(fmt.Errorf("%w: task %q: nil dependency", ErrInvalidWorkflow, t.name))
		case d.wf != t.wf:
			t.wf.fail(fmt.Errorf("%w: task %q depends on task %q of another workflow", ErrInvalidWorkflow, t.name, d.name))
		default:
			t.deps = appendNew(t.deps, &t.depSet, d.name)
		}
	}
	return t
}

// appendNew appends to list the names it does not hold yet, and returns
// it: a walk of the list while it is short, then a lookup in set, which
// it makes from the list (a fan-in of many tasks stays linear).
func appendNew(list []string, set *map[string]struct{}, names ...string) []string {
	for _, n := range names {
		if *set == nil && len(list) >= 16 {
			*set = make(map[string]struct{}, 2*len(list))
			for _, l := range list {
				(*set)[l] = struct{}{}
			}
		}
		if *set == nil {
			if slices.Contains(list, n) {
				continue
			}
		} else if _, ok := (*set)[n]; ok {
			continue
		} else {
			(*set)[n] = struct{}{}
		}
		list = append(list, n)
	}
	return list
}

// AfterNamed makes t wait for the tasks named names. It is for the tasks a
// running task adds (MoreTasks), which may wait for tasks of the workflow
// that are no longer waiting (the adding task itself, usually). A name t
// already waits for changes nothing.
func (t *Task) AfterNamed(names ...string) *Task {
	t.mustBeMade("AfterNamed")
	t.deps = appendNew(t.deps, &t.depSet, names...)
	return t
}

// Before makes the waiting tasks named names also wait for t. It is for
// the tasks a running task adds (MoreTasks): the step after a dynamic
// fan-out waits for every task added this way. A name given again
// changes nothing.
func (t *Task) Before(names ...string) *Task {
	t.mustBeMade("Before")
	if t.wf.parent == nil {
		t.wf.fail(fmt.Errorf("%w: task %q: Before is for tasks added with MoreTasks; use After", ErrInvalidWorkflow, t.name))
	}
	t.blocks = appendNew(t.blocks, &t.blockSet, names...)
	return t
}

// AllowFailure lets t's dependents run even when t fails, is cancelled or
// is skipped, and keeps such an end from failing the workflow. It returns
// t.
func (t *Task) AllowFailure() *Task {
	t.mustBeMade("AllowFailure")
	t.allowFailure = true
	return t
}

// AnyOutcome makes t run once its dependencies have ended, whatever their
// outcome (a batch's on-complete callback). It returns t.
func (t *Task) AnyOutcome() *Task {
	t.mustBeMade("AnyOutcome")
	t.anyOutcome = true
	return t
}

// Chain makes each of tasks wait for the one before it (A, then B, then
// C) and returns w. A nil task is an error EnqueueWorkflow returns.
func (w *Workflow) Chain(tasks ...*Task) *Workflow {
	for i := 1; i < len(tasks); i++ {
		if tasks[i] == nil {
			w.nilTask("Chain", fmt.Sprintf("task %d", i))
			continue
		}
		tasks[i].After(tasks[i-1])
	}
	return w
}

// OnSuccess makes callback run once every task of batch has succeeded (it
// is skipped otherwise), and returns w: Sidekiq Pro's on_success. A nil
// task is an error EnqueueWorkflow returns.
func (w *Workflow) OnSuccess(callback *Task, batch ...*Task) *Workflow {
	if callback == nil {
		w.nilTask("OnSuccess", "the callback")
		return w
	}
	callback.After(batch...)
	return w
}

// OnComplete makes callback run once every task of batch has ended,
// whatever the outcome, and returns w: Sidekiq Pro's on_complete. The
// callback reads each task's result with TaskResult (nil for a task that
// failed). A nil task is an error EnqueueWorkflow returns.
func (w *Workflow) OnComplete(callback *Task, batch ...*Task) *Workflow {
	if callback == nil {
		w.nilTask("OnComplete", "the callback")
		return w
	}
	callback.After(batch...).AnyOutcome()
	return w
}

// nilTask keeps in w the error of method given a nil *Task as what. On a
// nil w, which keeps nothing, it panics naming both.
func (w *Workflow) nilTask(method, what string) {
	if w == nil {
		panic(fmt.Sprintf("hopper: Workflow.%s on a nil *Workflow, with a nil *Task as %s", method, what))
	}
	w.fail(fmt.Errorf("%w: %s: %s is a nil *Task", ErrInvalidWorkflow, method, what))
}

func (w *Workflow) fail(err error) {
	w.err = errors.Join(w.err, err)
}
