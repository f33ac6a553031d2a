package dashboard

import (
	"errors"
	"net/http"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/specview"
	"github.com/hopperq/hopper/store"
)

// jobJSON is a job as the JSON endpoints give it: args, result and
// metadata decoded and redacted as on the pages.
type jobJSON struct {
	ID          string               `json:"id"`
	Queue       string               `json:"queue"`
	Kind        string               `json:"kind"`
	State       string               `json:"state"`
	Args        any                  `json:"args"`
	ArgsError   string               `json:"args_error,omitempty"`
	Result      any                  `json:"result,omitempty"`
	ResultError string               `json:"result_error,omitempty"`
	Meta        map[string]string    `json:"meta,omitempty"`
	TraceID     string               `json:"trace_id,omitempty"`
	TraceURL    string               `json:"trace_url,omitempty"`
	Attempt     int                  `json:"attempt"`
	MaxRetries  int                  `json:"max_retries"`
	TimeoutMS   int64                `json:"timeout_ms,omitempty"`
	UniqueKey   string               `json:"unique_key,omitempty"`
	Priority    int                  `json:"priority"`
	Group       string               `json:"group,omitempty"`
	Cancelled   bool                 `json:"cancelled,omitempty"`
	EnqueuedAt  *time.Time           `json:"enqueued_at,omitempty"`
	RunAt       *time.Time           `json:"run_at,omitempty"`
	AttemptedAt *time.Time           `json:"attempted_at,omitempty"`
	FinishedAt  *time.Time           `json:"finished_at,omitempty"`
	Deadline    *time.Time           `json:"deadline,omitempty"`
	Errors      []specview.JSONError `json:"errors,omitempty"`
	// Progress is the job's last progress report (percent, negative for
	// none; its data as JSON text, redacted; the log lines it kept); absent
	// when it reported none.
	Progress *progressJSON `json:"progress,omitempty"`
	// Options are every option of the job that is set (store.JobSpec)
	// but Meta, which is above, redacted: by snake_case name, durations
	// in whole milliseconds under name_ms. An option added to JobSpec
	// appears here with no edit.
	Options map[string]any `json:"options,omitempty"`
}

// jobsJSON is a page of jobs: Total counts the state. A search (kind,
// args or prefix) also says which stretch of the state it examined, from
// From to Next, and where to go on (from=Next) until Done. With ByKind it
// walked the queue's kind index (hopper.QueueConfig.KindIndex): Total and
// the positions count the queue's jobs of the kind, and the next call
// adds walk=kind.
type jobsJSON struct {
	Total  int       `json:"total"`
	Jobs   []jobJSON `json:"jobs"`
	Search *struct {
		From   int  `json:"from"`
		Next   int  `json:"next"`
		Done   bool `json:"done"`
		ByKind bool `json:"by_kind,omitempty"`
	} `json:"search,omitempty"`
}

// timePtr returns &t, or nil for the zero time.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// toJSON converts a prepared job view.
func toJSON(v jobView) jobJSON {
	j := v.Job
	out := jobJSON{
		ID: j.ID, Queue: j.Queue, Kind: j.Kind, State: string(j.State),
		Args: v.Args.Value, ArgsError: v.Args.Err,
		Result: v.Result.Value, ResultError: v.Result.Err,
		TraceID: v.TraceID, TraceURL: v.TraceLink, Attempt: j.Attempt, MaxRetries: j.MaxRetries,
		TimeoutMS: j.Timeout.Milliseconds(), UniqueKey: j.UniqueKey, Priority: j.Priority, Group: j.Group, Cancelled: j.Cancelled,
		EnqueuedAt: timePtr(j.EnqueuedAt), RunAt: timePtr(j.RunAt), AttemptedAt: timePtr(j.AttemptedAt),
		FinishedAt: timePtr(j.FinishedAt), Deadline: timePtr(j.Deadline),
	}
	if len(v.Meta) > 0 {
		out.Meta = make(map[string]string, len(v.Meta))
		for _, m := range v.Meta {
			out.Meta[m.Key] = m.Value
		}
	}
	out.Errors = specview.JSONErrors(j.Errors)
	out.Options = specview.JSONOptions(&j.JobSpec)
	out.Progress = v.Progress
	return out
}

// serveJobsJSON answers a page of one state of one queue as JSON, with the
// same query as the jobs page (kind, args, order, page).
func (d *dash) serveJobsJSON(w http.ResponseWriter, r *http.Request) {
	queue := r.PathValue("queue")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		writeJSONError(w, http.StatusNotFound, err.Error())
		return
	}
	st, err := store.ParseState(r.PathValue("state"))
	if err != nil {
		writeJSONError(w, http.StatusNotFound, err.Error())
		return
	}
	s := parseSearch(r.URL.Query(), st)
	var out jobsJSON
	var jobs []*hopper.JobRecord
	if s.Filtered() {
		sp, err := d.search(r.Context(), queue, st, &s)
		if err != nil {
			d.jsonStoreError(w, r, "searching jobs", err)
			return
		}
		jobs, out.Total = sp.Jobs, sp.Total
		out.Search = &struct {
			From   int  `json:"from"`
			Next   int  `json:"next"`
			Done   bool `json:"done"`
			ByKind bool `json:"by_kind,omitempty"`
		}{sp.From, sp.Next, sp.Done(), sp.ByKind}
	} else {
		page, err := d.ins.ListJobs(r.Context(), d.listRequest(queue, st, s))
		if err != nil {
			d.jsonStoreError(w, r, "listing jobs", err)
			return
		}
		jobs, out.Total = page.Jobs, page.Total
	}
	out.Jobs = make([]jobJSON, 0, len(jobs))
	for _, j := range jobs {
		out.Jobs = append(out.Jobs, toJSON(d.view(j)))
	}
	writeJSON(w, http.StatusOK, out)
}

// serveJobJSON answers one job as JSON.
func (d *dash) serveJobJSON(w http.ResponseWriter, r *http.Request) {
	queue := r.PathValue("queue")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		writeJSONError(w, http.StatusNotFound, err.Error())
		return
	}
	job, err := d.getJob(r.Context(), queue, r.PathValue("id"))
	switch {
	case errors.Is(err, hopper.ErrJobNotFound):
		writeJSONError(w, http.StatusNotFound, "no such job")
		return
	case err != nil:
		d.jsonStoreError(w, r, "reading the job", err)
		return
	}
	writeJSON(w, http.StatusOK, toJSON(d.view(job)))
}
