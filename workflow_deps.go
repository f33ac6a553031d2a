package hopper

import (
	"context"
	"errors"
	"fmt"

	"github.com/hopperq/hopper/store"
)

// TaskDep is one dependency of the running task, as TaskDeps returns it.
type TaskDep struct {
	// Name is the dependency's task name.
	Name string
	// State is how it ended: TaskSucceeded, or, for a dependency with
	// AllowFailure or a task with AnyOutcome, TaskFailed, TaskSkipped or
	// TaskCancelled.
	State TaskState
}

// TaskDeps returns the dependencies of the task running in ctx, in one
// store call: those it was enqueued with, in the order given, then those
// added at run time (MoreTasks with Task.Before naming it), in the order
// added. A task without dependencies gets an empty list. Outside a
// workflow task it fails with ErrInvalidWorkflow. Safe for concurrent use.
func TaskDeps(ctx context.Context) ([]TaskDep, error) {
	ref, ws, err := runningTask(ctx, "TaskDeps")
	if err != nil {
		return nil, err
	}
	deps, err := ws.TaskDeps(ctx, ref.workflow, ref.task, false)
	if err != nil {
		return nil, err
	}
	out := make([]TaskDep, len(deps))
	for i, d := range deps {
		out[i] = TaskDep{Name: d.Name, State: d.State}
	}
	return out, nil
}

// TaskResults decodes into Ts, by task name, the results that tasks of the
// running task's workflow recorded with RecordResult when they succeeded,
// in one store call however many tasks it reads. With no tasks named it
// reads the running task's own dependencies (those of TaskDeps, added ones
// included): a fan-in's inputs. A task named twice is read once.
//
// The map holds every result that decoded. For each task without one, the
// error (an errors.Join) holds an error naming the task: wrapping
// ErrNoResult when it recorded none or did not succeed (a failed
// dependency under AnyOutcome or AllowFailure), ErrTaskNotFound when the
// workflow has no task of that name, ErrDecode when its result does not
// decode into a T. So a fan-in under AnyOutcome may use what it
// got and report the rest. Outside a workflow task it fails with
// ErrInvalidWorkflow and an empty map. Safe for concurrent use.
func TaskResults[T any](ctx context.Context, tasks ...string) (map[string]T, error) {
	out := map[string]T{}
	ref, ws, err := runningTask(ctx, "TaskResults")
	if err != nil {
		return out, err
	}
	var deps []TaskDep
	var raw [][]byte
	if len(tasks) == 0 {
		read, err := ws.TaskDeps(ctx, ref.workflow, ref.task, true)
		if err != nil {
			return out, err
		}
		deps, raw = make([]TaskDep, len(read)), make([][]byte, len(read))
		for i, d := range read {
			deps[i], raw[i] = TaskDep{Name: d.Name, State: d.State}, d.Result
		}
	} else {
		if raw, err = ws.TaskResults(ctx, ref.workflow, tasks); err != nil {
			return out, err
		}
		deps = make([]TaskDep, len(tasks))
		for i, name := range tasks {
			deps[i].Name = name
		}
	}
	var errs []error
	seen := make(map[string]bool, len(deps))
	for i, d := range deps {
		if seen[d.Name] {
			continue
		}
		seen[d.Name] = true
		var res []byte
		if i < len(raw) {
			res = raw[i]
		}
		if res == nil && len(tasks) > 0 {
			if err := missingTask(ctx, ws, ref.workflow, d.Name); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		v, err := decodeTaskResult[T](ref.workflow, d, res)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[d.Name] = v
	}
	return out, errors.Join(errs...)
}

// decodeTaskResult decodes res, the result task d of workflow wf
// recorded, into a T; the error names the task. d.State is empty when
// not read.
func decodeTaskResult[T any](wf string, d TaskDep, res []byte) (T, error) {
	var v T
	if res == nil {
		if d.State != "" && d.State != TaskSucceeded {
			return v, fmt.Errorf("%w: task %q of workflow %q %s", ErrNoResult, d.Name, wf, d.State)
		}
		return v, fmt.Errorf("%w: task %q of workflow %q", ErrNoResult, d.Name, wf)
	}
	return decodeResult[T](res, fmt.Sprintf("task %q", d.Name))
}

// missingTask returns an error wrapping ErrTaskNotFound when workflow wf
// has no task named task, else nil: a task without a result is told from
// a name the workflow lacks by one more read, on that path alone (the
// store's TaskDeps fails with ErrInvalidWorkflow for such a name; another
// error of it leaves the caller's ErrNoResult).
func missingTask(ctx context.Context, ws store.Workflows, wf, task string) error {
	if _, err := ws.TaskDeps(ctx, wf, task, false); errors.Is(err, ErrInvalidWorkflow) {
		return fmt.Errorf("%w: workflow %q has no task %q", ErrTaskNotFound, wf, task)
	}
	return nil
}
