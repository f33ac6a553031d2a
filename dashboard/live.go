package dashboard

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/hopperq/hopper/store"
)

// statsJSON is the body of GET /api/stats: what the pages' live updates
// redraw.
type statsJSON struct {
	Time   time.Time   `json:"time"`
	Queues []queueJSON `json:"queues"`
	Totals totalsJSON  `json:"totals"`
	Outbox *outboxView `json:"outbox,omitempty"` // with Config.Outbox
	// Unavailable names the queues the store could not read for now,
	// left out of Queues and Totals.
	Unavailable []string `json:"unavailable,omitempty"`
}

// queueJSON is one queue's live numbers.
type queueJSON struct {
	Name      string           `json:"name"`
	Paused    bool             `json:"paused"`
	Counts    map[string]int64 `json:"counts"`
	LatencyMS int64            `json:"latency_ms"`
	Latency   string           `json:"latency"` // as the pages write it
	Chart     *chart           `json:"chart"`   // sparkline of the last hour
}

// totalsJSON sums the queues listed.
type totalsJSON struct {
	Counts     map[string]int64 `json:"counts"`
	Queues     int              `json:"queues"`
	Paused     int              `json:"paused"`
	MaxLatency string           `json:"max_latency"`
	Chart      *chart           `json:"chart"` // throughput of the last hour
}

// countsJSON maps each state's name to its count.
func countsJSON(c store.StateCounts) map[string]int64 {
	m := make(map[string]int64, len(store.States))
	for _, st := range store.States {
		m[string(st)] = c.Get(st)
	}
	return m
}

// serveStatsJSON answers the live updates: every queue's counts, pause
// state, latency and throughput, or one queue's with ?queue=.
func (d *dash) serveStatsJSON(w http.ResponseWriter, r *http.Request) {
	var names []string
	if q := r.URL.Query().Get("queue"); q != "" {
		if err := d.checkQueue(r.Context(), q); err != nil {
			writeJSONError(w, http.StatusBadRequest, err.Error())
			return
		}
		names = []string{q}
	} else {
		var err error
		if names, err = d.ins.ListQueues(r.Context()); err != nil {
			d.jsonStoreError(w, r, "listing queues", err)
			return
		}
	}
	ov, err := d.loadOverview(r.Context(), names, rangeOf(r.URL.Query().Get("range")))
	if err != nil {
		d.jsonStoreError(w, r, "reading queue stats", err)
		return
	}
	out := statsJSON{
		Time:   d.cfg.Now().UTC(),
		Queues: make([]queueJSON, 0, len(ov.Queues)),
		Totals: totalsJSON{
			Counts:     countsJSON(ov.Totals),
			Queues:     len(ov.Queues),
			Paused:     ov.PausedCount,
			MaxLatency: formatLatency(ov.MaxLatency),
			Chart:      ov.Chart,
		},
		Outbox:      ov.Outbox,
		Unavailable: ov.Unavailable,
	}
	for _, q := range ov.Queues {
		if q.Unavailable {
			continue
		}
		out.Queues = append(out.Queues, queueJSON{
			Name:      q.Name,
			Paused:    q.Paused,
			Counts:    countsJSON(q.Counts),
			LatencyMS: q.Latency.Milliseconds(),
			Latency:   formatLatency(q.Latency),
			Chart:     q.Chart,
		})
	}
	writeJSON(w, http.StatusOK, out)
}

// writeJSON answers with v as JSON. encoding/json escapes <, > and &, so
// the body is inert even if something sniffed it as HTML.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeJSONError(w, http.StatusInternalServerError, "encoding the answer: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeJSONError answers {"error": msg} with status.
func writeJSONError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}
