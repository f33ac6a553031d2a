package dashboard

import (
	"context"
	"errors"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// maxRelatedShown bounds the dependencies and dependents the job page
// lists for a workflow task.
const maxRelatedShown = 50

// jobWorkflowView is the workflow panel of a task's job page: the
// workflow, the task, and its dependencies and dependents with their
// states.
type jobWorkflowView struct {
	ID, Task string
	URL      string // the workflow's page
	TaskURL  string // the task's row on the workflow's page
	// Found is false when the workflow could not be read; Missing says
	// why.
	Found     bool
	Missing   string
	Name      string
	State     hopper.WorkflowState
	Cancelled bool
	TaskState hopper.TaskState
	// AllowFailure and AnyOutcome are the task's.
	AllowFailure, AnyOutcome bool
	Deps, Dependents         []taskLink
	MoreDeps, MoreDependents int
	// Unserved is the job's queue when the job waits there (enqueued, not
	// running) and no live worker serves it; "" otherwise.
	Unserved string
}

// jobWorkflow returns the workflow panel of job, or nil for a job that is
// not a workflow task. A workflow that cannot be read (removed after its
// retention, a store without workflows, a store failure) leaves the
// panel with what the job's metadata says.
func (d *dash) jobWorkflow(ctx context.Context, job *hopper.JobRecord) *jobWorkflowView {
	wf, task, ok := hopper.TaskOf(job)
	if !ok {
		return nil
	}
	v := &jobWorkflowView{ID: wf, Task: task, URL: d.workflowPath(wf), TaskURL: d.workflowPath(wf)}
	rec, err := d.ins.GetWorkflow(ctx, wf)
	switch {
	case errors.Is(err, hopper.ErrWorkflowNotFound), errors.Is(err, hopper.ErrInvalidWorkflow):
		v.Missing = "The workflow is gone: ended workflows are removed after their retention."
		return v
	case errors.Is(err, hopper.ErrNotSupported):
		v.Missing = "This store does not run workflows, so the workflow cannot be shown."
		return v
	case err != nil:
		id := newRequestID()
		d.cfg.Logger.Error("dashboard: store call failed", "request_id", id, "what", "reading the job's workflow", "workflow", wf, "error", err)
		v.Missing = "The workflow could not be read: the store answered with an error, in the dashboard's log under request ID " + id + "."
		return v
	}
	v.Found, v.Name, v.State, v.Cancelled = true, rec.Name, rec.State, rec.Cancelled
	l := newTaskLayout(rec.Tasks)
	index := l.index
	link := func(t *store.TaskRecord) taskLink {
		u := d.taskJobURL(t)
		if u == "" {
			u = d.taskRowURL(wf, l, t.Name)
		}
		return taskLink{Name: t.Name, State: t.State, URL: u}
	}
	i, ok := index[task]
	if !ok {
		v.Missing = "The workflow has no task " + task + "."
		return v
	}
	v.TaskURL = d.taskRowURL(wf, l, task)
	me := &rec.Tasks[i]
	v.TaskState, v.AllowFailure, v.AnyOutcome = me.State, me.AllowFailure, me.AnyOutcome
	if me.State == hopper.TaskEnqueued && job.State != hopper.StateUnack {
		if q := d.unservedQueues(ctx, []string{job.Queue}); len(q) == 1 {
			v.Unserved = q[0]
		}
	}
	for _, name := range me.Deps {
		if len(v.Deps) == maxRelatedShown {
			v.MoreDeps++
			continue
		}
		if j, ok := index[name]; ok {
			v.Deps = append(v.Deps, link(&rec.Tasks[j]))
		} else {
			v.Deps = append(v.Deps, taskLink{Name: name})
		}
	}
	for j := range rec.Tasks {
		for _, name := range rec.Tasks[j].Deps {
			if name != task {
				continue
			}
			if len(v.Dependents) == maxRelatedShown {
				v.MoreDependents++
			} else {
				v.Dependents = append(v.Dependents, link(&rec.Tasks[j]))
			}
			break
		}
	}
	return v
}
