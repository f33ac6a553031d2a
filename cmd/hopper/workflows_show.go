package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// runWorkflowsShow prints one workflow: its state, task counts and a table
// of its tasks.
func runWorkflowsShow(ctx context.Context, a *app, args []string) error {
	fs := newFlags("workflows show", "hopper workflows show ID [--json]", a.stderr)
	sf := addStoreFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON, with every task")
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return badUsage(fs, "give one workflow ID (got %d)", len(ids))
	}
	if err := checkArgs(fs, ids, store.ValidateWorkflowID); err != nil {
		return err
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	rec, err := getWorkflow(ctx, hopper.NewInspector(s), ids[0])
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(toCLIWorkflow(rec))
	}
	return printWorkflow(a.stdout, rec, time.Now())
}

// printWorkflow writes a workflow for a person to read.
func printWorkflow(w io.Writer, rec *hopper.WorkflowRecord, now time.Time) error {
	field := func(name, value string) { fmt.Fprintf(w, "%-10s %s\n", name+":", value) }
	when := func(t time.Time) string {
		return t.UTC().Format("2006-01-02 15:04:05.000 UTC") + " (" + relative(now, t) + ")"
	}
	field("ID", rec.ID)
	if rec.Name != "" {
		field("Name", rec.Name)
	}
	state := string(rec.State)
	if rec.Cancelled && rec.State == hopper.WorkflowRunning {
		state += " (cancelled: it ends once its running tasks stop)"
	}
	field("State", state)
	field("Created", when(rec.CreatedAt))
	if !rec.EndedAt.IsZero() {
		field("Ended", when(rec.EndedAt))
		field("Took", took(rec, now))
		field("Kept", fmt.Sprintf("%s after it ended, until %s", rec.Retention, rec.EndedAt.Add(rec.Retention).UTC().Format("2006-01-02 15:04:05 UTC")))
	} else {
		field("Running", "for "+shortDuration(now.Sub(rec.CreatedAt)))
	}
	field("Tasks", fmt.Sprintf("%d: %s", len(rec.Tasks), countsText(rec.Counts)))

	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tQUEUE\tKIND\tDEPS")
	for _, t := range rec.Tasks {
		name := t.Name
		var flags []string
		if t.AllowFailure {
			flags = append(flags, "allow failure")
		}
		if t.AnyOutcome {
			flags = append(flags, "any outcome")
		}
		if t.AddedBy != "" {
			flags = append(flags, "added by "+t.AddedBy)
		}
		if len(flags) > 0 {
			name += " (" + strings.Join(flags, ", ") + ")"
		}
		deps := "-"
		if len(t.Deps) > 0 {
			deps = clip(strings.Join(t.Deps, ","), 80)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, t.State, t.Queue, t.Kind, deps)
	}
	return tw.Flush()
}
