package dashboard

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

//go:embed templates/*.html
var templateFS embed.FS

// pageNames are the templates in templates/, one per page, each defining
// "content" for the layout.
var pageNames = []string{"queues", "jobs", "job", "confirm", "workers", "schedules", "error", "workflows", "workflow", "wfconfirm", "errors", "ask", "find", "failures"}

// pages maps a page name to its template set (layout, partials, page).
type pages map[string]*template.Template

// base is what the layout needs, embedded in every page's data.
type base struct {
	Site  *site
	Title string // the page's own title, before the site's
	Nav   string // the active top-level section: queues, workers, schedules
	Live  string // URL the page's live counts come from; "" for none
	// Events is the URL of the page's live event feed (see events.go);
	// "" for none. With it, the counts refresh when events come.
	Events string
	Flash  *flash
	Now    time.Time
}

// site is the part of the layout that is the same for every request.
type site struct {
	Title     string
	Home      string
	Prefix    string
	ReadOnly  bool
	RefreshMS int64
	Theme     string // the chosen colour theme: light, dark or "" for the system's (theme.go)
	Here      string // this page's URL, for the theme form to come back to
	Version   string // hopper.Version, shown in the footer
}

// flash is the outcome of an action, shown once after its redirect.
type flash struct {
	Kind string // ok or warn
	Text string
}

// chartView is what the "chart" template draws: a chart, the key its
// live updates find it by (a queue name, "" for the total) and a CSS class.
type chartView struct {
	*chart
	Key, Class string
}

// Label is the chart's accessible name, by what its class says it shows.
func (v chartView) Label() string {
	switch {
	case strings.Contains(v.Class, "chart-depth"):
		return "Jobs ready over time, the most in each interval; hover a bar for its number"
	case strings.Contains(v.Class, "chart-latency"):
		return "How long the oldest ready job had waited, over time; hover a bar for its value"
	}
	if v.chart == nil {
		return "Jobs finished over time, done under failed; hover a bar for its numbers"
	}
	return fmt.Sprintf("Jobs finished over time: %s done and %s failed, the busiest interval %s; done under failed, hover a bar for its numbers",
		formatCount(v.Done), formatCount(v.Failed), formatCount(v.Max))
}

// pauseView is what the pause templates need: the queue, whether it is
// paused and the state page to return to after the action ("" for the
// overview).
type pauseView struct {
	Queue  string
	Paused bool
	Return string
	// Unknown: no store lists the queue; pausing asks first.
	Unknown bool
}

// mustParsePages parses the templates; they are embedded, so an error is
// a bug in this package.
func (d *dash) mustParsePages() pages {
	// pauseView's last argument, when given, says the queue is unknown.
	pauseViewOf := func(queue string, paused bool, ret string, unknown ...bool) pauseView {
		return pauseView{queue, paused, ret, len(unknown) > 0 && unknown[0]}
	}
	funcs := template.FuncMap{
		"num": func(n any) string {
			switch n := n.(type) {
			case int:
				return formatCount(int64(n))
			case int64:
				return formatCount(n)
			}
			return "?"
		},
		"dur":      formatDuration,
		"exactDur": shortDuration,
		"stack":    newStackView,
		"latency":  formatLatency,
		"since":    func(t time.Time) string { return formatDuration(d.cfg.Now().Sub(t)) },
		"plural": func(n int, one, many string) string {
			if n == 1 {
				return "1 " + one
			}
			return formatCount(int64(n)) + " " + many
		},
		"percent": func(n, of int) int {
			if of <= 0 {
				return 0
			}
			return min(100, n*100/of)
		},
		"ago":   func(t time.Time) string { return ago(d.cfg.Now(), t) },
		"abs":   absTime,
		"clock": func(t time.Time) string { return t.UTC().Format("15:04:05.000") },
		"iso": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.UTC().Format(time.RFC3339Nano)
		},
		"darkMedia":      darkMedia,
		"chartView":      func(key, class string, c *chart) chartView { return chartView{Key: key, Class: class, chart: c} },
		"pauseView":      pauseViewOf,
		"truncate":       truncate,
		"states":         func() []hopper.JobState { return store.States },
		"rowSpan":        func() int { return len(store.States) + 2 }, // a queue row's states, latency and chart
		"stateDesc":      func(st hopper.JobState) string { return stateDescriptions[st] },
		"count":          func(c store.StateCounts, st hopper.JobState) int64 { return c.Get(st) },
		"path":           d.path,
		"queuePath":      d.queuePath,
		"specForm":       specForm,
		"jobPath":        d.jobPath,
		"static":         staticPath(d.cfg.Prefix),
		"canRequeue":     canRequeue,
		"canDelete":      canDelete,
		"canCancel":      canCancel,
		"retryLabel":     retryLabel,
		"errorConfirm":   errorConfirm,
		"timelineHeight": func(rows int) int { return rows*16 + 4 },
		"half":           func(n int) int { return n / 2 },
		"timelineY":      func(i int) int { return i * 16 },
		"scanned":        func(m map[hopper.JobState]int, st hopper.JobState) int { return m[st] },
		"priorities": func() []int {
			out := make([]int, 0, hopper.MaxPriority-hopper.MinPriority+1)
			for p := hopper.MaxPriority; p >= hopper.MinPriority; p-- {
				out = append(out, p)
			}
			return out
		},
	}
	for name, fn := range d.workflowFuncs() {
		funcs[name] = fn
	}
	out := make(pages, len(pageNames))
	for _, name := range pageNames {
		t := template.New(name).Funcs(funcs)
		out[name] = template.Must(t.ParseFS(templateFS, "templates/layout.html", "templates/partials.html", "templates/"+name+".html"))
	}
	return out
}

// base returns the layout data for a page.
func (d *dash) base(r *http.Request, title, nav string) base {
	refresh := int64(0)
	if d.cfg.RefreshInterval > 0 {
		refresh = d.cfg.RefreshInterval.Milliseconds()
	}
	return base{
		Site: &site{
			Title:     d.cfg.Title,
			Home:      d.home(),
			Prefix:    d.cfg.Prefix,
			ReadOnly:  d.cfg.ReadOnly,
			RefreshMS: refresh,
			Theme:     themeFrom(r),
			Here:      d.here(r),
			Version:   hopper.Version,
		},
		Title: title,
		Nav:   nav,
		Flash: d.flashFrom(r),
		Now:   d.cfg.Now(),
	}
}

// liveURL returns the live endpoint for a page showing queue ("" for all
// queues), or "" when live updates are off.
func (d *dash) liveURL(queue string) string {
	if d.cfg.RefreshInterval <= 0 {
		return ""
	}
	u := d.path("api", "stats")
	if queue != "" {
		u += "?queue=" + queue // queue names are validated: nothing to escape
	}
	return u
}

// render executes page with data into a buffer and writes it with status;
// a template error becomes a plain 500.
func (d *dash) render(w http.ResponseWriter, r *http.Request, status int, page string, data any) {
	var buf bytes.Buffer
	if err := d.pages[page].ExecuteTemplate(&buf, "layout", data); err != nil {
		id := newRequestID()
		d.cfg.Logger.Error("dashboard: rendering failed", "request_id", id, "page", page, "path", r.URL.Path, "error", err)
		w.Header().Set(requestIDHeader, id)
		http.Error(w, "500 internal error: rendering the page failed; the dashboard's log has it under request ID "+id, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// errorPage is the data of the error page.
type errorPage struct {
	base
	Status  int
	Heading string
	Message string
	Link    *pageLink // a page that helps, besides the overview; nil for none
	// RequestID ties an internal error to its record in the log; "" for
	// the user's own errors.
	RequestID string
}

// pageLink is a link an error page offers.
type pageLink struct{ URL, Text string }

// renderError answers with the error page.
func (d *dash) renderError(w http.ResponseWriter, r *http.Request, status int, heading, message string) {
	d.renderErrorLink(w, r, status, heading, message, nil)
}

// renderErrorLink answers with the error page, offering link.
func (d *dash) renderErrorLink(w http.ResponseWriter, r *http.Request, status int, heading, message string, link *pageLink) {
	d.render(w, r, status, "error", errorPage{
		base:    d.base(r, heading, ""),
		Status:  status,
		Heading: heading,
		Message: message,
		Link:    link,
	})
}

// flashText is the text of a known outcome what of n jobs; nil for an
// unknown one, so no link can put arbitrary text on a page.
func flashText(what string, n int) *flash {
	jobs := "jobs"
	if n == 1 {
		jobs = "job"
	}
	count := formatCount(int64(n)) + " " + jobs
	switch what {
	case "requeued":
		if n == 0 {
			return &flash{"warn", "Nothing was requeued: the jobs had already left that state."}
		}
		if n == 1 {
			return &flash{"ok", "Requeued 1 job: it is ready to run now."}
		}
		return &flash{"ok", "Requeued " + count + ": they are ready to run now."}
	case "deleted":
		if n == 0 {
			return &flash{"warn", "Nothing was deleted: the jobs had already left that state."}
		}
		return &flash{"ok", "Deleted " + count + "."}
	case "noselection":
		return &flash{"warn", "Select at least one job first."}
	case "cancelled":
		switch {
		case n == 0:
			return &flash{"warn", "Nothing was cancelled: the jobs had already ended or gone."}
		case n == 1:
			return &flash{"ok", "Cancelled the job. A running job stops once its worker hears of it."}
		}
		return &flash{"ok", "Cancelled " + count + ": waiting ones are in garbage; running ones stop once their workers hear of it."}
	case "rescheduled":
		return &flash{"ok", "Rescheduled the job: it keeps its ID, attempts and history; its due time is below."}
	case "schedule-pause":
		return &flash{"ok", "Paused the schedule: running schedulers stop its ticks within a second or so."}
	case "schedule-resume":
		return &flash{"ok", "Resumed the schedule: running schedulers enqueue its ticks again within a second or so."}
	case "schedule-delete":
		return &flash{"ok", "Deleted the schedule."}
	case "schedule-spec":
		return &flash{"ok", "Changed the schedule: running schedulers follow it within a second or so."}
	case "args":
		return &flash{"ok", "Changed the job's args: it keeps its ID, attempts and history."}
	case "grouplimit":
		return &flash{"ok", "Saved the group's cap: every worker follows it from its next claim."}
	case "reprioritised":
		return &flash{"ok", "Changed the job's priority: it keeps its ID, attempts and history."}
	case "limits":
		return &flash{"ok", "Saved the queue's limits: every worker follows them from its next claim."}
	case "paused":
		return &flash{"ok", "Paused the queue: workers claim nothing from it until it is resumed."}
	case "resumed":
		return &flash{"ok", "Resumed the queue."}
	case "wfcancelled":
		if n == 0 {
			return &flash{"ok", "Cancelled the workflow: its running tasks stop once their workers hear of it, and it ends then."}
		}
		return &flash{"ok", "Cancelled the workflow: " + plural(n, "task", "tasks") + " will not run; running tasks stop once their workers hear of it."}
	case "wfended":
		return &flash{"warn", "Nothing was cancelled: the workflow had already ended."}
	case "wfretried":
		if n == 0 {
			return &flash{"warn", "Nothing was requeued: no failed task's job was in garbage any more."}
		}
		return &flash{"ok", "Requeued the jobs of " + plural(n, "failed task", "failed tasks") + ": the workflow runs again."}
	}
	return opsFlashText(what, n)
}
