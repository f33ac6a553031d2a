package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper"
)

// workflowSearch is the query of the workflows list: a state (empty for
// every state), a search and a page.
type workflowSearch struct {
	State hopper.WorkflowState
	Query string // an ID prefix or a part of the name
	Page  int    // from 1
}

// parseWorkflowSearch reads the workflows list's query. An unknown state
// is an error; an oversized search is cut.
func parseWorkflowSearch(q url.Values) (workflowSearch, error) {
	s := workflowSearch{Query: trimTo(strings.TrimSpace(q.Get("q")), maxSearchLen), Page: 1}
	if st := q.Get("state"); st != "" {
		s.State = hopper.WorkflowState(st)
		if !s.State.Valid() {
			return s, errors.New("workflow state " + strconv.Quote(truncate(st, 40)) + " is not one of running, succeeded, failed, cancelled")
		}
	}
	s.Page = pageParam(q, "page", maxPage)
	return s, nil
}

// query encodes the search for a link, on page.
func (s workflowSearch) query(page int) string {
	v := url.Values{}
	if s.State != "" {
		v.Set("state", string(s.State))
	}
	if s.Query != "" {
		v.Set("q", s.Query)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	return v.Encode()
}

// workflowRow is one workflow of the list.
type workflowRow struct {
	hopper.WorkflowRecord
	URL   string
	Tasks int // tasks in all
	Ended int // tasks that have ended
	Bar   []barSegment
}

// workflowTab is one state tab of the list.
type workflowTab struct {
	Label   string
	Class   string
	Count   int
	URL     string
	Current bool
	Title   string
}

// workflowsPage is the data of the workflows list page.
type workflowsPage struct {
	base
	Supported   bool
	Unsupported string // why not, when not
	Search      workflowSearch
	Tabs        []workflowTab
	Rows        []workflowRow
	From, To    int
	Total       int
	PrevURL     string
	NextURL     string
	// LastPage and LastURL are set when the page asked for lies past the
	// end of the list.
	LastPage int
	LastURL  string
	Fragment string // the live part's URL; "" when live updates are off
	Version  string
	Running  bool // a listed workflow is running: refresh at the full rate
}

// serveWorkflows lists workflows: tabs per state with counts, a search by
// ID prefix or name, pages. On a store without workflows it says so.
func (d *dash) serveWorkflows(w http.ResponseWriter, r *http.Request) {
	s, err := parseWorkflowSearch(r.URL.Query())
	if err != nil {
		d.renderError(w, r, http.StatusBadRequest, "No such workflow state", err.Error())
		return
	}
	p := workflowsPage{base: d.base(r, "Workflows", "workflows"), Search: s, Supported: d.ins.WorkflowsSupported()}
	if !p.Supported {
		p.Unsupported = d.workflowsUnsupported()
		d.render(w, r, http.StatusOK, "workflows", p)
		return
	}
	offset := (s.Page - 1) * d.cfg.PageSize
	page, err := d.ins.ListWorkflows(r.Context(), hopper.ListWorkflowsOpts{State: s.State, Search: s.Query, Offset: offset, Limit: d.cfg.PageSize})
	if err != nil {
		d.workflowError(w, r, "listing workflows", err)
		return
	}
	v := newVersion()
	all := workflowTab{Label: "all", Class: "tab-all", URL: withQuery(d.workflowsPath(), workflowSearch{Query: s.Query}.query(1)), Current: s.State == "", Title: "Every workflow"}
	for _, st := range workflowStates {
		n := page.Counts[st]
		all.Count += n
		p.Tabs = append(p.Tabs, workflowTab{
			Label: string(st), Class: "tab-wf-" + string(st), Count: n, Current: s.State == st, Title: workflowStateDescriptions[st],
			URL: withQuery(d.workflowsPath(), workflowSearch{State: st, Query: s.Query}.query(1)),
		})
		v.add(string(st), strconv.Itoa(n))
	}
	p.Tabs = append([]workflowTab{all}, p.Tabs...)
	for _, wf := range page.Workflows {
		row := workflowRow{WorkflowRecord: wf, URL: d.workflowPath(wf.ID), Tasks: countTasks(wf.Counts), Bar: taskBar(wf.Counts)}
		for st, n := range wf.Counts {
			if st.Ended() {
				row.Ended += n
			}
		}
		p.Rows = append(p.Rows, row)
		p.Running = p.Running || wf.State == hopper.WorkflowRunning
		v.add(wf.ID, string(wf.State), strconv.FormatBool(wf.Cancelled), strconv.Itoa(row.Tasks), strconv.Itoa(row.Ended), wf.EndedAt.Format(time.RFC3339Nano))
		for _, seg := range row.Bar {
			v.add(string(seg.State), strconv.Itoa(seg.Count))
		}
	}
	p.Total = page.Total
	v.add(strconv.Itoa(page.Total))
	p.Version = v.String()
	if len(p.Rows) > 0 {
		p.From, p.To = offset+1, offset+len(p.Rows)
	}
	if s.Page > 1 {
		p.PrevURL = withQuery(d.workflowsPath(), s.query(s.Page-1))
	}
	if offset+len(p.Rows) < page.Total {
		p.NextURL = withQuery(d.workflowsPath(), s.query(s.Page+1))
	}
	if len(p.Rows) == 0 && page.Total > 0 && s.Page > 1 {
		p.LastPage = (page.Total + d.cfg.PageSize - 1) / d.cfg.PageSize
		p.LastURL = withQuery(d.workflowsPath(), s.query(p.LastPage))
		p.PrevURL, p.NextURL = "", ""
	}
	p.Fragment = d.fragmentURL(d.workflowsPath(), s.query(s.Page))
	if isFragment(r) {
		d.renderFragment(w, r, "workflows", "workflows-live", p.Version, p)
		return
	}
	d.render(w, r, http.StatusOK, "workflows", p)
}

// withQuery returns path with query, if any.
func withQuery(path, query string) string {
	if query == "" {
		return path
	}
	return path + "?" + query
}
