package dashboard

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// Limits of the workflow page's task table.
const (
	taskPageSize = 1000 // tasks per page of the table
	maxDepsShown = 8    // dependencies listed per task; more are counted
)

// taskLink is a task as another task's row or the job page lists it.
type taskLink struct {
	Name  string
	State hopper.TaskState
	URL   string // its job page, or its row in the workflow's table
}

// taskRow is one row of the task table.
type taskRow struct {
	*store.TaskRecord
	Anchor   string // the row's id
	JobURL   string // the task's job page; "" for a task never enqueued
	Deps     []taskLink
	MoreDeps int
	Depth    int
}

// legendItem is one task state of the legend: its count, and the table
// filtered to it.
type legendItem struct {
	State   hopper.TaskState
	Count   int
	URL     string
	Current bool
}

// workflowPage is the data of the workflow page.
type workflowPage struct {
	base
	WF       *hopper.WorkflowRecord
	Heading  string // the workflow's name, or its ID
	Tasks    int
	Ended    int
	Bar      []barSegment
	Legend   []legendItem
	AllURL   string // the table, unfiltered
	Graph    *graphView
	Filter   hopper.TaskState // the table's, "" for none
	Rows     []taskRow
	TaskPage int
	From, To int
	Listed   int // rows of the table across its pages
	PrevURL  string
	NextURL  string
	Running  bool // refresh at the full rate
	// CanCancel and CanRetry offer the actions; Retryable is how many
	// tasks failed or were cancelled.
	CanCancel, CanRetry bool
	Retryable           int
	Duration            time.Duration // from creation to its end, or to now
	Fragment            string
	Version             string
	// Unserved are the queues where tasks wait (enqueued) that no live
	// worker serves: the workflow cannot go on until one does.
	Unserved []string
}

// taskQuery is the task table's part of the workflow page's query.
type taskQuery struct {
	State hopper.TaskState
	Page  int
}

// parseTaskQuery reads the table's filter and page; an unknown state
// shows every task.
func parseTaskQuery(q url.Values) taskQuery {
	tq := taskQuery{Page: 1}
	if st := hopper.TaskState(q.Get("task_state")); slices.Contains(taskStates, st) {
		tq.State = st
	}
	tq.Page = pageParam(q, "task_page", maxPage)
	return tq
}

func (tq taskQuery) encode() string {
	v := url.Values{}
	if tq.State != "" {
		v.Set("task_state", string(tq.State))
	}
	if tq.Page > 1 {
		v.Set("task_page", strconv.Itoa(tq.Page))
	}
	return v.Encode()
}

// taskLayout is a workflow's tasks by name, their depths, and their order
// in the task table: by depth (the graph's columns), then as added.
type taskLayout struct {
	index  map[string]int
	depth  []int
	cols   int
	order  []int // task indexes in table order
	pageOf []int // the page of the unfiltered table each task is on
}

func newTaskLayout(tasks []store.TaskRecord) *taskLayout {
	l := &taskLayout{index: make(map[string]int, len(tasks))}
	for i, t := range tasks {
		l.index[t.Name] = i
	}
	l.depth, l.cols = taskDepths(tasks, l.index)
	l.order = make([]int, len(tasks))
	for i := range l.order {
		l.order[i] = i
	}
	slices.SortStableFunc(l.order, func(a, b int) int { return cmp.Compare(l.depth[a], l.depth[b]) })
	l.pageOf = make([]int, len(tasks))
	for pos, i := range l.order {
		l.pageOf[i] = pos/taskPageSize + 1
	}
	return l
}

// taskRowURL is the URL of task name's row in the table of workflow id.
func (d *dash) taskRowURL(id string, l *taskLayout, name string) string {
	u := d.workflowPath(id)
	if i, ok := l.index[name]; ok && l.pageOf[i] > 1 {
		u += "?" + taskQuery{Page: l.pageOf[i]}.encode()
	}
	return u + "#task-" + name
}

// taskJobURL is the job page of t, or "" for a task that was never
// enqueued (waiting, skipped, or cancelled before it was released; a
// cancelled task's job, if any, is found through its row).
func (d *dash) taskJobURL(t *store.TaskRecord) string {
	switch t.State {
	case hopper.TaskEnqueued, hopper.TaskSucceeded, hopper.TaskFailed:
		return d.jobPath(t.Queue, t.JobID)
	}
	return ""
}

// loadWorkflow reads the workflow of the route's {id}, answering 404 for
// a malformed or unknown ID and 501 on a store without workflows.
func (d *dash) loadWorkflow(w http.ResponseWriter, r *http.Request) (*hopper.WorkflowRecord, bool) {
	rec, err := d.ins.GetWorkflow(r.Context(), r.PathValue("id"))
	if err != nil {
		d.workflowError(w, r, "reading the workflow", err)
		return nil, false
	}
	return rec, true
}

// serveWorkflow renders one workflow: its state and counts, its tasks
// drawn as a graph, the table of its tasks, and the actions on it. With
// fragment=1 it answers the live part alone.
func (d *dash) serveWorkflow(w http.ResponseWriter, r *http.Request) {
	rec, ok := d.loadWorkflow(w, r)
	if !ok {
		return
	}
	tq := parseTaskQuery(r.URL.Query())
	p := d.workflowView(r, rec, tq)
	if isFragment(r) {
		d.renderFragment(w, r, "workflow", "workflow-live", p.Version, p)
		return
	}
	d.render(w, r, http.StatusOK, "workflow", p)
}

// workflowView prepares rec for its page, with the table as tq asks.
func (d *dash) workflowView(r *http.Request, rec *hopper.WorkflowRecord, tq taskQuery) workflowPage {
	heading := rec.Name
	if heading == "" {
		heading = rec.ID
	}
	p := workflowPage{
		base:    d.base(r, "Workflow "+heading, "workflows"),
		WF:      rec,
		Heading: heading,
		Tasks:   len(rec.Tasks),
		Bar:     taskBar(rec.Counts),
		Filter:  tq.State,
		Running: rec.State == hopper.WorkflowRunning,
	}
	self := d.workflowPath(rec.ID)
	end := rec.EndedAt
	if end.IsZero() {
		end = d.cfg.Now()
	}
	p.Duration = end.Sub(rec.CreatedAt)
	p.Retryable = rec.Counts[hopper.TaskFailed] + rec.Counts[hopper.TaskCancelled]
	p.CanCancel = !d.cfg.ReadOnly && p.Running && !rec.Cancelled
	p.CanRetry = !d.cfg.ReadOnly && !rec.Cancelled && p.Retryable > 0

	l := newTaskLayout(rec.Tasks)
	index, depth, order := l.index, l.depth, l.order
	rowURL := func(name string) string { return d.taskRowURL(rec.ID, l, name) }
	taskHref := func(t *store.TaskRecord) string {
		if u := d.taskJobURL(t); u != "" {
			return u
		}
		return rowURL(t.Name)
	}
	p.Graph = layoutGraph(rec, depth, l.cols, taskHref, self+"#tasks")

	// The legend filters the table.
	p.AllURL = self + "#tasks"
	for _, st := range taskStates {
		p.Legend = append(p.Legend, legendItem{State: st, Count: rec.Counts[st], Current: st == tq.State,
			URL: self + "?" + taskQuery{State: st}.encode() + "#tasks"})
		if st.Ended() {
			p.Ended += rec.Counts[st]
		}
	}

	// The table: the page asked for, of the tasks in the state asked for.
	listed := order
	if tq.State != "" {
		listed = nil
		for _, i := range order {
			if rec.Tasks[i].State == tq.State {
				listed = append(listed, i)
			}
		}
	}
	p.Listed = len(listed)
	pages := max(1, (len(listed)+taskPageSize-1)/taskPageSize)
	p.TaskPage = min(tq.Page, pages)
	from := (p.TaskPage - 1) * taskPageSize
	shown := listed[from:min(from+taskPageSize, len(listed))]
	for _, i := range shown {
		t := &rec.Tasks[i]
		row := taskRow{TaskRecord: t, Anchor: "task-" + t.Name, JobURL: d.taskJobURL(t), Depth: depth[i]}
		for k, name := range t.Deps {
			if k == maxDepsShown {
				row.MoreDeps = len(t.Deps) - k
				break
			}
			link := taskLink{Name: name}
			if j, ok := index[name]; ok {
				link.State, link.URL = rec.Tasks[j].State, rowURL(name)
			}
			row.Deps = append(row.Deps, link)
		}
		p.Rows = append(p.Rows, row)
	}
	if len(shown) > 0 {
		p.From, p.To = from+1, from+len(shown)
	}
	if p.TaskPage > 1 {
		p.PrevURL = withQuery(self, taskQuery{State: tq.State, Page: p.TaskPage - 1}.encode()) + "#tasks"
	}
	if p.TaskPage < pages {
		p.NextURL = withQuery(self, taskQuery{State: tq.State, Page: p.TaskPage + 1}.encode()) + "#tasks"
	}

	if p.Running {
		var waiting []string
		for i := range rec.Tasks {
			if rec.Tasks[i].State == hopper.TaskEnqueued {
				waiting = append(waiting, rec.Tasks[i].Queue)
			}
		}
		p.Unserved = d.unservedQueues(r.Context(), waiting)
	}

	tq.Page = p.TaskPage
	p.Fragment = d.fragmentURL(self, tq.encode())
	v := newVersion()
	v.add(string(rec.State), strconv.FormatBool(rec.Cancelled), rec.EndedAt.Format(time.RFC3339Nano), tq.encode())
	for _, t := range rec.Tasks {
		v.add(t.Name, string(t.State))
	}
	v.add(p.Unserved...)
	p.Version = v.String()
	return p
}
