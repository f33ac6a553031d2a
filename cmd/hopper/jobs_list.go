package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
)

// runJobsList prints a page of one state of one queue, filtered by kind
// and by a substring of the (redacted) args.
func runJobsList(ctx context.Context, a *app, args []string) error {
	fs := newFlags("jobs list", "hopper jobs list [--queue Q] [--state S] [--kind K] [--search TEXT] [--limit N] [--offset N] [--newest] [--json]", a.stderr)
	sf := addStoreFlags(fs)
	queue := fs.String("queue", hopper.DefaultQueue, "queue to list")
	state := fs.String("state", string(hopper.StateReady), "state to list: pending, ready, unack, retry, garbage or done")
	kind := fs.String("kind", "", "only jobs of this kind")
	search := fs.String("search", "", "only jobs whose args, as JSON, contain this text (any case; redacted values never match)")
	limit := fs.Int("limit", 20, "most jobs to print")
	offset := fs.Int("offset", 0, "jobs to skip")
	newest := fs.Bool("newest", false, "latest first")
	asJSON := fs.Bool("json", false, "print JSON lines, one job each")
	noRedact := fs.Bool("no-redact", false, "show secrets in args instead of [redacted]")
	if pos, err := parse(fs, args); err != nil || len(pos) > 0 {
		fs.Usage()
		return errUsage
	}
	st, err := hopper.ParseState(*state)
	if err != nil {
		return err
	}
	if *limit < 1 || *offset < 0 {
		return fmt.Errorf("--limit must be at least 1 and --offset at least 0")
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	redact := redactor(*noRedact)
	req := hopper.ListRequest{Queue: *queue, State: st, Offset: *offset, Limit: *limit, Newest: *newest, Kind: *kind}
	if *search != "" {
		needle := strings.ToLower(*search)
		req.Match = func(j *hopper.JobRecord) bool {
			v, err := dashboard.DecodeArgs(j.Args)
			return err == nil && strings.Contains(strings.ToLower(compactJSON(redact(j.Kind, v))), needle)
		}
	}
	page, err := hopper.NewInspector(s).ListJobs(ctx, req)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		for _, j := range page.Jobs {
			if err := enc.Encode(toCLIJob(j, redact)); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tATTEMPT\tWHEN\tARGS\tLAST ERROR")
	now := time.Now()
	for _, j := range page.Jobs {
		args := argsText(j, redact)
		lastErr := ""
		if n := len(j.Errors); n > 0 {
			lastErr = j.Errors[n-1].Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%s\n", j.ID, j.Kind, j.Attempt, j.MaxRetries+1,
			relative(now, listTime(j)), clip(args, 60), clip(oneLine(lastErr), 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	what := "jobs"
	if req.Kind != "" || req.Match != nil {
		what = "matches"
	}
	fmt.Fprintf(a.stdout, "%d of %d %s in %s of %s", len(page.Jobs), page.Total, what, st, *queue)
	if page.Truncated {
		fmt.Fprint(a.stdout, " (the search stopped after the first 10,000 jobs)")
	}
	fmt.Fprintln(a.stdout)
	return nil
}

// listTime is the time that matters for a job in its state.
func listTime(j *hopper.JobRecord) time.Time {
	switch j.State {
	case hopper.StatePending, hopper.StateRetry:
		return j.RunAt
	case hopper.StateUnack:
		return j.AttemptedAt
	case hopper.StateGarbage, hopper.StateDone:
		return j.FinishedAt
	}
	return j.EnqueuedAt
}

// relative writes t relative to now: "3m12s ago", "in 5s".
func relative(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d >= 0 {
		return shortDuration(d) + " ago"
	}
	return "in " + shortDuration(-d)
}

// argsText is the one-line JSON of a job's redacted args, or a note that
// they do not decode.
func argsText(j *hopper.JobRecord, redact dashboard.RedactFunc) string {
	v, err := dashboard.DecodeArgs(j.Args)
	if err != nil {
		return fmt.Sprintf("(%d undecodable bytes)", len(j.Args))
	}
	return compactJSON(redact(j.Kind, v))
}

// clip shortens s to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// oneLine keeps the first line of s.
func oneLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
