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
// (under its ID, it is a duplicate). On Redis, an error that says "the
// workflow is stored" came after the workflow was stored, while its first
// tasks were enqueued: a Scheduler's sweep (every Worker runs one)
// enqueues them once Redis takes them, and enqueueing w again reports
// Duplicate.
func EnqueueWorkflow(ctx context.Context, c *Client, w *Workflow) (*WorkflowInfo, error) {
	if c.unmade() {
		return nil, errNilClient
	}
	ws, ok := store.As[store.Workflows](c.st)
	if !ok {
		return nil, fmt.Errorf("%w: %T runs no workflows", ErrNotSupported, c.st)
	}
	if w == nil {
		return nil, fmt.Errorf("%w: nil workflow", ErrInvalidWorkflow)
	}
	if w.parent != nil {
		return nil, fmt.Errorf("%w: tasks from MoreTasks are stored with EnqueueTasks", ErrInvalidWorkflow)
	}
	now := time.Now()
	if w.id == "" {
		w.id = newID(now)
	}
	tasks, jobs, err := c.buildTasks(w, w.id, now)
	if err != nil {
		return nil, err
	}
	nw := &store.NewWorkflow{ID: w.id, Name: w.name, Retention: w.retention, Tasks: tasks}
	if err := nw.Validate(); err != nil {
		return nil, err
	}
	if err := checkTaskQueues(ctx, c.st, tasks); err != nil {
		return nil, err
	}
	var dup bool
	err = c.throughMiddleware(ctx, tasks, jobs, func(ctx context.Context) error {
		var err error
		dup, err = ws.EnqueueWorkflow(ctx, nw)
		return err
	})
	if err != nil {
		return nil, errorf("hopper: enqueue workflow %q: %w", w.id, err)
	}
	return &WorkflowInfo{ID: w.id, Duplicate: dup}, nil
}

// buildTasks resolves the tasks of w, which go to workflow wf, and their
// jobs: each task's Job is its job's.
func (c *Client) buildTasks(w *Workflow, wf string, now time.Time) ([]*store.NewTask, []*PreparedJob, error) {
	if w.err != nil {
		return nil, nil, w.err
	}
	if len(w.tasks) == 0 {
		return nil, nil, fmt.Errorf("%w: workflow %q has no tasks", ErrInvalidWorkflow, w.name)
	}
	out := make([]*store.NewTask, len(w.tasks))
	jobs := make([]*PreparedJob, len(w.tasks))
	for i, t := range w.tasks {
		p, err := c.newJob(t.args, t.opts, forTask, now)
		if err != nil {
			return nil, nil, errorAt(fmt.Sprintf("task %q", t.name), err)
		}
		j := &p.job
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
		jobs[i] = p
	}
	return out, jobs, nil
}

// checkTaskQueues refuses a task whose queue the store partitions
// (store.Partitioner: redisstore with Config.Partitions), which takes no
// workflow tasks, with an error wrapping ErrInvalidJob and
// ErrInvalidQueue that names the task, as the store's refusal does; the
// store's, wrapped in the call's, said "hopper:" three times.
func checkTaskQueues(ctx context.Context, st Store, tasks []*store.NewTask) error {
	p, ok := store.As[store.Partitioner](st)
	if !ok {
		return nil
	}
	seen := make(map[string]bool, 1)
	for _, t := range tasks {
		q := t.Job.Queue
		if seen[q] {
			continue
		}
		seen[q] = true
		parts, err := p.Partitions(ctx, q)
		if err != nil {
			return errorf("hopper: partitions of queue %q: %w", q, err)
		}
		if len(parts) > 0 {
			return errorf("%w: task %q: %w", ErrInvalidJob, t.Name,
				fmt.Errorf("%w: %q has %d partitions, and a partitioned queue takes no workflow tasks", ErrInvalidQueue, q, len(parts)))
		}
	}
	return nil
}

// throughMiddleware runs the Client's enqueue middleware over the tasks'
// jobs with store as the innermost step instead of Store.Enqueue: the
// middleware may change the jobs' Meta (trace context) before they are
// stored.
func (c *Client) throughMiddleware(ctx context.Context, tasks []*store.NewTask, jobs []*PreparedJob, do func(context.Context) error) error {
	inner := func(ctx context.Context, got []*PreparedJob) ([]*JobInfo, error) {
		if len(got) != len(tasks) {
			return nil, errors.New("enqueue middleware changed the number of jobs of a workflow")
		}
		if err := checkMetaAfterMiddleware(got, checkMetaKeys); err != nil {
			return nil, err
		}
		for i, p := range got {
			tasks[i].Job = &p.job
		}
		if err := do(ctx); err != nil {
			return nil, err
		}
		infos := make([]*JobInfo, len(got))
		for i, p := range got {
			infos[i] = &JobInfo{ID: p.job.ID, Queue: p.job.Queue, Kind: p.job.Kind, State: StatePending}
		}
		return infos, nil
	}
	c.mu.Lock()
	f := c.wrap(inner)
	c.mu.Unlock()
	_, err := f(ctx, jobs)
	return err
}
