package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// The live event feed: GET /api/events?queue=q[&job=id] streams a queue's
// events (hopper.Client.Subscribe's) as server-sent events, one message
// per event with its position as the message ID, so that a browser's
// EventSource that reconnects resumes where it stopped (Last-Event-ID, or
// &from=pos for a new EventSource). The "alive" messages carry the
// position too (past the other jobs' events on a job's feed), so a stream
// that saw no event yet resumes as well: a reconnect never starts over
// from now, and gets the events it missed (those the store kept: see
// store.EventReader; a "lost" message says when some are gone, and why:
// lostJSON). A position past the end of the stream (it started over after
// a Redis flush) is answered with such a message too, and the feed goes on
// from the stream's oldest event: a 400 would close a resuming browser's
// EventSource, which the page reopens from the same position. A
// position in a form no store gives out (store.ParseEventPos) is answered
// 400 before the stream opens.
// The queue page shows them as an activity feed and marks the rows of
// jobs that moved; the job page moves its progress bar, appends log lines
// and updates the job's state from them; both refresh their counts only
// when events come, instead of on a timer.

// eventsBlock bounds how long one read of the stream waits for events
// (the refresh interval, when shorter); the first read of a resumed
// stream does not wait. After every read that succeeded, with or without
// events, the stream sends an "alive" message: the page calls itself
// live only on those (and on events), never on the stream being open, so
// a store that stops answering (a frozen Redis) turns the page stale
// within a few refresh periods even though the connection stays open.
// The messages also keep proxies from closing the stream.
const eventsBlock = 15 * time.Second

// aliveJSON is the data of an "alive" message: when the store last
// answered.
type aliveJSON struct {
	At time.Time `json:"at"`
}

// eventJSON is one event as the feed sends it.
type eventJSON struct {
	Type     string        `json:"type"`
	Queue    string        `json:"queue"`
	ID       string        `json:"id"`
	Kind     string        `json:"kind"`
	At       time.Time     `json:"at"`
	Attempt  int           `json:"attempt"`
	Worker   string        `json:"worker,omitempty"`
	Error    string        `json:"error,omitempty"`
	State    string        `json:"state,omitempty"` // where the job is after the event, when the event says
	Progress *progressJSON `json:"progress,omitempty"`
	URL      string        `json:"url"` // the job's page
}

// progressJSON is a progress report: the data decoded (and redacted) to
// JSON text.
type progressJSON struct {
	Percent float64       `json:"percent"` // negative: none
	Data    string        `json:"data,omitempty"`
	Log     []logLineJSON `json:"log,omitempty"`
}

type logLineJSON struct {
	At   time.Time `json:"at"`
	Text string    `json:"text"`
}

// eventStates maps the types of events that say where the job went to
// that state.
var eventStates = map[hopper.EventType]hopper.JobState{
	hopper.EventPromoted:  hopper.StateReady,
	hopper.EventStarted:   hopper.StateUnack,
	hopper.EventSucceeded: hopper.StateDone, // or deleted, without retention
	hopper.EventRetried:   hopper.StateRetry,
	hopper.EventDead:      hopper.StateGarbage,
	hopper.EventCancelled: hopper.StateGarbage,
	hopper.EventSnoozed:   hopper.StatePending,
	hopper.EventReleased:  hopper.StateReady,
	hopper.EventRequeued:  hopper.StateReady,
}

// eventView prepares ev for the feed.
func (d *dash) eventView(ev hopper.Event) eventJSON {
	out := eventJSON{
		Type: string(ev.Type), Queue: ev.Queue, ID: ev.ID, Kind: ev.Kind, At: ev.At.UTC(),
		Attempt: ev.Attempt, Worker: ev.Worker, Error: ev.Error, URL: d.jobPath(ev.Queue, ev.ID),
	}
	if st, ok := eventStates[ev.Type]; ok {
		out.State = string(st)
	} else if ev.Type == hopper.EventEnqueued {
		out.State = string(ev.State)
	}
	if ev.Progress != nil {
		out.Progress = d.progressView(ev.Kind, ev.Progress)
	}
	return out
}

// progressView prepares a progress report for display.
func (d *dash) progressView(kind string, p *store.Progress) *progressJSON {
	out := &progressJSON{Percent: p.Percent}
	if len(p.Data) > 0 {
		switch dec := d.decodeFor(kind, p.Data); {
		case dec.TooLarge:
			out.Data = fmt.Sprintf("(too large to show: %d bytes)", dec.Size)
		case dec.Err == "":
			out.Data = dec.Compact
		default:
			out.Data = "(undecodable: " + dec.Err + ")"
		}
	}
	for _, l := range p.Log {
		out.Log = append(out.Log, logLineJSON{At: l.At.UTC(), Text: l.Text})
	}
	return out
}

// serveEvents streams a queue's events (see the top of this file).
func (d *dash) serveEvents(w http.ResponseWriter, r *http.Request) {
	if d.events == nil {
		writeJSONError(w, http.StatusNotImplemented, "this store keeps no event stream")
		return
	}
	q := r.URL.Query()
	queue := q.Get("queue")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		writeJSONError(w, http.StatusBadRequest, err.Error())
		return
	}
	job := q.Get("job")
	from := hopper.FromNow
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		from = id
	} else if f := q.Get("from"); f != "" {
		from = f
	}
	// A position this dashboard never gave out (hand-made) is refused
	// before the stream opens: a stream that failed on it would be opened
	// again and again. Checked by its form, with no read: a resumed stream
	// opens at once, even while the store does not answer.
	if from != hopper.FromNow {
		if _, err := store.ParseEventPos(from); err != nil {
			writeJSONError(w, http.StatusBadRequest, fmt.Sprintf("The event position %q is not one this dashboard gives out: resume from the ID of a message of the stream, or leave it out.", from))
			return
		}
	}
	ctx := r.Context()
	pos := map[string]string{queue: from}
	var first []hopper.Event // what the look below found
	if from == hopper.FromNow {
		// Where "now" is, before the stream is said to be open: the page
		// acts on that (a test too), and an event that came after must
		// be in the feed. When the store does not answer, neither does
		// the feed (503): an EventSource takes that as final, and the
		// page opens a new one later (app.js, setupEvents). Only a
		// stream's first request gets here: its alive messages give
		// every reconnect a position.
		evs, next, _, err := d.events.ReadEvents(ctx, pos, 200, 0)
		if errors.Is(err, hopper.ErrInvalidQueue) {
			writeJSONError(w, http.StatusBadRequest, err.Error())
			return
		}
		if err != nil {
			id, msg := d.internalError(r, "reading events", err)
			w.Header().Set(requestIDHeader, id)
			writeJSONError(w, http.StatusServiceUnavailable, msg+" See the dashboard's log under request_id "+id+".")
			return
		}
		first, pos = evs, next
	}
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives the server's WriteTimeout, where it can
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	// A first comment, so that the browser knows the stream is open (an
	// open stream is not a live one: see eventsBlock).
	fmt.Fprint(w, ": hopper events\nretry: 2000\n\n")
	if rc.Flush() != nil {
		return
	}
	block := eventsBlock
	if r := d.cfg.RefreshInterval; r > 0 && r < block {
		block = r
	}
	read := from == hopper.FromNow // the look above read the store
	wait := time.Duration(0)       // a resumed stream: what it missed, or alive, as soon as the store answers
	for {
		evs, next, lost, err := first, pos, []string(nil), error(nil)
		if !read {
			evs, next, lost, err = d.events.ReadEvents(ctx, pos, 200, wait)
		}
		read = false
		first = nil
		wait = block
		if err != nil {
			if ctx.Err() == nil {
				id, msg := d.internalError(r, "reading events", err)
				fmt.Fprintf(w, "event: failed\ndata: %s\n\n", mustJSON(map[string]string{"error": msg, "request_id": id}))
				_ = rc.Flush()
			}
			return
		}
		if len(lost) > 0 {
			fmt.Fprintf(w, "event: lost\ndata: %s\n\n", mustJSON(d.lostView(ctx, queue, pos[queue])))
		}
		for _, ev := range evs {
			if job != "" && ev.ID != job {
				continue
			}
			fmt.Fprintf(w, "id: %s\nevent: job\ndata: %s\n\n", ev.Pos, mustJSON(d.eventView(ev)))
		}
		// Where the browser resumes: past everything read, the events a
		// job's feed skipped too.
		fmt.Fprintf(w, "id: %s\nevent: alive\ndata: %s\n\n", next[queue], mustJSON(aliveJSON{At: d.cfg.Now().UTC()}))
		if rc.Flush() != nil {
			return
		}
		pos = next
	}
}

// lostJSON is the data of a "lost" message: why events were missed, for
// a program (Reason) and for people (Message).
type lostJSON struct {
	// Reason is "started_over" when the position read from is of an
	// earlier stream of the queue (store.EventPos's generation: a Redis
	// flush, the stream's key deleted or evicted, a memstore process
	// restarted), "past_end" when it was past the end of the stream (it
	// started over before generations, or the position was made by
	// hand), "behind" otherwise (the stream no longer had the events
	// after it).
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// lostView says why a read from pos of queue's stream missed events. It
// reads where the stream ends: events are lost seldom.
func (d *dash) lostView(ctx context.Context, queue, pos string) lostJSON {
	from, err := store.ParseEventPos(pos)
	if err == nil && !from.Start {
		_, next, _, err := d.events.ReadEvents(ctx, map[string]string{queue: hopper.FromNow}, 1, 0)
		end, perr := store.ParseEventPos(next[queue])
		if err == nil && perr == nil && from.OtherGen(end) {
			return lostJSON{Reason: "started_over", Message: fmt.Sprintf("The position %s is of an earlier stream of the queue: the stream started over since (Redis flushed, the stream's key deleted or evicted, or the process of an in-memory store restarted). The feed goes on from the stream's oldest event.", pos)}
		}
		if err == nil && perr == nil && from.Entry > end.Entry {
			last := "it ends at " + end.String()
			if end.Entry == 0 {
				last = "it is empty"
			}
			return lostJSON{Reason: "past_end", Message: fmt.Sprintf("The position %s is past the end of the queue's stream (%s): the stream started over (Redis flushed, the queue's data deleted), or the position was made by hand. The feed goes on from the stream's oldest event.", pos, last)}
		}
	}
	return lostJSON{Reason: "behind", Message: "Some events were missed: the stream no longer had them (trimmed to the queue's EventsMaxLen, or not written while nobody read the queue's events). The feed goes on with the events it has."}
}

// mustJSON encodes v, which always encodes. encoding/json escapes <, >
// and &, and a newline never appears in its output, so the text is one
// inert data line.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`{"error":"encoding failed"}`)
	}
	return b
}

// eventsURL is the feed of queue (and job, when not "") for a page; "" when
// the store keeps no events.
func (d *dash) eventsURL(queue, job string) string {
	if d.events == nil {
		return ""
	}
	u := d.path("api", "events") + "?queue=" + queue // validated: nothing to escape
	if job != "" {
		u += "&job=" + url.QueryEscape(job)
	}
	return u
}
