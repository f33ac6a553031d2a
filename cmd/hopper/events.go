package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// queueList is a flag that may be given several times.
type queueList []string

func (q *queueList) String() string { return strings.Join(*q, ",") }

func (q *queueList) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		if err := store.ValidateQueue(name); err != nil {
			return errors.New(errText(err)) // the flag package prints it after "invalid value ... for flag -queue: "
		}
		*q = append(*q, name)
	}
	return nil
}

// eventLine is one event as "hopper events --json" prints it.
type eventLine struct {
	Pos      string    `json:"pos"`
	Type     string    `json:"type"`
	Queue    string    `json:"queue"`
	ID       string    `json:"id"`
	Kind     string    `json:"kind"`
	At       time.Time `json:"at"`
	Attempt  int       `json:"attempt"`
	Worker   string    `json:"worker,omitempty"`
	Error    string    `json:"error,omitempty"`
	State    string    `json:"state,omitempty"`
	Percent  *float64  `json:"percent,omitempty"`
	LogLines []string  `json:"log,omitempty"`
}

// runEvents tails the event streams of queues until interrupted (or
// --count events were printed). While the store fails, it retries (as
// Subscribe does) and says so once, then that it resumed (outage).
func runEvents(ctx context.Context, a *app, args []string) error {
	fs := newFlags("events", "hopper events --queue NAME [--queue NAME...] [--from now|start|POS] [--job ID] [--count N] [--json] [--redis URL]", a.stderr)
	sf := addStoreFlags(fs)
	var queues queueList
	fs.Var(&queues, "queue", "a queue to follow (repeat, or separate with commas)")
	from := fs.String("from", "now", `where to start: "now", "start" (the oldest event kept) or the position of an event (one queue only)`)
	job := fs.String("job", "", "print only the events of this job")
	count := fs.Int("count", 0, "exit after printing this many events (0: run until interrupted)")
	asJSON := fs.Bool("json", false, "print one JSON object per line, with each event's position")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if len(queues) == 0 {
		return badUsage(fs, "--queue is required")
	}
	if *count < 0 {
		return badUsage(fs, "--count %d is negative: give the number of events to print, or 0 to follow until interrupted", *count)
	}
	opts := &hopper.SubscribeOpts{}
	switch *from {
	case "now":
		opts.Start = hopper.FromNow
	case "start":
		opts.Start = hopper.FromStart
	default:
		if _, err := store.ParseEventPos(*from); err != nil {
			return badUsage(fs, "--from %q is not an event position: use now, start, or the position of an event (hopper events --json prints them)", *from)
		}
		if len(queues) != 1 {
			return badUsage(fs, "--from with a position needs exactly one --queue (got %d)", len(queues))
		}
		opts.From = map[string]string{queues[0]: *from}
	}
	s, closeStore, err := a.open(ctx, sf)
	if err != nil {
		return err
	}
	defer closeStore()
	if err := checkStoreQueues(ctx, fs, hopper.NewInspector(s), "--queue", queues...); err != nil {
		return err
	}
	// Each stream looked at before "following" is printed: a queue the
	// stats take but that has no one stream (a partitioned queue as a
	// whole) is refused here, as bad usage, with nothing printed first.
	var end store.EventPos // queues[0]'s, for --from
	var ok bool            // whether the store keeps events
	for i, q := range queues {
		e, kept, err := streamEnd(ctx, s, q)
		if err != nil {
			return queueRefused(fs, "--queue", err)
		}
		if i == 0 {
			end, ok = e, kept
		}
	}
	if opts.From != nil {
		pos, _ := store.ParseEventPos(*from)
		if ok && pos.OtherGen(end) {
			return badUsage(fs, "--from %s is of an earlier stream of queue %q, which started over since (it ends at %s; Redis flushed, the stream's key deleted or evicted); --from start reads the new one from its oldest event", *from, queues[0], end)
		}
		if ok && pos.Entry > end.Entry {
			last := fmt.Sprintf("it ends at %s", end)
			if end.Entry == 0 {
				last = "it is empty"
			}
			return badUsage(fs, "--from %s is past the end of the stream of queue %q (%s): a mistyped position, or the stream started over since (Redis flushed, the queue's data deleted); --from start reads it from its oldest event", *from, queues[0], last)
		}
	}
	// A queue the store does not know is followed all the same (its first
	// job may come), but said so: a mistyped name, or a forgotten --redis,
	// would otherwise look like a quiet queue.
	for _, q := range queues {
		known, err := queueKnown(ctx, s, q)
		if err != nil {
			return err
		}
		if !known {
			unknownQueue(a, "events", q, sf)
		}
	}
	fmt.Fprintf(a.stderr, "following %s %s\n", queues.String(), untilWhat(*count, *job))
	// A store error stops the subscription a while (Subscribe tries again
	// with a backoff): said once, and when the store answers again.
	out := &outage{w: a.stderr, queues: queues.String(), probe: func(ctx context.Context) error {
		for _, q := range queues {
			if _, _, err := streamEnd(ctx, s, q); err != nil {
				return err
			}
		}
		return nil
	}}
	defer out.close()
	var lastErr error
	printed := 0
	for ev, err := range hopper.NewClient(s, nil).Subscribe(ctx, queues, opts) {
		if errors.Is(err, hopper.ErrEventsLost) {
			out.resumed(0)
			// Not "fell behind" (ErrEventsLost's words): after a Redis
			// flush the stream started over.
			fmt.Fprintf(a.stderr, "hopper events: some events of queue %q were lost: the stream no longer had them (trimmed to its EventsMaxLen, or not written while nobody read it) or started over (Redis flushed); going on with those it has\n", ev.Queue)
			continue
		}
		switch {
		case errors.Is(err, hopper.ErrInvalidQueue):
			// A partitioned queue as a whole, which the stats above take.
			return queueRefused(fs, "--queue", err)
		case errors.Is(err, hopper.ErrInvalidConfig), errors.Is(err, hopper.ErrNotSupported):
			return err
		case err != nil:
			lastErr = err
			out.failed(ctx, err)
			continue
		}
		out.resumed(0)
		if *job != "" && ev.ID != *job {
			continue
		}
		if *asJSON {
			b, _ := json.Marshal(lineOf(ev))
			fmt.Fprintln(a.stdout, string(b))
		} else {
			fmt.Fprintln(a.stdout, formatEvent(ev))
		}
		if printed++; *count > 0 && printed >= *count {
			return nil
		}
	}
	if ctx.Err() == nil && lastErr != nil {
		// Subscribe ended on its own: the store cannot serve it again
		// (its client closed for good).
		return lastErr
	}
	return nil
}

// untilWhat says what ends "hopper events": an interrupt, or with --count
// the count printed (of job's events, with --job).
func untilWhat(count int, job string) string {
	of := ""
	if job != "" {
		of = " of job " + job
	}
	switch count {
	case 0:
		return "(interrupt to stop)"
	case 1:
		return "until 1 event" + of + " is printed"
	}
	return fmt.Sprintf("until %d events%s are printed", count, of)
}

// streamEnd returns the position of the end of queue's event stream: that
// of its last event, entry 0 when it has none; false for a store that
// keeps no events (Subscribe says so).
func streamEnd(ctx context.Context, s hopper.Store, queue string) (store.EventPos, bool, error) {
	r, ok := store.As[store.EventReader](s)
	if !ok {
		return store.EventPos{}, false, nil
	}
	_, next, _, err := r.ReadEvents(ctx, map[string]string{queue: store.FromNow}, 1, 0)
	if err != nil {
		return store.EventPos{}, false, err
	}
	end, err := store.ParseEventPos(next[queue])
	return end, err == nil, err
}

// lineOf returns ev as "hopper events --json" prints it.
func lineOf(ev hopper.Event) eventLine {
	l := eventLine{
		Pos: ev.Pos, Type: string(ev.Type), Queue: ev.Queue, ID: ev.ID, Kind: ev.Kind, At: ev.At.UTC(),
		Attempt: ev.Attempt, Worker: ev.Worker, Error: ev.Error, State: string(ev.State),
	}
	if p := ev.Progress; p != nil {
		if p.Percent >= 0 {
			l.Percent = &p.Percent
		}
		for _, line := range p.Log {
			l.LogLines = append(l.LogLines, line.Text)
		}
	}
	return l
}

// formatEvent returns ev as one line of text.
func formatEvent(ev hopper.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %-9s %-10s %s %s", ev.At.UTC().Format("15:04:05.000"), ev.Queue, ev.Type, ev.ID, ev.Kind)
	if ev.Attempt > 0 {
		fmt.Fprintf(&b, " attempt=%d", ev.Attempt)
	}
	if ev.State != "" {
		fmt.Fprintf(&b, " state=%s", ev.State)
	}
	if ev.Worker != "" {
		fmt.Fprintf(&b, " worker=%s", ev.Worker)
	}
	if p := ev.Progress; p != nil {
		if p.Percent >= 0 {
			fmt.Fprintf(&b, " progress=%.0f%%", p.Percent)
		}
		for _, l := range p.Log {
			fmt.Fprintf(&b, " log=%q", l.Text)
		}
	}
	if ev.Error != "" {
		fmt.Fprintf(&b, " error=%q", ev.Error)
	}
	return b.String()
}
