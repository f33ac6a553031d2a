package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// workflowsUsage lists the subcommands of "hopper workflows".
const workflowsUsage = `usage: hopper workflows <list|show|cancel|retry> [flags]

  list    [--state S] [--search TEXT] [--limit N] [--offset N] [--json]
  show    ID [--json]         the workflow's state, task counts and every task
  cancel  ID...               cancel workflows: waiting tasks never run, running ones have their context cancelled
  retry   ID...               requeue the jobs of the workflows' failed tasks

--state is running, succeeded, failed or cancelled; --search keeps the
workflows whose ID starts with TEXT or whose name holds it.`

// runWorkflows dispatches the subcommands of "hopper workflows".
func runWorkflows(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand(a, "workflows", workflowsUsage, args, "list", "show", "cancel", "retry")
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		return runWorkflowsList(ctx, a, rest)
	case "show":
		return runWorkflowsShow(ctx, a, rest)
	case "cancel", "retry":
		return runWorkflowsAct(ctx, a, sub, rest)
	}
	panic("hopper workflows: no case for subcommand " + sub)
}

// getWorkflow reads workflow id, with a plain message when there is none.
func getWorkflow(ctx context.Context, ins *hopper.Inspector, id string) (*hopper.WorkflowRecord, error) {
	rec, err := ins.GetWorkflow(ctx, id)
	if errors.Is(err, hopper.ErrWorkflowNotFound) {
		return nil, fmt.Errorf("no workflow %q (ended workflows are removed after their retention)", id)
	}
	return rec, err
}

// runWorkflowsAct cancels workflows, or retries their failed tasks.
func runWorkflowsAct(ctx context.Context, a *app, verb string, args []string) error {
	fs := newFlags("workflows "+verb, "hopper workflows "+verb+" ID...", a.stderr)
	sf := addStoreFlags(fs)
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return badUsage(fs, "give the IDs of the workflows to %s", verb)
	}
	if err := checkArgs(fs, ids, store.ValidateWorkflowID); err != nil {
		return err
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	ins := hopper.NewInspector(s)
	act := cancelWorkflow
	if verb == "retry" {
		act = retryWorkflow
	}
	var failed int
	for _, id := range ids {
		msg, err := act(ctx, ins, id)
		if err != nil {
			failed++
			itemFailed(a, id, err)
			continue
		}
		fmt.Fprintln(a.stdout, msg)
	}
	if failed > 0 {
		what := "cancelled"
		if verb == "retry" {
			what = "retried"
		}
		return fmt.Errorf("%d of %d workflows not %s", failed, len(ids), what)
	}
	return nil
}

// cancelWorkflow cancels workflow id and says what it did.
func cancelWorkflow(ctx context.Context, ins *hopper.Inspector, id string) (string, error) {
	rec, err := getWorkflow(ctx, ins, id)
	if err != nil {
		return "", err
	}
	if rec.State != hopper.WorkflowRunning {
		return fmt.Sprintf("%s has already ended (%s): nothing to cancel", id, rec.State), nil
	}
	if err := ins.CancelWorkflow(ctx, id); err != nil {
		return "", err
	}
	after, err := getWorkflow(ctx, ins, id)
	if err != nil {
		return "", err
	}
	cancelled := after.Counts[hopper.TaskCancelled] - rec.Counts[hopper.TaskCancelled]
	msg := fmt.Sprintf("cancelled workflow %s: %s will not run", id, count(cancelled, "task", "tasks"))
	if n := after.Counts[hopper.TaskEnqueued]; n > 0 {
		msg += fmt.Sprintf("; %s still running stop once their workers hear of it", count(n, "task", "tasks"))
	}
	return msg, nil
}

// retryWorkflow requeues the jobs of workflow id's failed tasks and says
// how many.
func retryWorkflow(ctx context.Context, ins *hopper.Inspector, id string) (string, error) {
	n, err := ins.RetryWorkflow(ctx, id)
	switch {
	case errors.Is(err, hopper.ErrWorkflowNotFound):
		return "", fmt.Errorf("no workflow %q (ended workflows are removed after their retention)", id)
	case errors.Is(err, hopper.ErrWorkflowEnded):
		return "", errors.New("the workflow was cancelled: a cancelled workflow cannot be retried")
	case err != nil:
		return "", err
	case n == 0:
		return fmt.Sprintf("%s: no failed task's job to requeue", id), nil
	}
	return fmt.Sprintf("requeued the jobs of %s of %s: the workflow runs again", count(n, "failed task", "failed tasks"), id), nil
}

// count writes n and the word for it: "1 task", "3 tasks".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// took is how long a workflow ran: until it ended, or until now.
func took(rec *hopper.WorkflowRecord, now time.Time) string {
	if rec.EndedAt.IsZero() {
		return "running for " + shortDuration(now.Sub(rec.CreatedAt))
	}
	return shortDuration(rec.EndedAt.Sub(rec.CreatedAt))
}
