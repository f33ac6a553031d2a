package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/store"
)

// jobsUsage lists the subcommands of "hopper jobs".
const jobsUsage = `usage: hopper jobs <list|show|retry|delete|cancel|reschedule> [flags]

  list    [--queue Q] [--state S] [--kind K] [--search TEXT] [--from POS]
          [--limit N] [--offset N] [--newest] [--json] [--no-redact]
  show    [--queue Q] ID [--json] [--no-redact]
                                    one job, by its ID or the start of it
  retry   [--queue Q] ID...         requeue jobs now (from pending, retry, garbage or done)
  retry   --queue Q --state S --all requeue every job in a state
  delete  [--queue Q] ID...         delete jobs (not running ones: cancel those)
  delete  --queue Q --state S --all delete every job in a state
  cancel  [--queue Q] ID...         cancel waiting or running jobs
  reschedule [--queue Q] [--at TIME | --in DURATION | --now] [--priority P] ID...
                                    move waiting jobs' due time, change their priority

Without --queue, a job is looked for in every queue; an ID jobs of several
queues have (IDs are unique per queue only) needs --queue. Args, results and
metadata are shown with secrets redacted (dashboard.DefaultRedact) unless
--no-redact is given.`

// runJobs dispatches the subcommands of "hopper jobs".
func runJobs(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand(a, "jobs", jobsUsage, args, "list", "show", "retry", "delete", "cancel", "reschedule")
	if err != nil {
		return err
	}
	switch sub {
	case "list":
		return runJobsList(ctx, a, rest)
	case "show":
		return runJobsShow(ctx, a, rest)
	case "retry", "delete":
		return runJobsAct(ctx, a, sub, rest)
	case "cancel":
		return runJobsCancel(ctx, a, rest)
	case "reschedule":
		return runJobsReschedule(ctx, a, rest)
	}
	panic("hopper jobs: no case for subcommand " + sub)
}

// redactor returns the redaction the output applies.
func redactor(off bool) dashboard.RedactFunc {
	if off {
		return dashboard.NoRedact
	}
	return dashboard.DefaultRedact
}

// checkJobFlags checks the --queue (empty for every queue) and the job
// IDs a jobs subcommand was given, before it connects.
func checkJobFlags(fs *flag.FlagSet, queue string, ids []string) error {
	if queue != "" {
		if err := checkQueueFlag(fs, queue); err != nil {
			return err
		}
	}
	return checkArgs(fs, ids, store.ValidateID)
}

// checkJobQueue asks the store whether it takes the --queue (empty for
// every queue) of a jobs subcommand, once connected and before it acts
// (checkStoreQueues).
func checkJobQueue(ctx context.Context, fs *flag.FlagSet, ins *hopper.Inspector, queue string) error {
	if queue == "" {
		return nil
	}
	return checkStoreQueues(ctx, fs, ins, "--queue", queue)
}

// findJob returns the job id of queue, or with queue empty of the one
// queue that holds it; jobs of several queues with that ID are an error
// listing them (oneJob).
func findJob(ctx context.Context, ins *hopper.Inspector, queue, id string) (*hopper.JobRecord, error) {
	if queue == "" {
		queues, err := ins.ListQueues(ctx)
		if err != nil {
			return nil, err
		}
		found, err := jobsWithID(ctx, ins, queues, id)
		if err == nil && len(found) == 0 {
			return nil, fmt.Errorf("no job %q in any queue", id)
		}
		return oneJob(id, found, err)
	}
	j, err := ins.GetJob(ctx, queue, id)
	if errors.Is(err, hopper.ErrJobNotFound) {
		return nil, fmt.Errorf("no job %q in queue %s", id, queue)
	}
	return j, err
}

// runJobsAct requeues ("retry") or deletes jobs: by ID, or all in a state.
func runJobsAct(ctx context.Context, a *app, verb string, args []string) error {
	fs := newFlags("jobs "+verb, "hopper jobs "+verb+" [--queue Q] ID... | --queue Q --state S --all", a.stderr)
	sf := addStoreFlags(fs)
	queue := fs.String("queue", "", "queue of the jobs (default: look in every queue)")
	state := fs.String("state", "", "with --all: the state to act on")
	all := fs.Bool("all", false, "act on every job in --state of --queue")
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case *all && len(ids) > 0:
		return badUsage(fs, "give job IDs or --all, not both")
	case !*all && len(ids) == 0:
		return badUsage(fs, "give the IDs of the jobs, or --all with --queue and --state")
	case *all && (*queue == "" || *state == ""):
		return badUsage(fs, "--all needs --queue and --state")
	}
	if err := checkJobFlags(fs, *queue, ids); err != nil {
		return err
	}
	var st hopper.JobState
	if *all {
		if st, err = parseStateFlag(fs, *state); err != nil {
			return err
		}
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	ins := hopper.NewInspector(s)
	if err := checkJobQueue(ctx, fs, ins, *queue); err != nil {
		return err
	}
	op := ins.RequeueJobs
	past := "requeued"
	if verb == "delete" {
		op, past = ins.DeleteJobs, "deleted"
	}
	if *all {
		n, err := op(ctx, *queue, st, nil)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "%s %d jobs from %s of %s\n", past, n, st, *queue)
		return nil
	}
	var failed int
	for _, id := range ids {
		j, err := findJob(ctx, ins, *queue, id)
		if err == nil {
			var n int
			if n, err = op(ctx, j.Queue, j.State, []string{j.ID}); err == nil && n == 0 {
				err = fmt.Errorf("it left %s meanwhile", j.State)
			}
		}
		if err != nil {
			failed++
			itemFailed(a, id, err)
			continue
		}
		fmt.Fprintf(a.stdout, "%s %s (was %s in %s)\n", past, j.ID, j.State, j.Queue)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d jobs not %s", failed, len(ids), past)
	}
	return nil
}

// runJobsCancel cancels jobs by ID.
func runJobsCancel(ctx context.Context, a *app, args []string) error {
	fs := newFlags("jobs cancel", "hopper jobs cancel [--queue Q] ID...", a.stderr)
	sf := addStoreFlags(fs)
	queue := fs.String("queue", "", "queue of the jobs (default: look in every queue)")
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return badUsage(fs, "give the IDs of the jobs to cancel")
	}
	if err := checkJobFlags(fs, *queue, ids); err != nil {
		return err
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	ins := hopper.NewInspector(s)
	if err := checkJobQueue(ctx, fs, ins, *queue); err != nil {
		return err
	}
	var failed int
	for _, id := range ids {
		j, err := findJob(ctx, ins, *queue, id)
		var was hopper.JobState
		if err == nil {
			was, err = ins.CancelJob(ctx, j.Queue, j.ID)
		}
		if err != nil {
			failed++
			itemFailed(a, id, err)
			continue
		}
		switch was {
		case hopper.StateUnack:
			fmt.Fprintf(a.stdout, "cancelling %s: its worker stops it shortly\n", j.ID)
		case hopper.StateGarbage, hopper.StateDone:
			fmt.Fprintf(a.stdout, "%s was already in %s: nothing to cancel\n", j.ID, was)
		default:
			fmt.Fprintf(a.stdout, "cancelled %s (was %s): moved to garbage\n", j.ID, was)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d jobs not cancelled", failed, len(ids))
	}
	return nil
}

// indent prefixes every line of s with p.
func indent(w io.Writer, s, p string) {
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		fmt.Fprintln(w, p+line)
	}
}
