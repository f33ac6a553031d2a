package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/hopperq/hopper/store"
)

// defaultGroupsShown is how many groups "queues groups" prints unless
// --limit says otherwise: a queue may have thousands.
const defaultGroupsShown = 100

// groupRow is one group of "hopper queues groups".
type groupRow struct {
	Group   string `json:"group"`
	Ready   int64  `json:"ready"`
	Running int64  `json:"running"`
	// Limit is the cap on the group's running jobs (0: none); Own says it
	// is the group's own (queues group-limit), not the queue's.
	Limit     int        `json:"limit"`
	Own       bool       `json:"own_limit"`
	HeldUntil *time.Time `json:"held_until,omitempty"`
}

// runQueuesGroups prints the groups of one queue (Inspector.ListGroups):
// those with ready or running jobs, a cap of their own or a hold in force,
// by name, as a table or JSON.
func runQueuesGroups(ctx context.Context, a *app, args []string) error {
	fs := newFlags("queues groups", "hopper queues groups [--redis URL] [--limit N] [--json] NAME", a.stderr)
	sf := addStoreFlags(fs)
	limit := fs.Int("limit", defaultGroupsShown, "print at most N groups, by name (0: all of them)")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	names, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(names) != 1:
		return badUsage(fs, "give the name of one queue")
	case *limit < 0:
		return badUsage(fs, "--limit %d: give 0 (all groups) or more", *limit)
	}
	ins, closeStore, err := a.openQueues(ctx, fs, sf, names)
	if err != nil {
		return err
	}
	defer closeStore()
	q := names[0]
	ask := 0
	if *limit > 0 {
		ask = *limit + 1 // one more says whether there are more
	}
	groups, err := ins.ListGroups(ctx, q, ask)
	if err != nil {
		return err
	}
	more := *limit > 0 && len(groups) > *limit
	if more {
		groups = groups[:*limit]
	}
	rows := make([]groupRow, len(groups))
	for i, g := range groups {
		rows[i] = groupRow{Group: g.Group, Ready: g.Ready, Running: g.Running, Limit: g.Limit, Own: g.Own}
		if !g.HeldUntil.IsZero() {
			rows[i].HeldUntil = &groups[i].HeldUntil
		}
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return err
		}
	} else {
		printGroups(a, q, rows, time.Now())
	}
	if more {
		fmt.Fprintf(a.stderr, "hopper queues groups: %s has more than %d groups; --limit 0 prints them all\n", q, *limit)
	}
	return nil
}

// printGroups writes rows as a table, a hold as the time left at now.
func printGroups(a *app, q string, rows []groupRow, now time.Time) {
	if len(rows) == 0 {
		fmt.Fprintf(a.stdout, "no groups in %s: no grouped job is ready or running, and no group has a cap of its own or a hold\n", q)
		return
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tREADY\tRUNNING\tCAP\tHELD")
	for _, r := range rows {
		limit := "-"
		if r.Limit > 0 {
			limit = strconv.Itoa(r.Limit)
			if r.Own {
				limit += " (own)"
			}
		}
		held := "-"
		if r.HeldUntil != nil {
			held = "for " + r.HeldUntil.Sub(now).Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", r.Group, r.Ready, r.Running, limit, held)
	}
	_ = tw.Flush()
}

// runQueuesGroupLimit gives a group of a queue a cap of its own on running
// jobs, or removes it (Inspector.SetGroupLimit).
func runQueuesGroupLimit(ctx context.Context, a *app, args []string) error {
	fs := newFlags("queues group-limit", "hopper queues group-limit [--redis URL] NAME GROUP N", a.stderr)
	sf := addStoreFlags(fs)
	for _, arg := range args {
		// The flag package would take "-2" for a flag it does not know.
		if n, err := strconv.Atoi(arg); err == nil && n < 0 {
			return badUsage(fs, "cap %q: give a whole number, 0 or more (0 removes the group's own cap)", arg)
		}
	}
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return badUsage(fs, "give a queue, one of its groups, and the group's cap (0 removes the group's own cap)")
	}
	q, group := pos[0], pos[1]
	limit, err := strconv.Atoi(pos[2])
	if err != nil || limit < 0 {
		return badUsage(fs, "cap %q: give a whole number, 0 or more (0 removes the group's own cap)", pos[2])
	}
	if err := store.ValidateGroupLimit(q, group, limit); err != nil {
		return badUsage(fs, "%s", flagText(err))
	}
	ins, closeStore, err := a.openQueues(ctx, fs, sf, pos[:1])
	if err != nil {
		return err
	}
	defer closeStore()
	if err := ins.SetGroupLimit(ctx, q, group, limit); err != nil {
		return err
	}
	if limit == 0 {
		fmt.Fprintf(a.stdout, "group %s of %s has no cap of its own: the queue's GroupMaxRunning applies\n", group, q)
	} else {
		fmt.Fprintf(a.stdout, "group %s of %s: at most %d running, from every worker's next claim\n", group, q, limit)
	}
	return nil
}
