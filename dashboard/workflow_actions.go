package dashboard

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// The actions on a workflow: cancel it, and retry its failed tasks. Both
// act on many jobs at once, so both go through a confirmation page that
// says exactly what they will do; a POST without confirm=1 is sent there.

// maxJobLookups bounds the jobs a confirmation page reads to count exactly
// what an action will touch; past it, the page gives the task counts.
const maxJobLookups = 1000

// jobCensus is where the jobs of some tasks are.
type jobCensus struct {
	States map[hopper.JobState]int
	Gone   int  // tasks whose job is no longer stored
	Exact  bool // every job was read
}

// census reads the jobs of tasks (at most maxJobLookups, a few at a time).
func (d *dash) census(ctx context.Context, tasks []*store.TaskRecord) (jobCensus, error) {
	c := jobCensus{States: map[hopper.JobState]int{}, Exact: len(tasks) <= maxJobLookups}
	if !c.Exact {
		return c, nil
	}
	var mu sync.Mutex
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(statsConcurrency)
	for _, t := range tasks {
		g.Go(func() error {
			j, err := d.ins.GetJob(ctx, t.Queue, t.JobID)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, hopper.ErrJobNotFound):
				c.Gone++
			case err != nil:
				return err
			default:
				c.States[j.State]++
			}
			return nil
		})
	}
	return c, g.Wait()
}

// tasksIn returns the tasks of rec in any of states.
func tasksIn(rec *hopper.WorkflowRecord, states ...hopper.TaskState) []*store.TaskRecord {
	var out []*store.TaskRecord
	for i := range rec.Tasks {
		for _, st := range states {
			if rec.Tasks[i].State == st {
				out = append(out, &rec.Tasks[i])
				break
			}
		}
	}
	return out
}

// workflowConfirmPage is the data of the page that confirms an action on
// a workflow.
type workflowConfirmPage struct {
	base
	WF      *hopper.WorkflowRecord
	Heading string // the workflow's name, or its ID
	Action  string // cancel or retry
	PostURL string
	Back    string
	// Possible is false when the action would do nothing; Reason says why.
	Possible bool
	Reason   string

	// cancel: the waiting tasks that never run, and the released ones
	// whose jobs are cancelled (queued or running, when Jobs.Exact).
	Waiting, Enqueued int
	Jobs              jobCensus
	Running, Queued   int
	// retry: the failed (or cancelled) tasks, how many of their jobs are
	// in garbage (requeued), how many are gone, and the skipped tasks.
	Failed, Requeue, Skipped int
}

// serveWorkflowConfirm asks before cancelling a workflow or retrying its
// failed tasks, with the counts of what the action does. It works without
// JavaScript: the action is a form on this page.
func (d *dash) serveWorkflowConfirm(w http.ResponseWriter, r *http.Request) {
	if d.cfg.ReadOnly {
		d.renderError(w, r, http.StatusForbidden, "Read-only dashboard", "This dashboard is read-only: actions are turned off on the server.")
		return
	}
	action := r.URL.Query().Get("action")
	if action != "cancel" && action != "retry" {
		d.renderError(w, r, http.StatusBadRequest, "No such action", "A workflow can be cancelled (action=cancel) or have its failed tasks retried (action=retry).")
		return
	}
	rec, ok := d.loadWorkflow(w, r)
	if !ok {
		return
	}
	heading := rec.Name
	if heading == "" {
		heading = rec.ID
	}
	p := workflowConfirmPage{
		base: d.base(r, "Confirm", "workflows"), WF: rec, Heading: heading, Action: action,
		PostURL: d.workflowPath(rec.ID) + "/" + action, Back: d.workflowPath(rec.ID), Possible: true,
	}
	var err error
	switch action {
	case "cancel":
		p.Waiting, p.Enqueued = rec.Counts[hopper.TaskWaiting], rec.Counts[hopper.TaskEnqueued]
		switch {
		case rec.State != hopper.WorkflowRunning:
			p.Possible, p.Reason = false, "The workflow has ended ("+string(rec.State)+"): there is nothing to cancel."
		case rec.Cancelled:
			p.Possible, p.Reason = false, "The workflow is already cancelled: it ends once its running tasks stop."
		}
		if p.Possible {
			p.Jobs, err = d.census(r.Context(), tasksIn(rec, hopper.TaskEnqueued))
			p.Running = p.Jobs.States[hopper.StateUnack]
			p.Queued = p.Jobs.States[hopper.StatePending] + p.Jobs.States[hopper.StateReady] + p.Jobs.States[hopper.StateRetry]
		}
	case "retry":
		failed := tasksIn(rec, hopper.TaskFailed, hopper.TaskCancelled)
		p.Failed, p.Skipped = len(failed), rec.Counts[hopper.TaskSkipped]
		switch {
		case rec.Cancelled:
			p.Possible, p.Reason = false, "The workflow was cancelled: a cancelled workflow cannot be retried."
		case len(failed) == 0:
			p.Possible, p.Reason = false, "No task has failed: there is nothing to retry."
		}
		if p.Possible {
			p.Jobs, err = d.census(r.Context(), failed)
			p.Requeue = p.Jobs.States[hopper.StateGarbage]
			if p.Jobs.Exact && p.Requeue == 0 {
				p.Possible, p.Reason = false, "None of the failed tasks' jobs is in garbage any more (deleted or collected): there is nothing to requeue."
			}
		}
	}
	if err != nil {
		d.storeError(w, r, "reading the tasks' jobs", err)
		return
	}
	d.render(w, r, http.StatusOK, "wfconfirm", p)
}

// workflowTarget reads the workflow an action names, and whether it was
// confirmed.
func (d *dash) workflowTarget(r *http.Request, action string) (rec *hopper.WorkflowRecord, confirmURL string, err error) {
	rec, err = d.ins.GetWorkflow(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil, "", d.workflowUserError(err)
	}
	if r.PostForm.Get("confirm") != "1" {
		return rec, d.workflowPath(rec.ID) + "/confirm?action=" + action, nil
	}
	return rec, "", nil
}

// postWorkflowCancel cancels a workflow: its waiting tasks never run, its
// queued task jobs go to garbage and its running ones are flagged.
func (d *dash) postWorkflowCancel(r *http.Request) (outcome, error) {
	rec, confirmURL, err := d.workflowTarget(r, "cancel")
	switch {
	case err != nil:
		return outcome{}, err
	case confirmURL != "":
		return outcome{to: confirmURL}, nil
	}
	back := d.workflowPath(rec.ID)
	if rec.State != hopper.WorkflowRunning {
		return outcome{to: back, flash: "wfended"}, nil
	}
	before := rec.Counts[hopper.TaskCancelled]
	if err := d.ins.CancelWorkflow(r.Context(), rec.ID); err != nil {
		return outcome{}, d.workflowUserError(err)
	}
	n := 0
	if after, err := d.ins.GetWorkflow(r.Context(), rec.ID); err == nil {
		n = max(0, after.Counts[hopper.TaskCancelled]-before)
	}
	return outcome{to: back, flash: "wfcancelled", n: n,
		attrs: []any{"workflow", rec.ID, "waiting", rec.Counts[hopper.TaskWaiting], "enqueued", rec.Counts[hopper.TaskEnqueued]}}, nil
}

// postWorkflowRetry requeues the jobs of a workflow's failed tasks.
func (d *dash) postWorkflowRetry(r *http.Request) (outcome, error) {
	rec, confirmURL, err := d.workflowTarget(r, "retry")
	switch {
	case err != nil:
		return outcome{}, err
	case confirmURL != "":
		return outcome{to: confirmURL}, nil
	}
	n, err := d.ins.RetryWorkflow(r.Context(), rec.ID)
	if err != nil {
		return outcome{}, d.workflowUserError(err)
	}
	return outcome{to: d.workflowPath(rec.ID), flash: "wfretried", n: n,
		attrs: []any{"workflow", rec.ID, "failed", rec.Counts[hopper.TaskFailed], "cancelled", rec.Counts[hopper.TaskCancelled]}}, nil
}
