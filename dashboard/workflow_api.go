package dashboard

import (
	"net/http"
	"time"

	"github.com/hopperq/hopper"
)

// workflowJSON is a workflow as the JSON endpoints give it.
type workflowJSON struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	State       string         `json:"state"`
	Cancelled   bool           `json:"cancelled,omitempty"`
	CreatedAt   *time.Time     `json:"created_at,omitempty"`
	EndedAt     *time.Time     `json:"ended_at,omitempty"`
	RetentionMS int64          `json:"retention_ms"`
	TaskCount   int            `json:"task_count"`
	Counts      map[string]int `json:"counts"` // tasks per task state
	URL         string         `json:"url"`    // the workflow's page
	Tasks       []taskJSON     `json:"tasks,omitempty"`
}

// taskJSON is one task of a workflow.
type taskJSON struct {
	Name         string   `json:"name"`
	Queue        string   `json:"queue"`
	Kind         string   `json:"kind"`
	JobID        string   `json:"job_id"`
	State        string   `json:"state"`
	Deps         []string `json:"deps"`
	AllowFailure bool     `json:"allow_failure,omitempty"`
	AnyOutcome   bool     `json:"any_outcome,omitempty"`
	AddedBy      string   `json:"added_by,omitempty"`
	JobURL       string   `json:"job_url,omitempty"` // the job's page, for a task that was enqueued
}

// workflowsJSON is a page of workflows.
type workflowsJSON struct {
	Total     int            `json:"total"`
	Counts    map[string]int `json:"counts"` // workflows per state, store-wide
	Workflows []workflowJSON `json:"workflows"`
}

// toWorkflowJSON converts a workflow record; its tasks when it has them.
func (d *dash) toWorkflowJSON(rec *hopper.WorkflowRecord) workflowJSON {
	out := workflowJSON{
		ID: rec.ID, Name: rec.Name, State: string(rec.State), Cancelled: rec.Cancelled,
		RetentionMS: rec.Retention.Milliseconds(), TaskCount: countTasks(rec.Counts),
		CreatedAt: timePtr(rec.CreatedAt), EndedAt: timePtr(rec.EndedAt),
		Counts: make(map[string]int, len(taskStates)), URL: d.workflowPath(rec.ID),
	}
	for _, st := range taskStates {
		out.Counts[string(st)] = rec.Counts[st]
	}
	if rec.Tasks != nil {
		out.Tasks = make([]taskJSON, 0, len(rec.Tasks))
	}
	for i := range rec.Tasks {
		t := &rec.Tasks[i]
		deps := t.Deps
		if deps == nil {
			deps = []string{}
		}
		out.Tasks = append(out.Tasks, taskJSON{
			Name: t.Name, Queue: t.Queue, Kind: t.Kind, JobID: t.JobID, State: string(t.State), Deps: deps,
			AllowFailure: t.AllowFailure, AnyOutcome: t.AnyOutcome, AddedBy: t.AddedBy, JobURL: d.taskJobURL(t),
		})
	}
	return out
}

// serveWorkflowsJSON answers a page of workflows as JSON, with the same
// query as the workflows page (state, q, page).
func (d *dash) serveWorkflowsJSON(w http.ResponseWriter, r *http.Request) {
	s, err := parseWorkflowSearch(r.URL.Query())
	if err != nil {
		writeJSONError(w, http.StatusBadRequest, err.Error())
		return
	}
	page, err := d.ins.ListWorkflows(r.Context(), hopper.ListWorkflowsOpts{State: s.State, Search: s.Query, Offset: (s.Page - 1) * d.cfg.PageSize, Limit: d.cfg.PageSize})
	if err != nil {
		d.workflowJSONError(w, r, "listing workflows", err)
		return
	}
	out := workflowsJSON{Total: page.Total, Counts: make(map[string]int, len(workflowStates)), Workflows: make([]workflowJSON, 0, len(page.Workflows))}
	for _, st := range workflowStates {
		out.Counts[string(st)] = page.Counts[st]
	}
	for i := range page.Workflows {
		out.Workflows = append(out.Workflows, d.toWorkflowJSON(&page.Workflows[i]))
	}
	writeJSON(w, http.StatusOK, out)
}

// serveWorkflowJSON answers one workflow with its tasks as JSON.
func (d *dash) serveWorkflowJSON(w http.ResponseWriter, r *http.Request) {
	rec, err := d.ins.GetWorkflow(r.Context(), r.PathValue("id"))
	if err != nil {
		d.workflowJSONError(w, r, "reading the workflow", err)
		return
	}
	writeJSON(w, http.StatusOK, d.toWorkflowJSON(rec))
}
