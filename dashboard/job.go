package dashboard

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/hopperq/hopper"
	hstore "github.com/hopperq/hopper/store"
)

// jobView is one job prepared for display: args, result and metadata
// decoded and redacted.
type jobView struct {
	Job         *hopper.JobRecord
	Args        decoded
	Result      decoded
	Meta        []metaEntry
	TraceID     string // from the W3C traceparent in Meta; "" when absent
	TraceLink   string // Config.TraceURL for TraceID; "" without either
	SpanID      string
	Errors      []hstore.AttemptError // newest first
	MaxAttempts int
	Progress    *progressJSON // nil when the job reported none
	// Spec are the job's options to show (job_spec.go).
	Spec []specRow
}

// metaEntry is one metadata key and its (redacted) value.
type metaEntry struct{ Key, Value string }

// jobPage is the data of the job page.
type jobPage struct {
	base
	jobView
	CanRequeue bool
	CanDelete  bool
	CanCancel  bool
	// CanReschedule offers the reschedule form (a waiting job that no
	// workflow owns).
	CanReschedule bool
	// EditArgs is the JSON the args form starts from; empty when the page
	// does not offer to edit the args (see editableArgs).
	EditArgs string
	Workflow *jobWorkflowView // nil unless the job is a workflow task
	Bad      formState        // a form sent back with a bad value (form_error.go)
	// BadElsewhere is Bad's message when the page does not show its form
	// (the job left the waiting states since its page was loaded; a
	// grouped job has no priority form): shown at the top instead.
	BadElsewhere string
	Timeline     timelineView // its attempts
}

// view prepares job for display.
func (d *dash) view(job *hopper.JobRecord) jobView {
	v := jobView{
		Job:         job,
		Args:        d.decodeFor(job.Kind, job.Args),
		MaxAttempts: job.MaxRetries + 1,
		Errors:      slices.Clone(job.Errors),
		Spec:        specRows(job),
	}
	v.Result = decoded{Empty: true}
	if len(job.Result) > 0 {
		v.Result = d.decodeFor(job.Kind, job.Result)
	}
	slices.Reverse(v.Errors)
	v.Meta = d.redactMeta(job.Kind, job.Meta)
	v.TraceID, v.SpanID = parseTraceparent(job.Meta["traceparent"])
	if v.TraceID != "" && d.cfg.TraceURL != "" {
		v.TraceLink = strings.ReplaceAll(d.cfg.TraceURL, "{trace_id}", v.TraceID)
	}
	if job.Progress != nil {
		v.Progress = d.progressView(job.Kind, job.Progress)
	}
	return v
}

// redactMeta passes metadata through the redaction hook as a map[string]any
// and returns it sorted by key.
func (d *dash) redactMeta(kind string, meta map[string]string) []metaEntry {
	if len(meta) == 0 {
		return nil
	}
	m := make(map[string]any, len(meta))
	for k, v := range meta {
		m[k] = v
	}
	var out []metaEntry
	switch red := d.redact(kind, m).(type) {
	case map[string]any:
		for k, v := range red {
			s, ok := v.(string)
			if !ok {
				s = jsonText(v, false)
			}
			out = append(out, metaEntry{k, s})
		}
	default:
		out = append(out, metaEntry{"(metadata)", jsonText(red, false)})
	}
	slices.SortFunc(out, func(a, b metaEntry) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// parseTraceparent returns the trace and parent span IDs of a W3C
// traceparent header ("00-<32 hex>-<16 hex>-<2 hex>"), or "" for anything
// else.
func parseTraceparent(tp string) (traceID, spanID string) {
	parts := strings.Split(strings.TrimSpace(tp), "-")
	if len(parts) < 4 || len(parts[0]) != 2 || len(parts[1]) != 32 || len(parts[2]) != 16 {
		return "", ""
	}
	if !isHex(parts[1]) || !isHex(parts[2]) || strings.Trim(parts[1], "0") == "" {
		return "", ""
	}
	return parts[1], parts[2]
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// loadJob reads the job of the route's {queue} and {id}, answering 404 when
// there is none.
func (d *dash) loadJob(w http.ResponseWriter, r *http.Request) (*hopper.JobRecord, bool) {
	queue, ok := d.queueParam(w, r)
	if !ok {
		return nil, false
	}
	job, err := d.getJob(r.Context(), queue, r.PathValue("id"))
	switch {
	case errors.Is(err, hopper.ErrJobNotFound):
		msg := "Queue " + queue + " has no job with this ID. Jobs that succeeded without a retention, or were collected, are gone."
		if wf, task, ok := hstore.ParseTaskJobID(r.PathValue("id")); ok {
			// A workflow's task: its job may be gone while the workflow
			// still tells how the task ended.
			d.renderErrorLink(w, r, http.StatusNotFound, "No such job", msg+" This was the job of task "+task+" of workflow "+wf+".",
				&pageLink{URL: d.workflowPath(wf), Text: "Open the workflow"})
			return nil, false
		}
		d.renderError(w, r, http.StatusNotFound, "No such job", msg)
		return nil, false
	case err != nil:
		d.storeError(w, r, "reading the job", err)
		return nil, false
	}
	return job, true
}

// getJob is Store.GetJob, with an empty ID reported as not found.
func (d *dash) getJob(ctx context.Context, queue, id string) (*hopper.JobRecord, error) {
	if id == "" {
		return nil, hopper.ErrJobNotFound
	}
	return d.ins.GetJob(ctx, queue, id)
}

// serveJob renders one job: where it is, its args and result as JSON, its
// times and limits, every recorded error with its stack, and its metadata.
func (d *dash) serveJob(w http.ResponseWriter, r *http.Request) {
	job, ok := d.loadJob(w, r)
	if !ok {
		return
	}
	p := jobPage{
		base:          d.base(r, job.Kind+" "+job.ID, "queues"),
		jobView:       d.view(job),
		CanRequeue:    !d.cfg.ReadOnly && canRequeue(job.State),
		CanDelete:     !d.cfg.ReadOnly && canDelete(job.State),
		CanCancel:     !d.cfg.ReadOnly && canCancel(job.State) && !job.Cancelled,
		CanReschedule: !d.cfg.ReadOnly && canReschedule(job),
	}
	if p.CanReschedule {
		p.EditArgs, _ = d.editableArgs(job.Kind, job.Args)
	}
	p.Events = d.eventsURL(job.Queue, job.ID)
	p.Bad = formStateOf(r)
	if shown := map[string]bool{"reschedule": p.CanReschedule, "priority": p.CanReschedule && job.Group == "", "args": p.EditArgs != ""}; p.Bad.Form != "" && !shown[p.Bad.Form] {
		p.BadElsewhere = p.Bad.Msg
	}
	p.Workflow = d.jobWorkflow(r.Context(), job)
	p.Timeline = jobTimeline(job, d.cfg.Now(), d.attemptWorker(r.Context(), job))
	d.render(w, r, http.StatusOK, "job", p)
}
