package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hopperq/hopper"
)

// schedulesUsage lists the subcommands of "hopper schedules".
const schedulesUsage = `usage: hopper schedules <list|pause|resume|respec|delete> [flags]

  list                                    the stored schedules (Inspector.SetSchedule)
  pause   [--queue Q] NAME...             stop their ticks
  resume  [--queue Q] NAME...             start them again
  respec  [--queue Q] --spec SPEC NAME... tick on a new schedule ("@every 5m", cron)
  delete  [--queue Q] NAME...             remove them

Every running scheduler picks a change up within a second or so.`

// runSchedules dispatches the subcommands of "hopper schedules".
func runSchedules(ctx context.Context, a *app, args []string) error {
	sub, rest, err := subcommand(a, "schedules", schedulesUsage, args, "list", "pause", "resume", "respec", "delete")
	if err != nil {
		return err
	}
	line := map[string]string{
		"list":   "hopper schedules list",
		"pause":  "hopper schedules pause [--queue Q] NAME...",
		"resume": "hopper schedules resume [--queue Q] NAME...",
		"respec": "hopper schedules respec [--queue Q] --spec SPEC NAME...",
		"delete": "hopper schedules delete [--queue Q] NAME...",
	}[sub]
	fs := newFlags("schedules "+sub, line, a.stderr)
	sf := addStoreFlags(fs)
	// list shows the stored schedules of every queue; the others act on
	// the named schedules of one queue, and only respec takes a spec.
	queue, spec := new(string), new(string)
	if sub != "list" {
		queue = fs.String("queue", hopper.DefaultQueue, "queue of the schedules")
	}
	if sub == "respec" {
		spec = fs.String("spec", "", "the new schedule")
	}
	names, err := parse(fs, rest)
	if err != nil {
		return err
	}
	switch {
	case sub == "list" && len(names) > 0:
		return badUsage(fs, "unexpected argument %q", names[0])
	case sub != "list" && len(names) == 0:
		return badUsage(fs, "give the names of the schedules to %s", sub)
	case sub == "respec" && *spec == "":
		return badUsage(fs, "--spec is required")
	}
	if sub != "list" {
		// Checked here: the Inspector looks the schedule up in the
		// queue of that name and says it is not found.
		if err := checkQueueFlag(fs, *queue); err != nil {
			return err
		}
	}
	if sub == "respec" {
		// Checked once, before connecting: SetScheduleSpec's error for
		// each name said "hopper:" twice (invalid config: schedule
		// "nightly": hopper: schedule "sometimes": ...).
		if _, err := hopper.NextTick(*spec, time.Now()); err != nil {
			return badUsage(fs, "--spec %q: %s", *spec, strings.TrimPrefix(err.Error(), fmt.Sprintf("hopper: schedule spec %q: ", *spec)))
		}
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	ins := hopper.NewInspector(s)
	if sub != "list" {
		if err := checkStoreQueues(ctx, fs, ins, "--queue", *queue); err != nil {
			return err
		}
	}
	if sub == "list" {
		list, err := ins.ListSchedules(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "QUEUE\tNAME\tSPEC\tKIND\tSTATE\tUPDATED")
		for _, sc := range list {
			if !sc.Stored {
				continue
			}
			state := "running"
			if sc.Paused {
				state = "paused"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", sc.Queue, sc.Name, sc.Spec, sc.Kind, state, sc.UpdatedAt.UTC().Format("2006-01-02 15:04:05"))
		}
		return tw.Flush()
	}
	failed := 0
	for _, name := range names {
		var err error
		switch sub {
		case "pause":
			err = ins.PauseSchedule(ctx, *queue, name)
		case "resume":
			err = ins.ResumeSchedule(ctx, *queue, name)
		case "respec":
			err = ins.SetScheduleSpec(ctx, *queue, name, *spec)
		case "delete":
			err = ins.DeleteSchedule(ctx, *queue, name)
		}
		if err != nil {
			failed++
			itemFailed(a, name, err)
			continue
		}
		fmt.Fprintf(a.stdout, "%s %s of %s\n", pastTense[sub], name, *queue)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d schedules not changed", failed, len(names))
	}
	return nil
}

// pastTense names what a subcommand did.
var pastTense = map[string]string{"pause": "paused", "resume": "resumed", "respec": "respecced", "delete": "deleted"}
