package main

import (
	"context"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
)

// runJobsReschedule moves the due time of waiting jobs: to a time, after a
// delay from now, or to now.
func runJobsReschedule(ctx context.Context, a *app, args []string) error {
	fs := newFlags("jobs reschedule", "hopper jobs reschedule [--queue Q] (--at TIME | --in DURATION | --now) ID...", a.stderr)
	sf := addStoreFlags(fs)
	queue := fs.String("queue", "", "queue of the jobs (default: look in every queue)")
	at := fs.String("at", "", "new due time, RFC 3339 (2026-11-24T09:00:00Z)")
	in := fs.Duration("in", 0, "new due time as a delay from now (90s, 2h)")
	now := fs.Bool("now", false, "make the jobs due now")
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	set := 0
	for _, on := range []bool{*at != "", *in != 0, *now} {
		if on {
			set++
		}
	}
	if len(ids) == 0 || set != 1 {
		fmt.Fprintln(a.stderr, "hopper jobs reschedule: give job IDs and exactly one of --at, --in and --now")
		fs.Usage()
		return errUsage
	}
	due := time.Now()
	switch {
	case *at != "":
		if due, err = time.Parse(time.RFC3339, *at); err != nil {
			return fmt.Errorf("--at %q is not an RFC 3339 time (2026-11-24T09:00:00Z): %w", *at, err)
		}
	case *in < 0:
		return fmt.Errorf("--in %v is negative", *in)
	case *in > 0:
		due = due.Add(*in)
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	ins := hopper.NewInspector(s)
	failed := 0
	for _, id := range ids {
		j, err := findJob(ctx, ins, *queue, id)
		if err == nil {
			j, err = ins.UpdateJob(ctx, j.Queue, j.ID, hopper.JobUpdate{RunAt: due})
		}
		if err != nil {
			failed++
			fmt.Fprintf(a.stderr, "%s: %v\n", id, err)
			continue
		}
		fmt.Fprintf(a.stdout, "%s is %s, due %s\n", j.ID, j.State, j.RunAt.Format(time.RFC3339))
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d jobs not rescheduled", failed, len(ids))
	}
	return nil
}
