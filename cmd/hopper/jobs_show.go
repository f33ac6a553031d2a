package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/internal/specview"
)

// cliJob is a job as "hopper jobs show --json" and "list --json" print it,
// with the same field names as the dashboard's JSON (dashboard/api.go,
// jobJSON) for the same data.
type cliJob struct {
	ID          string               `json:"id"`
	Queue       string               `json:"queue"`
	Kind        string               `json:"kind"`
	State       string               `json:"state"`
	Args        any                  `json:"args"`
	ArgsError   string               `json:"args_error,omitempty"`
	Result      any                  `json:"result,omitempty"`
	Meta        map[string]any       `json:"meta,omitempty"`
	Attempt     int                  `json:"attempt"`
	MaxRetries  int                  `json:"max_retries"`
	Priority    int                  `json:"priority"`
	Cancelled   bool                 `json:"cancelled,omitempty"`
	EnqueuedAt  *time.Time           `json:"enqueued_at,omitempty"`
	RunAt       *time.Time           `json:"run_at,omitempty"`
	AttemptedAt *time.Time           `json:"attempted_at,omitempty"`
	FinishedAt  *time.Time           `json:"finished_at,omitempty"`
	Errors      []specview.JSONError `json:"errors,omitempty"`
	// Options are the job's options that are set (store.JobSpec) but
	// Meta, by snake_case name, durations in whole milliseconds under
	// name_ms, as the dashboard's "options".
	Options map[string]any `json:"options,omitempty"`
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// toCLIJob decodes and redacts a job for printing.
func toCLIJob(j *hopper.JobRecord, redact dashboard.RedactFunc) cliJob {
	out := cliJob{
		ID: j.ID, Queue: j.Queue, Kind: j.Kind, State: string(j.State), Attempt: j.Attempt, MaxRetries: j.MaxRetries,
		Cancelled: j.Cancelled, EnqueuedAt: timeOrNil(j.EnqueuedAt), RunAt: timeOrNil(j.RunAt),
		AttemptedAt: timeOrNil(j.AttemptedAt), FinishedAt: timeOrNil(j.FinishedAt), Priority: j.Priority,
		Options: specview.JSONOptions(&j.JobSpec), Errors: specview.JSONErrors(j.Errors),
	}
	if v, err := dashboard.DecodeArgs(j.Args); err != nil {
		out.ArgsError = err.Error()
	} else {
		out.Args = redact(j.Kind, v)
	}
	if len(j.Result) > 0 {
		if v, err := dashboard.DecodeArgs(j.Result); err == nil {
			out.Result = redact(j.Kind, v)
		}
	}
	if len(j.Meta) > 0 {
		m := make(map[string]any, len(j.Meta))
		for k, v := range j.Meta {
			m[k] = v
		}
		if red, ok := redact(j.Kind, m).(map[string]any); ok {
			out.Meta = red
		}
	}
	return out
}

// runJobsShow prints one job: where it is, its times and options, its args
// and result as JSON, its errors with their stacks and its metadata. The
// job is named by its ID or the start of it (resolveJob).
func runJobsShow(ctx context.Context, a *app, args []string) error {
	fs := newFlags("jobs show", "hopper jobs show [--queue Q] ID [--json] [--no-redact]   (ID, or the start of one)", a.stderr)
	sf := addStoreFlags(fs)
	queue := fs.String("queue", "", "queue of the job (default: look in every queue)")
	asJSON := fs.Bool("json", false, "print JSON")
	noRedact := fs.Bool("no-redact", false, "show secrets instead of [redacted]")
	ids, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return badUsage(fs, "give one job ID (got %d)", len(ids))
	}
	if err := checkJobFlags(fs, *queue, ids); err != nil {
		return err
	}
	store, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	ins := hopper.NewInspector(store)
	if err := checkJobQueue(ctx, fs, ins, *queue); err != nil {
		return err
	}
	j, err := resolveJob(ctx, ins, *queue, ids[0])
	if err != nil {
		return err
	}
	cj := toCLIJob(j, redactor(*noRedact))
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(cj)
	}
	printJob(a.stdout, j, cj, time.Now())
	return nil
}

// printJob writes a job for a person to read.
func printJob(w io.Writer, j *hopper.JobRecord, cj cliJob, now time.Time) {
	field := func(name, value string) { fmt.Fprintf(w, "%-13s %s\n", name+":", value) }
	when := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return t.UTC().Format("2006-01-02 15:04:05.000 UTC") + " (" + relative(now, t) + ")"
	}
	field("ID", j.ID)
	field("Queue", j.Queue)
	field("Kind", j.Kind)
	state := string(j.State)
	if j.Cancelled {
		state += " (cancelled)"
	}
	field("State", state)
	field("Attempts", fmt.Sprintf("%d of %d", j.Attempt, j.MaxRetries+1))
	// The job's options that are set, an option added to store.JobSpec
	// included; MaxRetries is in Attempts and Meta below.
	for _, f := range specview.Fields(&j.JobSpec) {
		if !f.Zero && f.Name != "MaxRetries" && f.Name != "Meta" {
			field(f.Label, optionText(f.Value))
		}
	}
	field("Enqueued", when(j.EnqueuedAt))
	field("Due", when(j.RunAt))
	field("Last attempt", when(j.AttemptedAt))
	if !j.FinishedAt.IsZero() {
		field("Finished", when(j.FinishedAt))
	}
	if !j.Deadline.IsZero() {
		field("Lease until", when(j.Deadline))
	}
	if tp, ok := cj.Meta["traceparent"].(string); ok && len(tp) >= 35 {
		field("Trace ID", tp[3:35])
	}
	for _, k := range slices.Sorted(maps.Keys(cj.Meta)) {
		field("Meta "+k, fmt.Sprint(cj.Meta[k]))
	}
	fmt.Fprintln(w, "\nArgs:")
	if cj.ArgsError != "" {
		fmt.Fprintf(w, "  (these %d bytes do not decode: %s)\n", len(j.Args), cj.ArgsError)
		indent(w, hex.Dump(j.Args[:min(len(j.Args), 1024)]), "  ")
	} else {
		indent(w, indentJSON(cj.Args), "  ")
	}
	if cj.Result != nil {
		fmt.Fprintln(w, "\nResult:")
		indent(w, indentJSON(cj.Result), "  ")
	}
	if len(j.Errors) > 0 {
		fmt.Fprintln(w, "\nErrors, newest first:")
		for i := len(j.Errors) - 1; i >= 0; i-- {
			e := j.Errors[i]
			head := fmt.Sprintf("  attempt %d, %s", e.Attempt, when(e.At))
			if !e.StartedAt.IsZero() {
				head += ", started " + when(e.StartedAt)
			}
			if e.Worker != "" {
				head += " on " + e.Worker
			}
			fmt.Fprintln(w, head+":")
			indent(w, e.Error, "    ")
			if e.Stack != "" {
				indent(w, e.Stack, "    | ")
			}
		}
	}
}

// optionText writes the value of a job's option for a person to read.
func optionText(v any) string {
	switch v := v.(type) {
	case time.Duration:
		return v.String()
	case time.Time:
		return v.UTC().Format("2006-01-02 15:04:05.000 UTC")
	case map[string]string, []string, []byte:
		return compactJSON(v)
	}
	return fmt.Sprint(v)
}

// indentJSON writes v as indented JSON without HTML escaping.
func indentJSON(v any) string { return jsonText(v, "  ") }

// compactJSON writes v as one line of JSON without HTML escaping.
func compactJSON(v any) string { return jsonText(v, "") }

func jsonText(v any, ind string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", ind)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n"))
}
