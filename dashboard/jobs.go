package dashboard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// maxSearchLen bounds the text of a search field.
const maxSearchLen = 200

// maxPage bounds the page a list's query may ask for, so that its offset
// stays far from overflowing.
const maxPage = 1_000_000

// jobSearch is the query of a jobs list: filters, order and page.
type jobSearch struct {
	ID     string // exact job ID, else a prefix of IDs
	Kind   string // exact kind
	Args   string // text in the redacted args, any case (ArgsContain)
	Newest bool
	Page   int // from 1
	// From is where a search goes on in the state (hopper.SearchPage.Next);
	// 0 from the start.
	From int
	// Prefix is ID as a prefix, once no job has it as its whole ID.
	Prefix string
	// ByKind says From is a position in the queue's kind index
	// (hopper.SearchPage.ByKind).
	ByKind bool
	// Restarted: the kind index From was in is gone; the search started
	// again (dash.search).
	Restarted bool
	// Origin is where the series of search pages that led here started
	// (the links that go on carry it): at the end, the page says whether
	// the whole state was searched or only from there on. It is From when
	// the query does not say.
	Origin int
}

// defaultNewest is the order a state lists in when the query names none:
// the latest failures and completions first, the next to run first
// elsewhere.
func defaultNewest(st hopper.JobState) bool {
	return st == hopper.StateGarbage || st == hopper.StateDone
}

// parseSearch reads a jobs list query; unknown and oversized values are
// dropped.
func parseSearch(q url.Values, st hopper.JobState) jobSearch {
	field := func(k string) string {
		return trimTo(strings.TrimSpace(q.Get(k)), maxSearchLen)
	}
	s := jobSearch{ID: field("id"), Kind: field("kind"), Args: field("args"), Newest: defaultNewest(st), Page: 1}
	switch q.Get("order") {
	case "newest":
		s.Newest = true
	case "oldest":
		s.Newest = false
	}
	s.Page = pageParam(q, "page", maxPage)
	if f, ok := boundedParam(q, "from", maxPage*1000); ok && f > 0 {
		s.From = f
		s.ByKind = q.Get("walk") == "kind" && s.Kind != ""
	}
	s.Origin = s.From
	if o, err := strconv.Atoi(q.Get("origin")); err == nil && o >= 0 && o < s.From {
		s.Origin = o
	}
	s.Prefix = field("prefix")
	return s
}

// Order names the order for the form: newest or oldest.
func (s jobSearch) Order() string {
	if s.Newest {
		return "newest"
	}
	return "oldest"
}

// Filtered reports whether the list is narrowed by kind, args or an ID
// prefix: a search, which goes through the state a stretch at a time
// (hopper.Inspector.SearchJobs).
func (s jobSearch) Filtered() bool { return s.Kind != "" || s.Args != "" || s.Prefix != "" }

// query encodes the search for a link, on page.
func (s jobSearch) query(page int) string {
	v := url.Values{}
	if s.Kind != "" {
		v.Set("kind", s.Kind)
	}
	if s.Args != "" {
		v.Set("args", s.Args)
	}
	if s.Prefix != "" {
		v.Set("prefix", s.Prefix)
	}
	v.Set("order", s.Order())
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	return v.Encode()
}

// queryFrom encodes the search for a link that goes on from position from.
func (s jobSearch) queryFrom(from int) string {
	q := s.query(1)
	if from > 0 {
		q += "&from=" + strconv.Itoa(from)
		if s.ByKind {
			q += "&walk=kind"
		}
		q += "&origin=" + strconv.Itoa(min(s.Origin, from))
	}
	return q
}

// jobRow is one job of a list.
type jobRow struct {
	*hopper.JobRecord
	Decoded     decoded
	Time        time.Time
	MaxAttempts int
	LastError   string
}

// jobsPage is the data of the jobs list page.
type jobsPage struct {
	base
	Queue      string
	State      hopper.JobState
	Paused     bool
	Counts     store.StateCounts
	Search     jobSearch
	Jobs       []jobRow
	TimeLabel  string
	ShowErrors bool
	From, To   int
	Total      int
	PrevURL    string
	NextURL    string
	Back       string // the list's query, to come back to after an action
	Notice     string
	// LastPage and LastURL are set when the page asked for lies past the
	// last one of a list that has jobs.
	LastPage int
	LastURL  string
	// A search (Search.Filtered) goes through the state a stretch per
	// request: it examined jobs SearchFirst to SearchTo of Total; MoreURL
	// goes on from there (empty at the end), RestartURL searches from the
	// start again; AutoContinue has the page go on by itself, as it found
	// nothing yet (unless stopped).
	SearchFirst, SearchTo int
	// SearchOrigin is the first job (from 1) of the series of search pages
	// that led here: at the end (no MoreURL), 1 says the whole state was
	// searched.
	SearchOrigin int
	// SearchSkipped is how many jobs before SearchOrigin were not searched.
	SearchSkipped int
	// ByKind: the search walked the queue's kind index, and Total counts
	// the jobs of the kind in every state.
	ByKind              bool
	MoreURL, RestartURL string
	StopURL             string
	AutoContinue        bool
	CanRequeue          bool // actions offered on this page
	CanDelete           bool
	CanCancel           bool
	Limits              *limitsView
	Serving             []servingWorker // live workers whose queues include this one
	History             *queueHistory   // the queue's throughput, depth and latency over a range
	// Unknown: no store lists the queue and no live worker serves it
	// (unknown_queue.go). Not read for a live refresh.
	Unknown bool
	// PartitionOf is the partitioned queue this page's queue is a
	// partition of, whose settings it shares (empty for any other queue).
	PartitionOf string
}

// regionsOnly reports that r is a live refresh (app.js): only the page's
// live regions are used from the answer.
func regionsOnly(r *http.Request) bool { return r.Header.Get("X-Hopper-Regions") == "1" }

// queuePanels reads what a queue's page shows around its list: its groups,
// its history and the workers serving it. On failure it returns what it
// was reading.
func (d *dash) queuePanels(r *http.Request, queue string, p *jobsPage) (string, error) {
	ctx := r.Context()
	if groups, err := d.ins.ListGroups(ctx, queue, maxGroupsShown+1); err == nil {
		p.Limits.More = len(groups) > maxGroupsShown
		p.Limits.Groups = groups[:min(len(groups), maxGroupsShown)]
	} else if !errors.Is(err, hopper.ErrNotSupported) {
		return "reading the queue's groups", err
	}
	h, err := d.loadHistory(ctx, queue, rangeOf(r.URL.Query().Get("range")))
	if err != nil {
		return "reading the queue's history", err
	}
	p.History = h
	if ws, err := d.ins.ListWorkers(ctx); err == nil {
		p.Serving = servingWorkers(ws, queue)
	}
	return "", nil
}

// servingWorkers returns the workers of ws whose queues include queue,
// or for a partition ("images~2") its partitioned queue, which the
// workers of all its partitions name.
func servingWorkers(ws []hopper.WorkerInfo, queue string) []servingWorker {
	base, _, part := store.SplitPartition(queue)
	var out []servingWorker
	for _, w := range ws {
		weight, ok := w.Queues[queue]
		if !ok && part {
			weight, ok = w.Queues[base]
		}
		if !ok {
			continue
		}
		sw := servingWorker{ID: w.ID, Weight: weight, Slots: w.Concurrency}
		for _, j := range w.Running {
			if j.Queue == queue {
				sw.Running++
			}
		}
		out = append(out, sw)
	}
	return out
}

// queueHistory is a queue's charts over one range: jobs finished, jobs
// ready and the latency of the oldest (the largest sample of each bar).
type queueHistory struct {
	Range                      chartRange
	Throughput, Depth, Latency *chart
	MaxLatency                 string
	Sampled                    bool // some bar has a depth sample
	// Kinds are how long the queue's handlers ran over the last day, per
	// kind (nil when the store keeps no durations).
	Kinds []hopper.KindDuration
}

// Ranges are the history's windows, for the range links.
func (queueHistory) Ranges() []chartRange { return chartRanges }

// loadHistory reads queue's history over rng.
func (d *dash) loadHistory(ctx context.Context, queue string, rng chartRange) (*queueHistory, error) {
	now := d.cfg.Now()
	points, err := d.ins.GetThroughput(ctx, queue, rangeStart(rng, now))
	if err != nil {
		return nil, err
	}
	h := &queueHistory{Range: rng}
	h.Throughput = newChart(seriesIn(rng, points, now), bigChartW, 100)
	h.Depth = newSampleChart(samplesIn(rng, points, now, func(p hopper.ThroughputPoint) int64 { return p.Ready }), bigChartW, 60,
		func(v int64) string { return formatCount(v) + " ready" })
	h.Latency = newSampleChart(samplesIn(rng, points, now, func(p hopper.ThroughputPoint) int64 { return p.Latency.Milliseconds() }), bigChartW, 60,
		func(v int64) string { return "oldest waited " + formatLatency(time.Duration(v)*time.Millisecond) })
	h.MaxLatency = formatLatency(time.Duration(h.Latency.Max) * time.Millisecond)
	for _, pt := range points {
		h.Sampled = h.Sampled || pt.Sampled
	}
	h.Kinds, err = d.ins.GetKindDurations(ctx, queue, now.Add(-24*time.Hour))
	if err != nil && !errors.Is(err, hopper.ErrNotSupported) {
		return nil, err
	}
	return h, nil
}

// servingWorker is a live worker that serves the page's queue: its weight
// for it and how many of its jobs it runs now.
type servingWorker struct {
	ID      string
	Weight  int
	Running int
	Slots   int
}

// stateParam returns the {state} of the route, answering 404 when it is not
// a state.
func (d *dash) stateParam(w http.ResponseWriter, r *http.Request) (hopper.JobState, bool) {
	st, err := store.ParseState(r.PathValue("state"))
	if err != nil {
		if s := r.PathValue("state"); s == "pause" || s == "resume" || s == "limits" {
			w.Header().Set("Allow", http.MethodPost)
			d.renderError(w, r, http.StatusMethodNotAllowed, "Method not allowed", "Pausing, resuming and setting limits take a POST request: use the buttons on the page.")
			return "", false
		}
		d.renderError(w, r, http.StatusNotFound, "No such state", err.Error())
		return "", false
	}
	return st, true
}

// listRequest builds the store query of an unfiltered page.
func (d *dash) listRequest(queue string, st hopper.JobState, s jobSearch) hopper.ListJobsOpts {
	return hopper.ListJobsOpts{
		Queue:  queue,
		State:  st,
		Offset: (s.Page - 1) * d.cfg.PageSize,
		Limit:  d.cfg.PageSize,
		Newest: s.Newest,
	}
}

// searchRequest builds the search of a filtered list, from s.From.
func (d *dash) searchRequest(queue string, st hopper.JobState, s jobSearch) hopper.SearchJobsOpts {
	req := hopper.SearchJobsOpts{
		Queue:    queue,
		State:    st,
		Newest:   s.Newest,
		Kind:     s.Kind,
		IDPrefix: s.Prefix,
		From:     s.From,
		ByKind:   s.ByKind,
		Limit:    d.cfg.PageSize,
	}
	if s.Args != "" {
		if builtinRedact(d.cfg.Redact) {
			req.Text = ArgsSearchHint(s.Args)
		}
		req.Match = d.argsMatch(s.Args)
	}
	return req
}

// search runs the search s asks for. When s goes on through a kind index
// that is gone (turned off meanwhile), it starts again from the first job
// and sets s.Restarted.
func (d *dash) search(ctx context.Context, queue string, st hopper.JobState, s *jobSearch) (hopper.SearchPage, error) {
	sp, err := d.ins.SearchJobs(ctx, d.searchRequest(queue, st, *s))
	if errors.Is(err, hopper.ErrNoKindIndex) && s.ByKind {
		s.From, s.ByKind, s.Restarted, s.Origin = 0, false, true, 0
		sp, err = d.ins.SearchJobs(ctx, d.searchRequest(queue, st, *s))
	}
	return sp, err
}

// serveJobs renders one state of one queue: a page of jobs, searchable,
// with checkboxes for the bulk actions.
func (d *dash) serveJobs(w http.ResponseWriter, r *http.Request) {
	queue, ok := d.queueParam(w, r)
	if !ok {
		return
	}
	st, ok := d.stateParam(w, r)
	if !ok {
		return
	}
	ctx := r.Context()
	s := parseSearch(r.URL.Query(), st)
	p := jobsPage{
		base:   d.base(r, queue+" · "+string(st), "queues"),
		Queue:  queue,
		State:  st,
		Search: s,
		Back:   s.query(s.Page),
	}
	p.Live = d.liveURL(queue)
	p.Events = d.eventsURL(queue, "")
	p.CanRequeue = !d.cfg.ReadOnly && canRequeue(st)
	p.CanDelete = !d.cfg.ReadOnly && canDelete(st)
	p.CanCancel = !d.cfg.ReadOnly && canCancel(st)
	p.ShowErrors = st == hopper.StateRetry || st == hopper.StateGarbage
	p.TimeLabel, _ = listTime(st, &hopper.JobRecord{})

	stats, err := d.ins.GetQueueStats(ctx, queue)
	if err != nil {
		d.storeError(w, r, "reading queue stats", err)
		return
	}
	p.Paused, p.Counts = stats.Config.Paused, stats.Counts
	p.PartitionOf = d.partitionOf(ctx, queue)
	p.Limits = newLimitsView(stats, d.cfg.Now())
	p.Limits.setBad(formStateOf(r))
	// A live refresh swaps the list only (regionsOnly): the panels around
	// it are not read for it.
	if !regionsOnly(r) {
		if what, err := d.queuePanels(r, queue, &p); err != nil {
			d.storeError(w, r, what, err)
			return
		}
		listed, err := d.queueListed(ctx, queue)
		if err != nil {
			d.storeError(w, r, "listing queues", err)
			return
		}
		p.Unknown = !listed && len(p.Serving) == 0
	}

	if s.ID != "" {
		job, err := d.ins.GetJob(ctx, queue, s.ID)
		switch {
		case err == nil:
			http.Redirect(w, r, d.jobPath(queue, job.ID), http.StatusSeeOther)
			return
		case errors.Is(err, hopper.ErrJobNotFound):
			// Not a whole ID: the jobs whose IDs start with it.
			s.Prefix, s.ID = s.ID, ""
			p.Search = s
			p.Notice = "No job of " + queue + " has the ID " + strconv.Quote(s.Prefix) + ": these are the jobs in " + string(st) + " whose IDs start with it."
		default:
			d.storeError(w, r, "looking up the job", err)
			return
		}
	}
	base := d.queuePath(queue, st) + "?"
	if s.Filtered() {
		sp, err := d.search(ctx, queue, st, &s)
		if err != nil {
			d.storeError(w, r, "searching jobs", err)
			return
		}
		if s.Restarted {
			p.Notice = "The kind index of " + queue + " is off now: the search started again from the first job."
		}
		for _, j := range sp.Jobs {
			p.Jobs = append(p.Jobs, d.jobRow(st, j))
		}
		p.Total, p.SearchFirst, p.SearchTo = sp.Total, min(sp.From+1, sp.Total), min(sp.Next, sp.Total)
		p.ByKind = sp.ByKind
		p.SearchOrigin = min(s.Origin+1, p.SearchFirst)
		p.SearchSkipped = p.SearchOrigin - 1
		if !sp.Done() {
			stop := base + s.queryFrom(s.From) + "&stop=1"
			s.ByKind = sp.ByKind
			p.MoreURL = base + s.queryFrom(sp.Next)
			p.StopURL = stop
			p.AutoContinue = len(sp.Jobs) == 0 && r.URL.Query().Get("stop") == ""
		}
		if s.From > 0 {
			p.RestartURL = base + s.queryFrom(0)
		}
		p.Back = s.queryFrom(s.From)
		d.render(w, r, http.StatusOK, "jobs", p)
		return
	}

	page, err := d.ins.ListJobs(ctx, d.listRequest(queue, st, s))
	if err != nil {
		d.storeError(w, r, "listing jobs", err)
		return
	}
	for _, j := range page.Jobs {
		p.Jobs = append(p.Jobs, d.jobRow(st, j))
	}
	p.Total = page.Total
	offset := (s.Page - 1) * d.cfg.PageSize
	if len(p.Jobs) > 0 {
		p.From, p.To = offset+1, offset+len(p.Jobs)
	}
	if s.Page > 1 {
		p.PrevURL = base + s.query(s.Page-1)
	}
	if offset+len(p.Jobs) < page.Total {
		p.NextURL = base + s.query(s.Page+1)
	}
	if len(p.Jobs) == 0 && page.Total > 0 && s.Page > 1 {
		p.LastPage = (page.Total + d.cfg.PageSize - 1) / d.cfg.PageSize
		p.LastURL = base + s.query(p.LastPage)
		p.PrevURL = ""
	}
	d.render(w, r, http.StatusOK, "jobs", p)
}

// jobRow prepares a job for a list of state st.
func (d *dash) jobRow(st hopper.JobState, j *hopper.JobRecord) jobRow {
	row := jobRow{JobRecord: j, Decoded: d.decodeFor(j.Kind, j.Args), MaxAttempts: j.MaxRetries + 1}
	_, row.Time = listTime(st, j)
	if n := len(j.Errors); n > 0 {
		row.LastError = j.Errors[n-1].Error
	}
	return row
}

// serveFind looks a job up by ID in every queue and redirects to it, or
// lists the queues when several hold a job with that ID; an ID no queue
// holds is taken as the start of one (find.go).
func (d *dash) serveFind(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimSpace(r.URL.Query().Get("id"))
	if id == "" {
		http.Redirect(w, r, d.home(), http.StatusSeeOther)
		return
	}
	queues, err := d.ins.ListQueues(r.Context())
	if err != nil {
		d.storeError(w, r, "listing queues", err)
		return
	}
	// Job IDs are per queue: several queues may hold one.
	var found []findMatch
	for _, q := range queues {
		job, err := d.ins.GetJob(r.Context(), q, id)
		switch {
		case err == nil:
			found = append(found, findMatch{Queue: q, State: job.State, Job: job, URL: d.jobPath(q, job.ID)})
		case !errors.Is(err, hopper.ErrJobNotFound):
			d.storeError(w, r, "looking up the job", err)
			return
		}
	}
	switch len(found) {
	case 0:
		d.serveFindPrefix(w, r, queues, id)
	case 1:
		http.Redirect(w, r, found[0].URL, http.StatusSeeOther)
	default:
		d.render(w, r, http.StatusOK, "find", findPage{
			base:   d.base(r, "Jobs with ID "+truncate(id, maxSearchLen), ""),
			Prefix: id, Jobs: found, Exact: true,
		})
	}
}
