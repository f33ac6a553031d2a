package dashboard

import (
	"bytes"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"html/template"
	"net/http"
	"strconv"

	"github.com/hopperq/hopper"
	hstore "github.com/hopperq/hopper/store"
)

// What the workflow pages share: their paths, their errors, their template
// functions and the live fragments they refresh.

// taskStates and workflowStates are the states in the order pages list
// them. They are the store's lists, which nothing modifies.
var (
	taskStates     = hstore.TaskStates
	workflowStates = hstore.WorkflowStates
)

// taskStateDescriptions say what each task state means, for tooltips.
var taskStateDescriptions = map[hopper.TaskState]string{
	hopper.TaskWaiting:   "Held back until its dependencies end.",
	hopper.TaskEnqueued:  "Released into its queue: its job is waiting, running or retrying.",
	hopper.TaskSucceeded: "Its job was acked.",
	hopper.TaskFailed:    "Its job died (retries used up, a permanent failure) or was deleted before it succeeded.",
	hopper.TaskSkipped:   "A dependency ended unsatisfied: it never ran.",
	hopper.TaskCancelled: "The workflow was cancelled before it was released, or its job was cancelled.",
}

// workflowStateDescriptions say what each workflow state means.
var workflowStateDescriptions = map[hopper.WorkflowState]string{
	hopper.WorkflowRunning:   "Some tasks have not ended yet.",
	hopper.WorkflowSucceeded: "Every task ended, none failed.",
	hopper.WorkflowFailed:    "Every task ended; some failed without AllowFailure, or were skipped.",
	hopper.WorkflowCancelled: "Cancelled: its waiting tasks never ran.",
}

// workflowRoutes registers the workflow pages, actions and endpoints.
func (d *dash) workflowRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /workflows", d.serveWorkflows)
	mux.HandleFunc("GET /workflows/{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, d.workflowsPath(), http.StatusFound)
	})
	mux.HandleFunc("GET /workflows/{id}", d.serveWorkflow)
	mux.HandleFunc("GET /workflows/{id}/confirm", d.serveWorkflowConfirm)
	mux.HandleFunc("POST /workflows/{id}/cancel", d.action(d.postWorkflowCancel))
	mux.HandleFunc("POST /workflows/{id}/retry", d.action(d.postWorkflowRetry))
	mux.HandleFunc("GET /api/workflows", d.serveWorkflowsJSON)
	mux.HandleFunc("GET /api/workflows/{id}", d.serveWorkflowJSON)
}

// workflowsPath is the URL of the workflows list.
func (d *dash) workflowsPath() string { return d.path("workflows") }

// workflowPath is the URL of one workflow's page.
func (d *dash) workflowPath(id string) string { return d.path("workflows", id) }

// workflowFuncs are the template functions of the workflow pages.
func (d *dash) workflowFuncs() template.FuncMap {
	return template.FuncMap{
		"workflowPath": d.workflowPath,
		"taskDesc":     func(st hopper.TaskState) string { return taskStateDescriptions[st] },
		"wfDesc":       func(st hopper.WorkflowState) string { return workflowStateDescriptions[st] },
	}
}

// workflowsUnsupported is what a page says on a store without workflows.
func (d *dash) workflowsUnsupported() string {
	return fmt.Sprintf("The store %T does not run workflows (store.Workflows); memstore and redisstore do. Jobs, queues and the other pages work as usual.", d.ins.Store())
}

// workflowUserError turns the errors a workflow's ID and state cause into
// answers the user can act on: 404 for an ID that is malformed or unknown,
// 501 for a store without workflows, 409 for a change an ended workflow
// cannot take. Other errors are returned as they are (store failures).
func (d *dash) workflowUserError(err error) error {
	switch {
	case errors.Is(err, hopper.ErrNotSupported):
		return &userError{http.StatusNotImplemented, "Workflows are not supported by this store", d.workflowsUnsupported()}
	case errors.Is(err, hopper.ErrWorkflowNotFound):
		return &userError{http.StatusNotFound, "No such workflow", "No workflow has this ID. Ended workflows are removed after their retention (24 hours unless set)."}
	case errors.Is(err, hopper.ErrInvalidWorkflow):
		return &userError{http.StatusNotFound, "No such workflow", err.Error()}
	case errors.Is(err, hopper.ErrWorkflowEnded):
		return &userError{http.StatusConflict, "The workflow has ended", "It was cancelled: a cancelled workflow cannot be retried. Enqueue it again under a new ID instead."}
	}
	return err
}

// workflowError answers a failed read of a workflow page: the user errors
// with their status, anything else as a store failure.
func (d *dash) workflowError(w http.ResponseWriter, r *http.Request, what string, err error) {
	var ue *userError
	if errors.As(d.workflowUserError(err), &ue) {
		d.renderError(w, r, ue.status, ue.heading, ue.message)
		return
	}
	d.storeError(w, r, what, err)
}

// workflowJSONError is workflowError for the JSON endpoints.
func (d *dash) workflowJSONError(w http.ResponseWriter, r *http.Request, what string, err error) {
	var ue *userError
	if errors.As(d.workflowUserError(err), &ue) {
		writeJSONError(w, ue.status, ue.heading+": "+ue.message)
		return
	}
	d.jsonStoreError(w, r, what, err)
}

// fragmentURL is the URL a live page part refreshes from, "" when live
// updates are off. query is the page's own query, without fragment=1.
func (d *dash) fragmentURL(path, query string) string {
	if d.cfg.RefreshInterval <= 0 {
		return ""
	}
	if query != "" {
		return path + "?" + query + "&fragment=1"
	}
	return path + "?fragment=1"
}

// isFragment reports whether the request asks for a page's live part only.
func isFragment(r *http.Request) bool { return r.URL.Query().Get("fragment") == "1" }

// renderFragment answers with the template name of page alone, without
// the layout: the part of a page app.js swaps in when it changed. version
// is what the part shows (see versionHash), its ETag: a request whose
// If-None-Match holds it is answered 304 Not Modified with no body.
func (d *dash) renderFragment(w http.ResponseWriter, r *http.Request, page, name, version string, data any) {
	etag := `"` + version + `"`
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	var buf bytes.Buffer
	if err := d.pages[page].ExecuteTemplate(&buf, name, data); err != nil {
		d.cfg.Logger.Error("dashboard: rendering failed", "page", page, "fragment", name, "path", r.URL.Path, "error", err)
		http.Error(w, "500 internal error: rendering the page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// versionHash hashes what a live part shows, so app.js swaps the part in
// only when it changed.
type versionHash struct{ h hash.Hash64 }

func newVersion() *versionHash { return &versionHash{h: fnv.New64a()} }

func (v *versionHash) add(parts ...string) {
	for _, p := range parts {
		_, _ = v.h.Write([]byte(p))
		_, _ = v.h.Write([]byte{0})
	}
}

func (v *versionHash) String() string { return strconv.FormatUint(v.h.Sum64(), 36) }

// barSegment is one state's share of a stacked progress bar, in percent.
type barSegment struct {
	State hopper.TaskState
	X, W  float64
	Count int
	Title string
	Class string
}

// taskBar splits a bar 100 wide among the task states of counts.
func taskBar(counts map[hopper.TaskState]int) []barSegment {
	total := 0
	for _, st := range taskStates {
		total += counts[st]
	}
	if total == 0 {
		return nil
	}
	var out []barSegment
	x := 0.0
	for _, st := range taskStates {
		n := counts[st]
		if n == 0 {
			continue
		}
		w := float64(n) * 100 / float64(total)
		out = append(out, barSegment{State: st, X: x, W: w, Count: n, Title: plural(n, "task", "tasks") + " " + string(st), Class: "bar-" + string(st)})
		x += w
	}
	return out
}

// countTasks sums counts.
func countTasks(counts map[hopper.TaskState]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}
