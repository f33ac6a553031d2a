package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hopperq/hopper"
)

// The Retries and Dead pages list one state of every queue at once — the
// retry jobs by when each runs next, the garbage jobs newest death first —
// with search and bulk requeue and delete (Inspector.ListJobsAllQueues).
// They read each queue's first page+1 pages of the state, so they reach
// the first hopper.MaxAllQueuesDepth jobs; a queue's own page goes on.

// failureView is what distinguishes the two pages.
type failureView struct {
	state  hopper.JobState
	slug   string // the path: "retries" or "dead"
	title  string
	newest bool // the listing's order
	order  string
}

var (
	retriesView = failureView{hopper.StateRetry, "retries", "Retries", false, "soonest retry first"}
	deadView    = failureView{hopper.StateGarbage, "dead", "Dead", true, "newest death first"}
)

// failureSearch is the search of a failures page: a kind, an ID's start
// and a text in the args, all optional, and a page from 1.
type failureSearch struct {
	Kind, ID, Args string
	Page           int
}

// parseFailureSearch reads a failures page's search from q (a query or a
// form).
func parseFailureSearch(q url.Values) failureSearch {
	field := func(k string) string { return strings.TrimSpace(q.Get(k)) }
	s := failureSearch{Kind: trimTo(field("kind"), 200), ID: trimTo(field("id"), 200), Args: trimTo(field("args"), 200), Page: 1}
	s.Page = pageParam(q, "page", maxPage)
	return s
}

// Filtered reports whether the search narrows the list.
func (s failureSearch) Filtered() bool { return s.Kind != "" || s.ID != "" || s.Args != "" }

// query encodes s for a link to its page p.
func (s failureSearch) query(p int) string {
	v := url.Values{}
	for k, val := range map[string]string{"kind": s.Kind, "id": s.ID, "args": s.Args} {
		if val != "" {
			v.Set(k, val)
		}
	}
	if p > 1 {
		v.Set("page", strconv.Itoa(p))
	}
	return v.Encode()
}

// opts returns the listing s asks for, from offset for limit jobs.
func (d *dash) failureOpts(fv failureView, s failureSearch, offset, limit int) hopper.AllQueuesOpts {
	o := hopper.AllQueuesOpts{State: fv.state, Offset: offset, Limit: limit, Newest: fv.newest, Kind: s.Kind}
	if s.ID != "" || s.Args != "" {
		prefix, args := s.ID, d.argsMatch(s.Args)
		o.Match = func(j *hopper.JobRecord) bool {
			if prefix != "" && !strings.HasPrefix(j.ID, prefix) {
				return false
			}
			return s.Args == "" || args(j)
		}
	}
	return o
}

// failuresPage is the data of the Retries and Dead pages.
type failuresPage struct {
	base
	State     hopper.JobState
	Slug      string
	Order     string
	Search    failureSearch
	Jobs      []jobRow
	Total     int
	Queues    []hopper.QueueCount
	Truncated bool
	From, To  int
	PrevURL   string
	NextURL   string
	Capped    bool // the next page lies past hopper.MaxAllQueuesDepth
	// LastPage and LastURL are set when the page asked for lies past the
	// end of the list, or past the pages it reaches (PastDepth).
	LastPage   int
	LastURL    string
	PastDepth  bool
	Depth      int
	Back       string // this page's query, for the forms
	CanRequeue bool
	CanDelete  bool
	TimeLabel  string
}

// serveFailures renders the Retries or Dead page.
func (d *dash) serveFailures(fv failureView) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := parseFailureSearch(r.URL.Query())
		p := failuresPage{
			base: d.base(r, fv.title, fv.slug), State: fv.state, Slug: fv.slug, Order: fv.order,
			Search: s, Back: s.query(s.Page), Depth: hopper.MaxAllQueuesDepth,
			CanRequeue: !d.cfg.ReadOnly, CanDelete: !d.cfg.ReadOnly,
		}
		p.TimeLabel, _ = listTime(fv.state, &hopper.JobRecord{})
		size := d.cfg.PageSize
		// The last page this list reaches; a page past it reads page 1,
		// for the totals, and shows none of its jobs.
		maxPage := max(1, hopper.MaxAllQueuesDepth/size)
		offset := 0
		if s.Page <= maxPage {
			offset = (s.Page - 1) * size
		}
		page, err := d.ins.ListJobsAllQueues(r.Context(), d.failureOpts(fv, s, offset, size))
		if err != nil {
			d.storeError(w, r, "listing the "+string(fv.state)+" jobs of every queue", err)
			return
		}
		p.Total, p.Queues, p.Truncated = page.Total, page.Queues, page.Truncated
		here := func(n int) string {
			if q := s.query(n); q != "" {
				return d.path(fv.slug) + "?" + q
			}
			return d.path(fv.slug)
		}
		if s.Page > maxPage || (len(page.Jobs) == 0 && s.Page > 1) {
			// Past the end, or past what the list reaches: say so and
			// link the last page, as a queue's own pages do.
			if p.Total > 0 {
				pages := (p.Total + size - 1) / size
				p.LastPage = min(pages, maxPage)
				p.PastDepth = pages > maxPage
				p.LastURL = here(p.LastPage)
			}
			d.render(w, r, http.StatusOK, "failures", p)
			return
		}
		for _, j := range page.Jobs {
			p.Jobs = append(p.Jobs, d.jobRow(fv.state, j))
		}
		if len(p.Jobs) > 0 {
			p.From, p.To = offset+1, offset+len(p.Jobs)
		}
		if s.Page > 1 {
			p.PrevURL = here(s.Page - 1)
		}
		if p.To < p.Total {
			if s.Page < maxPage {
				p.NextURL = here(s.Page + 1)
			} else {
				p.Capped = true
			}
		}
		d.render(w, r, http.StatusOK, "failures", p)
	}
}

// failuresJSON is the JSON of /api/retries and /api/dead.
type failuresJSON struct {
	Total  int                 `json:"total"`
	Queues []hopper.QueueCount `json:"queues"`
	Jobs   []jobJSON           `json:"jobs"`
}

// serveFailuresJSON answers the Retries or Dead listing as JSON, with the
// page's search fields (kind, id, args, page).
func (d *dash) serveFailuresJSON(fv failureView) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := parseFailureSearch(r.URL.Query())
		offset := (s.Page - 1) * d.cfg.PageSize
		if offset+d.cfg.PageSize > hopper.MaxAllQueuesDepth {
			writeJSONError(w, http.StatusBadRequest, "page "+strconv.Itoa(s.Page)+" lies past the first "+strconv.Itoa(hopper.MaxAllQueuesDepth)+" jobs: list each queue's own state for the rest")
			return
		}
		page, err := d.ins.ListJobsAllQueues(r.Context(), d.failureOpts(fv, s, offset, d.cfg.PageSize))
		if err != nil {
			d.jsonStoreError(w, r, "listing the "+string(fv.state)+" jobs of every queue", err)
			return
		}
		out := failuresJSON{Total: page.Total, Queues: page.Queues, Jobs: make([]jobJSON, 0, len(page.Jobs))}
		if out.Queues == nil {
			out.Queues = []hopper.QueueCount{}
		}
		for _, j := range page.Jobs {
			out.Jobs = append(out.Jobs, toJSON(d.view(j)))
		}
		writeJSON(w, http.StatusOK, out)
	}
}
