package hopper

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper/internal/engine"
	"github.com/hopperq/hopper/store"
)

// TaskOf returns the workflow and task names of the job rec when it is a
// workflow task (its ID is the task's, <workflow>~<task>, and its Meta
// names the same workflow and task); ok is false for any other job.
func TaskOf(rec *JobRecord) (workflow, task string, ok bool) {
	if rec == nil {
		return "", "", false
	}
	workflow, task, ok = store.ParseTaskJobID(rec.ID)
	if !ok || rec.Meta[store.MetaWorkflow] != workflow || rec.Meta[store.MetaTask] != task {
		return "", "", false
	}
	return workflow, task, true
}

// runningTask returns the running task of ctx and its store's workflows.
func runningTask(ctx context.Context, what string) (ref taskRef, ws store.Workflows, err error) {
	rec, st, ok := engine.RunningJob(ctx)
	if !ok {
		return ref, nil, fmt.Errorf("hopper: %s called outside a job handler", what)
	}
	wf, task, ok := TaskOf(rec)
	if !ok {
		return ref, nil, fmt.Errorf("%w: %s: job %q is not a workflow task", ErrInvalidWorkflow, what, rec.ID)
	}
	if ws, ok = store.As[store.Workflows](st); !ok {
		return ref, nil, fmt.Errorf("%w: %T runs no workflows", ErrNotSupported, st)
	}
	return taskRef{workflow: wf, task: task}, ws, nil
}

// TaskResult decodes into a T the result that task (of the workflow of the
// task running in ctx, a dependency usually) recorded with RecordResult
// when it succeeded. It fails with ErrNoResult when the task recorded none
// or did not succeed (a dependency that failed, under AnyOutcome or
// AllowFailure), ErrTaskNotFound when the workflow has no task of that
// name, and ErrInvalidWorkflow outside a workflow task. To read many tasks in one
// store call, use TaskResults.
func TaskResult[T any](ctx context.Context, task string) (T, error) {
	var v T
	ref, ws, err := runningTask(ctx, "TaskResult")
	if err != nil {
		return v, err
	}
	res, err := ws.TaskResults(ctx, ref.workflow, []string{task})
	if err != nil {
		return v, err
	}
	if len(res) != 1 {
		res = [][]byte{nil}
	}
	if res[0] == nil {
		if err := missingTask(ctx, ws, ref.workflow, task); err != nil {
			return v, err
		}
	}
	return decodeTaskResult[T](ref.workflow, TaskDep{Name: task}, res[0])
}

// MoreTasks returns an empty Workflow for adding tasks to the workflow of
// the task running in ctx: a fan-out whose width the task learns only at
// run time. Add tasks with AddTask; they may wait for tasks of the
// workflow that are no longer waiting (Task.AfterNamed, usually the
// running task itself) and make waiting tasks wait for them
// (Task.Before); store them with EnqueueTasks. Outside a workflow task,
// EnqueueTasks reports the error.
func MoreTasks(ctx context.Context) *Workflow {
	w := &Workflow{byName: map[string]*Task{}}
	ref, _, err := runningTask(ctx, "MoreTasks")
	if err != nil {
		w.fail(err)
		ref = taskRef{}
	}
	w.parent = &ref
	w.id = ref.workflow
	return w
}

// EnqueueTasks adds the tasks of more (from MoreTasks) to the running
// task's workflow, in one step: every task or none. Tasks whose name the
// workflow already has are left as they are, so a handler that is retried
// may submit the same tasks again. A more with no tasks (a fan-out of
// width zero) adds nothing and returns nil. It fails with
// ErrWorkflowEnded when the workflow has ended or was cancelled.
func EnqueueTasks(ctx context.Context, c *Client, more *Workflow) error {
	if c.unmade() {
		return errNilClient
	}
	if more == nil || more.parent == nil {
		return fmt.Errorf("%w: EnqueueTasks takes the Workflow of MoreTasks", ErrInvalidWorkflow)
	}
	if more.err != nil {
		return more.err
	}
	ws, ok := store.As[store.Workflows](c.st)
	if !ok {
		return fmt.Errorf("%w: %T runs no workflows", ErrNotSupported, c.st)
	}
	if len(more.tasks) == 0 {
		// A fan-out of width zero: the tasks that wait for the running one
		// run once it ends, as they would after the added ones.
		return nil
	}
	tasks, jobs, err := c.buildTasks(more, more.parent.workflow, time.Now())
	if err != nil {
		return err
	}
	if err := store.ValidateAddedTasks(more.parent.workflow, more.parent.task, tasks); err != nil {
		return err
	}
	if err := checkTaskQueues(ctx, c.st, tasks); err != nil {
		return err
	}
	return c.throughMiddleware(ctx, tasks, jobs, func(ctx context.Context) error {
		return ws.AddTasks(ctx, more.parent.workflow, more.parent.task, tasks)
	})
}
