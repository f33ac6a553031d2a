package hopper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hopperq/hopper/store"
)

// WorkflowInfo is what EnqueueWorkflow did.
type WorkflowInfo struct {
	// ID is the workflow's ID.
	ID string
	// Duplicate reports that a workflow with this ID was already stored;
	// nothing was added.
	Duplicate bool
}

// EnqueueWorkflow stores w with every task, or nothing: tasks with no
// dependencies are enqueued at once, the others wait in the workflow until
// their dependencies end. Each task's job goes through the Client's
// enqueue middleware (so tracing middleware puts every task in the
// enqueuer's trace), all in one call. A workflow whose ID is held reports
// Duplicate. A malformed workflow (see AddTask, and a dependency cycle,
// which the error names) fails with an error wrapping ErrInvalidWorkflow,
// ErrInvalidJob or ErrInvalidQueue, before anything is stored; a store
// without workflows fails with ErrNotSupported. w may be enqueued again
// (under its ID, it is a duplicate).
func (c *Client) EnqueueWorkflow(ctx context.Context, w *Workflow) (*WorkflowInfo, error) {
	ws, ok := c.st.(store.Workflows)
	if !ok {
		return nil, fmt.Errorf("%w: %T runs no workflows", ErrNotSupported, c.st)
	}
	if w == nil {
		return nil, fmt.Errorf("%w: nil workflow", ErrInvalidWorkflow)
	}
	if w.parent != nil {
		return nil, fmt.Errorf("%w: tasks from MoreTasks are stored with SubmitTasks", ErrInvalidWorkflow)
	}
	now := time.Now()
	if w.id == "" {
		w.id = newID(now)
	}
	tasks, err := c.buildTasks(w, w.id, now)
	if err != nil {
		return nil, err
	}
	nw := &store.NewWorkflow{ID: w.id, Name: w.name, Retention: w.retention, Tasks: tasks}
	if err := nw.Validate(); err != nil {
		return nil, err
	}
	var dup bool
	err = c.throughMiddleware(ctx, tasks, func(ctx context.Context) error {
		var err error
		dup, err = ws.EnqueueWorkflow(ctx, nw)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("hopper: enqueue workflow %q: %w", w.id, err)
	}
	return &WorkflowInfo{ID: w.id, Duplicate: dup}, nil
}

// buildTasks resolves the tasks of w, which go to workflow wf.
func (c *Client) buildTasks(w *Workflow, wf string, now time.Time) ([]*store.NewTask, error) {
	if w.err != nil {
		return nil, w.err
	}
	if len(w.tasks) == 0 {
		return nil, fmt.Errorf("%w: workflow %q has no tasks", ErrInvalidWorkflow, w.name)
	}
	out := make([]*store.NewTask, len(w.tasks))
	for i, t := range w.tasks {
		j, err := c.newJob(t.args, t.opts, now)
		if err != nil {
			return nil, fmt.Errorf("task %q: %w", t.name, err)
		}
		j.ID = store.TaskJobID(wf, t.name)
		if j.Meta == nil {
			j.Meta = make(map[string]string, 2)
		}
		j.Meta[store.MetaWorkflow] = wf
		j.Meta[store.MetaTask] = t.name
		if len(t.deps) > 0 {
			j.Meta[store.MetaDeps] = strings.Join(t.deps[:min(len(t.deps), store.MaxTraceLinks)], ",")
		}
		out[i] = &store.NewTask{
			Name: t.name, Deps: t.deps, Blocks: t.blocks,
			AllowFailure: t.allowFailure, AnyOutcome: t.anyOutcome, Job: j,
		}
	}
	return out, nil
}

// throughMiddleware runs the Client's enqueue middleware over the tasks'
// jobs with store as the innermost step instead of Store.Enqueue: the
// middleware may change the jobs' Meta (trace context) before they are
// stored.
func (c *Client) throughMiddleware(ctx context.Context, tasks []*store.NewTask, do func(context.Context) error) error {
	c.mu.Lock()
	mws := c.mws
	c.mu.Unlock()
	jobs := make([]*store.NewJob, len(tasks))
	for i, t := range tasks {
		jobs[i] = t.Job
	}
	f := EnqueueFunc(func(ctx context.Context, got []*store.NewJob) ([]store.EnqueueResult, error) {
		if len(got) != len(tasks) {
			return nil, errors.New("enqueue middleware changed the number of jobs of a workflow")
		}
		for i, j := range got {
			tasks[i].Job = j
		}
		if err := do(ctx); err != nil {
			return nil, err
		}
		res := make([]store.EnqueueResult, len(got))
		for i, j := range got {
			res[i] = store.EnqueueResult{ID: j.ID, State: StatePending}
		}
		return res, nil
	})
	for i := len(mws) - 1; i >= 0; i-- {
		f = mws[i](f)
	}
	_, err := f(ctx, jobs)
	return err
}
