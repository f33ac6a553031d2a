package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/hopperq/hopper"
)

// runJobsReschedule moves the due time of waiting jobs (to a time, after a
// delay from now, or to now), changes their priority, or both.
func runJobsReschedule(ctx context.Context, a *app, args []string) error {
	fs := newFlags("jobs reschedule", "hopper jobs reschedule [--queue Q] [--at TIME | --in DURATION | --now] [--priority P] ID...", a.stderr)
	sf := addStoreFlags(fs)
	queue := fs.String("queue", "", "queue of the jobs (default: look in every queue)")
	at := fs.String("at", "", "new due time, RFC 3339 (2026-11-24T09:00:00Z)")
	in := durationFlag(fs, "in", 0, "new due time as a `delay` from now (90s, 2h)")
	now := fs.Bool("now", false, "make the jobs due now")
	prio := fs.Int("priority", 0, fmt.Sprintf("new priority, %d to %d (higher runs first)", hopper.MinPriority, hopper.MaxPriority))
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	set, prioSet := 0, false
	for _, on := range []bool{*at != "", in.d != 0, *now} {
		if on {
			set++
		}
	}
	fs.Visit(func(f *flag.Flag) { prioSet = prioSet || f.Name == "priority" })
	if len(ids) == 0 || set > 1 || (set == 0 && !prioSet) {
		return badUsage(fs, "give job IDs, at most one of --at, --in and --now, and/or --priority")
	}
	if err := checkJobFlags(fs, *queue, ids); err != nil {
		return err
	}
	var u hopper.JobUpdate
	if prioSet {
		if *prio < hopper.MinPriority || *prio > hopper.MaxPriority {
			return badUsage(fs, "--priority %d is not between %d and %d", *prio, hopper.MinPriority, hopper.MaxPriority)
		}
		u.Priority = prio
	}
	var atTime time.Time
	if *at != "" {
		if atTime, err = time.Parse(time.RFC3339, *at); err != nil {
			return badUsage(fs, "--at %q is not an RFC 3339 time, such as 2026-11-24T09:00:00Z", *at)
		}
	}
	if in.d < 0 {
		return badUsage(fs, "--in %s is negative: give a delay from now, such as 90s, or --now", in)
	}
	switch {
	case *at != "":
		u.RunAt = atTime
	case in.d > 0:
		u.RunAt = time.Now().Add(in.d)
	case *now:
		u.RunAt = time.Now()
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
	failed := 0
	for _, id := range ids {
		j, err := findJob(ctx, ins, *queue, id)
		if err == nil {
			j, err = ins.UpdateJob(ctx, j.Queue, j.ID, u)
		}
		if err != nil {
			failed++
			itemFailed(a, id, err)
			continue
		}
		fmt.Fprintf(a.stdout, "%s is %s, due %s, priority %d\n", j.ID, j.State, j.RunAt.Format(time.RFC3339), j.Priority)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d jobs not rescheduled", failed, len(ids))
	}
	return nil
}
