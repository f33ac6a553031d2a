package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// cliWorkflow is a workflow as "hopper workflows list --json" and "show
// --json" print it, with the same field names as the dashboard's JSON.
type cliWorkflow struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	State       string         `json:"state"`
	Cancelled   bool           `json:"cancelled,omitempty"`
	CreatedAt   *time.Time     `json:"created_at,omitempty"`
	EndedAt     *time.Time     `json:"ended_at,omitempty"`
	RetentionMS int64          `json:"retention_ms"`
	TaskCount   int            `json:"task_count"`
	Counts      map[string]int `json:"counts"`
	Tasks       []cliTask      `json:"tasks,omitempty"`
}

// cliTask is one task of a workflow.
type cliTask struct {
	Name         string   `json:"name"`
	Queue        string   `json:"queue"`
	Kind         string   `json:"kind"`
	JobID        string   `json:"job_id"`
	State        string   `json:"state"`
	Deps         []string `json:"deps"`
	AllowFailure bool     `json:"allow_failure,omitempty"`
	AnyOutcome   bool     `json:"any_outcome,omitempty"`
	AddedBy      string   `json:"added_by,omitempty"`
}

// toCLIWorkflow converts a workflow, with its tasks when it has them.
func toCLIWorkflow(rec *hopper.WorkflowRecord) cliWorkflow {
	out := cliWorkflow{
		ID: rec.ID, Name: rec.Name, State: string(rec.State), Cancelled: rec.Cancelled,
		CreatedAt: timeOrNil(rec.CreatedAt), EndedAt: timeOrNil(rec.EndedAt), RetentionMS: rec.Retention.Milliseconds(),
		Counts: make(map[string]int, len(store.TaskStates)),
	}
	for _, st := range store.TaskStates {
		out.Counts[string(st)] = rec.Counts[st]
		out.TaskCount += rec.Counts[st]
	}
	for _, t := range rec.Tasks {
		deps := t.Deps
		if deps == nil {
			deps = []string{}
		}
		out.Tasks = append(out.Tasks, cliTask{Name: t.Name, Queue: t.Queue, Kind: t.Kind, JobID: t.JobID, State: string(t.State),
			Deps: deps, AllowFailure: t.AllowFailure, AnyOutcome: t.AnyOutcome, AddedBy: t.AddedBy})
	}
	return out
}

// countsText writes the task counts that are not zero: "2 succeeded, 1
// failed".
func countsText(counts map[hopper.TaskState]int) string {
	var parts []string
	for _, st := range store.TaskStates {
		if n := counts[st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// runWorkflowsList prints a page of workflows, newest first.
func runWorkflowsList(ctx context.Context, a *app, args []string) error {
	fs := newFlags("workflows list", "hopper workflows list [--state S] [--search TEXT] [--limit N] [--offset N] [--json]", a.stderr)
	sf := addStoreFlags(fs)
	state := fs.String("state", "", "only workflows in this state: running, succeeded, failed or cancelled")
	search := fs.String("search", "", "only workflows whose ID starts with this text, or whose name holds it")
	limit := fs.Int("limit", 20, "most workflows to print (at most 1000)")
	offset := fs.Int("offset", 0, "workflows to skip")
	asJSON := fs.Bool("json", false, "print JSON lines, one workflow each")
	if pos, err := parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return badUsage(fs, "unexpected argument %q", pos[0])
	}
	st := hopper.WorkflowState(*state)
	if st != "" && !st.Valid() {
		return badUsage(fs, "--state %q: want running, succeeded, failed or cancelled", *state)
	}
	if *limit < 1 || *limit > 1000 || *offset < 0 {
		return badUsage(fs, "--limit must be 1 to 1000 and --offset at least 0")
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	page, err := hopper.NewInspector(s).ListWorkflows(ctx, hopper.ListWorkflowsOpts{State: st, Search: *search, Offset: *offset, Limit: *limit})
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		for i := range page.Workflows {
			if err := enc.Encode(toCLIWorkflow(&page.Workflows[i])); err != nil {
				return err
			}
		}
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATE\tENDED\tTASKS\tCREATED\tTOOK")
	for i := range page.Workflows {
		w := &page.Workflows[i]
		total, ended := 0, 0
		for st, n := range w.Counts {
			total += n
			if st.Ended() {
				ended += n
			}
		}
		state := string(w.State)
		if w.Cancelled && w.State == hopper.WorkflowRunning {
			state += " (cancelling)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t%s\t%s\t%s\n", w.ID, clip(w.Name, 40), state, ended, total,
			clip(countsText(w.Counts), 60), relative(now, w.CreatedAt), took(w, now))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	what := "workflows"
	if *search != "" {
		what = "matches"
	}
	var counts []string
	for _, st := range store.WorkflowStates {
		counts = append(counts, fmt.Sprintf("%s %d", st, page.Counts[st]))
	}
	fmt.Fprintf(a.stdout, "%d of %d %s (in all: %s)\n", len(page.Workflows), page.Total, what, strings.Join(counts, ", "))
	return nil
}
