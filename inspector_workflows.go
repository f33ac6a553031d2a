package hopper

import (
	"context"
	"fmt"

	"github.com/hopperq/hopper/store"
)

// workflowsFor returns the store's workflows, or ErrNotSupported.
func (i *Inspector) workflowsFor(what string) (store.Workflows, error) {
	ws, ok := store.As[store.Workflows](i.st)
	if !ok {
		return nil, fmt.Errorf("%w: %s: %T runs no workflows", ErrNotSupported, what, i.st)
	}
	return ws, nil
}

// WorkflowsSupported reports whether the store runs workflows.
func (i *Inspector) WorkflowsSupported() bool {
	if i.made() != nil {
		return false
	}
	_, ok := store.As[store.Workflows](i.st)
	return ok
}

// ListWorkflows lists workflows matching f, newest first, with how many match
// and how many are in each state. A State that is not one of the
// WorkflowStates, a negative Offset or a Limit over 1,000 fails with
// ErrInvalidConfig.
func (i *Inspector) ListWorkflows(ctx context.Context, f ListWorkflowsOpts) (WorkflowPage, error) {
	if err := i.made(); err != nil {
		return WorkflowPage{}, err
	}
	ws, err := i.workflowsFor("list workflows")
	if err != nil {
		return WorkflowPage{}, err
	}
	if f.State != "" && !f.State.Valid() {
		return WorkflowPage{}, fmt.Errorf("%w: workflow state %q (want one of running, succeeded, failed, cancelled)", ErrInvalidConfig, f.State)
	}
	if f.Offset < 0 || f.Limit < 0 || f.Limit > 1000 {
		return WorkflowPage{}, fmt.Errorf("%w: Offset %d and Limit %d must be >= 0, Limit at most 1000", ErrInvalidConfig, f.Offset, f.Limit)
	}
	if f.Limit == 0 {
		f.Limit = 50
	}
	return ws.ListWorkflows(ctx, f)
}

// GetWorkflow returns the workflow id with its tasks, or an error wrapping
// ErrWorkflowNotFound.
func (i *Inspector) GetWorkflow(ctx context.Context, id string) (*WorkflowRecord, error) {
	if err := i.made(); err != nil {
		return nil, err
	}
	ws, err := i.workflowsFor("get workflow")
	if err != nil {
		return nil, err
	}
	if err := store.ValidateWorkflowID(id); err != nil {
		return nil, err
	}
	return ws.GetWorkflow(ctx, id)
}

// CancelWorkflow cancels workflow id: its waiting tasks never run, its
// queued task jobs go to garbage and its running ones are flagged (their
// handlers see Cancelled); it ends as cancelled once every task has ended.
// Cancelling an ended workflow changes nothing.
func (i *Inspector) CancelWorkflow(ctx context.Context, id string) error {
	if err := i.made(); err != nil {
		return err
	}
	ws, err := i.workflowsFor("cancel workflow")
	if err != nil {
		return err
	}
	if err := store.ValidateWorkflowID(id); err != nil {
		return err
	}
	return ws.CancelWorkflow(ctx, id)
}

// RetryWorkflow requeues the jobs of workflow id's failed tasks and
// returns how many; the workflow re-opens and the tasks skipped because of
// them wait again. A cancelled workflow fails with ErrWorkflowEnded.
func (i *Inspector) RetryWorkflow(ctx context.Context, id string) (int, error) {
	if err := i.made(); err != nil {
		return 0, err
	}
	ws, err := i.workflowsFor("retry workflow")
	if err != nil {
		return 0, err
	}
	if err := store.ValidateWorkflowID(id); err != nil {
		return 0, err
	}
	return ws.RetryWorkflow(ctx, id)
}
