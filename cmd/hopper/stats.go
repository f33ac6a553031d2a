package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redisurl"
	"github.com/hopperq/hopper/internal/urlredact"
	"github.com/hopperq/hopper/store"
)

// queueStatsRow is one queue of "hopper stats".
type queueStatsRow struct {
	Queue     string            `json:"queue"`
	Paused    bool              `json:"paused"`
	Counts    store.StateCounts `json:"-"`
	States    map[string]int64  `json:"counts"` // Counts by state name
	LatencyMS int64             `json:"latency_ms"`
	// Done and Failed count the attempts that ended in the last hour.
	Done   int64 `json:"done_last_hour"`
	Failed int64 `json:"failed_last_hour"`
}

// runStats prints every queue's jobs per state, pause state, latency and
// last hour's throughput, as a table or JSON.
func runStats(ctx context.Context, a *app, args []string) error {
	fs := newFlags("stats", "hopper stats [--redis URL] [--json]", a.stderr)
	sf := addStoreFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if pos, err := parse(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return badUsage(fs, "unexpected argument %q (stats shows every queue)", pos[0])
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	rows, err := loadStats(ctx, hopper.NewInspector(s))
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			noQueues(a, sf)
		}
		return nil
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.stdout, "no queues")
		noQueues(a, sf)
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "QUEUE\tPAUSED\tPENDING\tREADY\tUNACK\tRETRY\tGARBAGE\tDONE\tLATENCY\tDONE/H\tFAILED/H\t")
	var total queueStatsRow
	for _, r := range rows {
		paused := "-"
		if r.Paused {
			paused = "yes"
		}
		c := r.Counts
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\t\n", r.Queue, paused,
			c.Pending, c.Ready, c.Unack, c.Retry, c.Garbage, c.Done, latency(r.LatencyMS), r.Done, r.Failed)
		total.Counts.Add(c)
		total.Done += r.Done
		total.Failed += r.Failed
	}
	c := total.Counts
	fmt.Fprintf(tw, "%s\t\t%d\t%d\t%d\t%d\t%d\t%d\t\t%d\t%d\t\n", "TOTAL", c.Pending, c.Ready, c.Unack, c.Retry, c.Garbage, c.Done, total.Done, total.Failed)
	return tw.Flush()
}

// noQueues says on stderr (stdout may be JSON) that the store sf names
// lists no queues: a mistyped prefix, or a forgotten --redis, looks like
// this too.
func noQueues(a *app, sf *storeFlags) {
	fmt.Fprintf(a.stderr, "hopper stats: no queues under the key prefix %q (--redis-prefix) in the Redis at %s (--redis); check both if you expected some\n",
		sf.prefix, urlredact.Redact(redisurl.Normalize(sf.url)))
}

// loadStats reads every queue's stats and last hour's throughput.
func loadStats(ctx context.Context, s *hopper.Inspector) ([]queueStatsRow, error) {
	names, err := s.ListQueues(ctx)
	if err != nil {
		return nil, err
	}
	since := time.Now().Add(-time.Hour)
	rows := make([]queueStatsRow, 0, len(names))
	for _, q := range names {
		st, err := s.GetQueueStats(ctx, q)
		if err != nil {
			return nil, err
		}
		points, err := s.GetThroughput(ctx, q, since)
		if err != nil {
			return nil, err
		}
		r := queueStatsRow{Queue: q, Paused: st.Config.Paused, Counts: st.Counts, States: map[string]int64{}, LatencyMS: st.Latency.Milliseconds()}
		for _, state := range store.States {
			r.States[string(state)] = st.Counts.Get(state)
		}
		for _, p := range points {
			r.Done += p.Done
			r.Failed += p.Failed
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// latency writes a queue latency in milliseconds briefly; "-" for none.
func latency(ms int64) string {
	if ms <= 0 {
		return "-"
	}
	return shortDuration(time.Duration(ms) * time.Millisecond)
}

// shortDuration writes d rounded to a readable precision.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
