package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
)

// runJobsList prints a page of one state of one queue, filtered by kind
// and by a substring of the (redacted) args. A filtered list is a search
// through the whole state (hopper.Inspector.SearchJobs, through the
// queue's kind index when it keeps one), which prints where it can go on
// (--from).
func runJobsList(ctx context.Context, a *app, args []string) error {
	fs := newFlags("jobs list", "hopper jobs list [--queue Q] [--state S] [--kind K] [--search TEXT] [--from POS] [--limit N] [--offset N] [--newest] [--json] [--no-redact]", a.stderr)
	sf := addStoreFlags(fs)
	queue := fs.String("queue", hopper.DefaultQueue, "queue to list")
	state := fs.String("state", string(hopper.StateReady), "state to list: pending, ready, unack, retry, garbage or done")
	kind := fs.String("kind", "", "only jobs of this kind")
	search := fs.String("search", "", "only jobs whose args contain this text, in their JSON or in a string in them (any case; redacted values never match)")
	limit := fs.Int("limit", 20, "most jobs to print")
	offset := fs.Int("offset", 0, "jobs to skip")
	newest := fs.Bool("newest", false, "latest first")
	from := fs.String("from", "", "with --kind or --search: the position to search on from, as the last search printed it")
	asJSON := fs.Bool("json", false, "print JSON lines, one job each")
	noRedact := fs.Bool("no-redact", false, "show secrets in args instead of [redacted]")
	if pos, err := parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return badUsage(fs, "unexpected argument %q", pos[0])
	}
	if err := checkQueueFlag(fs, *queue); err != nil {
		return err
	}
	st, err := parseStateFlag(fs, *state)
	if err != nil {
		return err
	}
	if *limit < 1 || *offset < 0 {
		return badUsage(fs, "--limit must be at least 1 and --offset at least 0")
	}
	filtered := *kind != "" || *search != ""
	cursor, err := parseCursor(*from)
	if err != nil {
		return badUsage(fs, "%v", err)
	}
	if *from != "" && !filtered {
		return badUsage(fs, "--from goes with --kind or --search; a plain list pages with --offset")
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	redact := redactor(*noRedact)
	ins := hopper.NewInspector(s)
	var jobs []*hopper.JobRecord
	var found searchResult
	if filtered {
		req := hopper.SearchJobsOpts{Queue: *queue, State: st, Newest: *newest, Kind: *kind, From: cursor.from, ByKind: cursor.byKind}
		if *search != "" {
			req.Text = dashboard.ArgsSearchHint(*search) // safe: redact is DefaultRedact or NoRedact
			req.Match = func(j *hopper.JobRecord) bool {
				v, err := dashboard.DecodeArgs(j.Args)
				return err == nil && dashboard.ArgsContain(redact(j.Kind, v), *search)
			}
		}
		if found, err = searchAll(ctx, ins, req, *offset+*limit); err != nil {
			return queueRefused(fs, "--queue", err)
		}
		jobs = found.jobs[min(*offset, len(found.jobs)):]
	} else {
		req := hopper.ListJobsOpts{Queue: *queue, State: st, Offset: *offset, Newest: *newest}
		if jobs, found.total, err = listPages(ctx, ins, req, *limit); err != nil {
			return queueRefused(fs, "--queue", err)
		}
	}
	// A queue the store does not know has no jobs: the list says "0 of
	// 0" as for an empty one, and stderr says why (exit 0 all the same).
	known := true
	if found.total == 0 {
		if known, err = queueKnown(ctx, s, *queue); err != nil {
			return err
		}
	}
	if !known {
		defer unknownQueue(a, "jobs list", *queue, sf)
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		for _, j := range jobs {
			if err := enc.Encode(toCLIJob(j, redact)); err != nil {
				return err
			}
		}
		if filtered {
			// Where the search goes on, on stderr: stdout stays JSON lines.
			fmt.Fprintln(a.stderr, searchSummary(jobs, found, cursor, st, *queue, *kind))
		}
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tATTEMPT\tWHEN\tARGS\tLAST ERROR")
	now := time.Now()
	for _, j := range jobs {
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
	if !filtered {
		fmt.Fprintf(a.stdout, "%d of %d jobs in %s of %s\n", len(jobs), found.total, st, *queue)
		return nil
	}
	fmt.Fprintln(a.stdout, searchSummary(jobs, found, cursor, st, *queue, *kind))
	return nil
}

// listPages reads up to limit jobs of req's state from req.Offset on, a
// page of ListJobs at a time (it returns at most hopper.MaxListLimit), and
// the number of jobs in the state. Jobs that move between two pages may be
// missed or met twice: one met twice is kept once.
func listPages(ctx context.Context, ins *hopper.Inspector, req hopper.ListJobsOpts, limit int) ([]*hopper.JobRecord, int, error) {
	var jobs []*hopper.JobRecord
	seen := map[string]bool{}
	for {
		req.Limit = min(limit-len(jobs), hopper.MaxListLimit)
		p, err := ins.ListJobs(ctx, req)
		if err != nil {
			return nil, 0, err
		}
		for _, j := range p.Jobs {
			if !seen[j.ID] {
				seen[j.ID] = true
				jobs = append(jobs, j)
			}
		}
		req.Offset += len(p.Jobs)
		if len(jobs) >= limit || len(p.Jobs) < req.Limit {
			return jobs, p.Total, nil
		}
	}
}

// searchSummary says what a filtered list found, among which jobs, and
// where it goes on ("more with --from N") when it did not reach the end.
func searchSummary(jobs []*hopper.JobRecord, found searchResult, cursor searchCursor, st hopper.JobState, queue, kind string) string {
	among := fmt.Sprintf("jobs %d–%d of %d", min(cursor.from+1, found.total), found.next, found.total)
	if found.byKind {
		among = fmt.Sprintf("jobs %d–%d of the %d of kind %s in %s (kind index)", min(cursor.from+1, found.total), found.next, found.total, kind, queue)
	}
	what := "matches"
	if len(jobs) == 1 {
		what = "match"
	}
	line := fmt.Sprintf("%d %s in %s of %s, among %s", len(jobs), what, st, queue, among)
	if found.next < found.total {
		line += fmt.Sprintf("; more with --from %s", searchCursor{from: found.next, byKind: found.byKind})
	}
	return line
}

// searchResult is what searchAll found.
type searchResult struct {
	jobs        []*hopper.JobRecord
	total, next int
	byKind      bool
}

// searchAll runs req's search until it has want matches or reaches the end
// of what it walks.
func searchAll(ctx context.Context, ins *hopper.Inspector, req hopper.SearchJobsOpts, want int) (searchResult, error) {
	var r searchResult
	for {
		req.Limit = min(want-len(r.jobs), hopper.MaxListLimit)
		p, err := ins.SearchJobs(ctx, req)
		if err != nil {
			return r, err
		}
		r.jobs = append(r.jobs, p.Jobs...)
		r.total, r.next, r.byKind = p.Total, min(p.Next, p.Total), p.ByKind
		if len(r.jobs) >= want || p.Done() {
			return r, nil
		}
		req.From, req.ByKind = p.Next, p.ByKind
	}
}

// searchCursor is where a search goes on: a position in the state, or with
// byKind in the queue's kind index ("kind:<position>").
type searchCursor struct {
	from   int
	byKind bool
}

// String formats c for --from.
func (c searchCursor) String() string {
	if c.byKind {
		return "kind:" + strconv.Itoa(c.from)
	}
	return strconv.Itoa(c.from)
}

// parseCursor reads --from: empty for the start.
func parseCursor(s string) (searchCursor, error) {
	if s == "" {
		return searchCursor{}, nil
	}
	var c searchCursor
	n, byKind := strings.CutPrefix(s, "kind:")
	from, err := strconv.Atoi(n)
	if err != nil || from < 0 {
		return c, fmt.Errorf("--from %q: want a position a search printed, such as 40000 or kind:120", s)
	}
	return searchCursor{from: from, byKind: byKind}, nil
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

// relative writes t relative to now: "3m12s ago", "in 5s", in years and
// days from a year on ("in 373y364d").
func relative(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	if t.After(now) {
		return "in " + span(now, t)
	}
	return span(t, now) + " ago"
}

// span writes the time from a to b (a not after b) as shortDuration does,
// in years and days from a year on: a Duration holds 292 years at most,
// and due times run to the year 9999 (now.Sub(t) saturated, and its
// negation overflowed into "in -2562047h47m16.854775808s").
func span(a, b time.Time) string {
	a, b = a.UTC(), b.UTC()
	years := b.Year() - a.Year()
	if years > 0 && a.AddDate(years, 0, 0).After(b) {
		years--
	}
	rest := b.Sub(a.AddDate(years, 0, 0))
	if years == 0 {
		return shortDuration(rest)
	}
	return fmt.Sprintf("%dy%dd", years, int(rest/(24*time.Hour)))
}

// maxListedArgs bounds the encoded args a list decodes for its column,
// which shows 60 characters of them: six jobs of 100 MB took 13 s and 1.9
// GB to list.
const maxListedArgs = 256 << 10

// argsText is the one-line JSON of a job's redacted args, or a note that
// they do not decode or are too large to list.
func argsText(j *hopper.JobRecord, redact dashboard.RedactFunc) string {
	if len(j.Args) > maxListedArgs {
		return fmt.Sprintf("(%d bytes: hopper jobs show)", len(j.Args))
	}
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
