package dashboard

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/hopperq/hopper"
	hstore "github.com/hopperq/hopper/store"
)

// dash is the dashboard's state: the Inspector on the store, the options
// and the parsed templates. It is read-only after New, so every request may
// use it at once.
type dash struct {
	ins    *hopper.Inspector
	events hstore.EventReader // nil when the store keeps no events
	cfg    config
	pages  pages
	// attempts remembers the workers of succeeded attempts
	// (attempt_worker.go).
	attempts attemptWorkers
}

// New returns the dashboard for store as an http.Handler. opts nil means
// defaults (see Config). The handler is safe for concurrent use and holds
// no resources beyond the store: drop it to stop.
//
// Mount it at a path prefix with http.StripPrefix and the same
// Config.Prefix:
//
//	mux.Handle("/admin/jobs/", http.StripPrefix("/admin/jobs", dashboard.New(store, &dashboard.Config{Prefix: "/admin/jobs"})))
//
// or at the root of a server with no prefix at all. Routes, relative to the
// prefix:
//
//	GET  /                                 queues: counts per state, throughput, latency
//	GET  /queues/{queue}/{state}           jobs in one state: paging, order, search (id, kind, args)
//	GET  /queues/{queue}/{state}/confirm   confirmation of an action on all jobs in the state
//	POST /queues/{queue}/{state}/retry     requeue the selected jobs (id=...), or all (all=1&confirm=1)
//	POST /queues/{queue}/{state}/delete    delete the selected jobs (confirm=1, else a page asks), or all
//	POST /queues/{queue}/pause             pause the queue; /resume resumes it
//	GET  /queues/{queue}/errors            retry and garbage jobs grouped by kind and error, with counts
//	POST /queues/{queue}/errors            requeue (action=retry) or delete one error group (state, kind, key)
//	GET  /jobs/{queue}/{id}                one job: args, result, errors with stacks, times, metadata
//	POST /jobs/{queue}/{id}/retry          requeue the job now (also /delete, /cancel)
//	GET  /find?id=...                      find a job by ID, or the start of one, in every queue
//	GET  /workers                          live worker processes and the jobs they run
//	POST /workers/{id}/{quiet|stop}         quiet or stop a worker (asks first)
//	GET  /schedules                        periodic jobs
//	GET  /redis                            Redis server info and memory per queue
//	GET  /workflows                        workflows: per state, search by ID prefix or name, paging
//	GET  /workflows/{id}                   one workflow: its tasks drawn as a graph, and listed, live
//	GET  /workflows/{id}/confirm           confirmation of an action on a workflow, with its counts
//	POST /workflows/{id}/cancel            cancel the workflow (confirm=1); /retry requeues its failed tasks
//	GET  /api/stats[?queue=q]              counts, latency and throughput as JSON (live updates)
//	GET  /api/queues/{queue}/{state}       a page of jobs as JSON, args decoded and redacted
//	GET  /api/jobs/{queue}/{id}            one job as JSON, args decoded and redacted, with its progress
//	GET  /api/events?queue=q[&job=id]      a queue's events, live, as server-sent events ("alive" after each store read); resumes after Last-Event-ID or &from=
//	GET  /api/workflows                    a page of workflows as JSON (state, q, page)
//	GET  /api/workflows/{id}               one workflow with its tasks as JSON
//	GET  /static/...                       embedded CSS, JavaScript and icon
//
// Every response carries a strict Content-Security-Policy, nosniff and
// frame-ancestors 'none'; actions are POST only, refused across origins and
// refused in read-only mode. New panics if store is nil, or with the error
// of Config.Validate if an option is invalid.
func New(store hopper.Store, cfg *Config) http.Handler {
	if store == nil {
		panic("dashboard: New with a nil Store")
	}
	var c Config
	if cfg != nil {
		c = *cfg
	}
	settled, err := c.withDefaults()
	if err != nil {
		panic(err)
	}
	d := &dash{ins: hopper.NewInspector(store), cfg: settled}
	d.events, _ = hstore.As[hstore.EventReader](store)
	d.pages = d.mustParsePages()

	mux := http.NewServeMux()
	d.routes(mux)
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" { // the bare mount point, as http.StripPrefix leaves it
			http.Redirect(w, r, d.home(), http.StatusFound)
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			// No route: the mux answers 404 or 405. A 404 gets the
			// dashboard's page instead of Go's plain text.
			w = &notFoundWriter{ResponseWriter: w, d: d, r: r}
		}
		mux.ServeHTTP(w, r)
	})
	h = d.crossOrigin(h)
	if b := d.cfg.BasicAuth; b != nil {
		h = basicAuth(b, d.cfg.Now, h)
	}
	if d.cfg.Auth != nil {
		h = d.cfg.Auth(h)
	}
	if d.cfg.allowedHosts != nil {
		h = hostGuard(d.cfg.allowedHosts, h)
	}
	return securityHeaders(h)
}

// routes registers every page, action and endpoint on mux.
func (d *dash) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", d.serveQueues)
	mux.HandleFunc("GET /queues/{queue}", d.serveQueueRedirect)
	mux.HandleFunc("GET /queues/{queue}/{state}", d.serveJobs)
	mux.HandleFunc("GET /queues/{queue}/{state}/confirm", d.serveConfirm)
	mux.HandleFunc("POST /queues/{queue}/{state}/retry", d.action(d.postBulkRetry))
	mux.HandleFunc("POST /queues/{queue}/{state}/delete", d.action(d.postBulkDelete))
	mux.HandleFunc("POST /queues/{queue}/{state}/cancel", d.action(d.postBulkCancel))
	mux.HandleFunc("POST /queues/{queue}/pause", d.action(d.postPause))
	mux.HandleFunc("POST /queues/{queue}/resume", d.action(d.postResume))
	mux.HandleFunc("POST /queues/{queue}/limits", d.action(d.postLimits))
	mux.HandleFunc("GET /jobs/{queue}/{id}", d.serveJob)
	mux.HandleFunc("POST /jobs/{queue}/{id}/retry", d.action(d.postJobRetry))
	mux.HandleFunc("POST /jobs/{queue}/{id}/delete", d.action(d.postJobDelete))
	mux.HandleFunc("POST /jobs/{queue}/{id}/cancel", d.action(d.postJobCancel))
	mux.HandleFunc("POST /jobs/{queue}/{id}/reschedule", d.action(d.postJobReschedule))
	mux.HandleFunc("POST /jobs/{queue}/{id}/priority", d.action(d.postJobPriority))
	mux.HandleFunc("POST /jobs/{queue}/{id}/args", d.action(d.postJobArgs))
	mux.HandleFunc("POST /queues/{queue}/groups", d.action(d.postGroupLimit))
	mux.HandleFunc("GET /queues/{queue}/errors", d.serveErrors)
	mux.HandleFunc("POST /queues/{queue}/errors", d.action(d.postErrorGroup))
	mux.HandleFunc("POST /schedules/{queue}/{name}/{action}", d.action(d.postSchedule))
	mux.HandleFunc("GET /find", d.serveFind)
	mux.HandleFunc("GET /theme", d.serveTheme)
	mux.HandleFunc("GET /retries", d.serveFailures(retriesView))
	mux.HandleFunc("GET /dead", d.serveFailures(deadView))
	mux.HandleFunc("POST /retries/retry", d.action(d.postFailures(retriesView, "retry")))
	mux.HandleFunc("POST /retries/delete", d.action(d.postFailures(retriesView, "delete")))
	mux.HandleFunc("POST /dead/retry", d.action(d.postFailures(deadView, "retry")))
	mux.HandleFunc("POST /dead/delete", d.action(d.postFailures(deadView, "delete")))
	mux.HandleFunc("GET /api/retries", d.serveFailuresJSON(retriesView))
	mux.HandleFunc("GET /api/dead", d.serveFailuresJSON(deadView))
	mux.HandleFunc("GET /workers", d.serveWorkers)
	mux.HandleFunc("POST /workers/{id}/{action}", d.action(d.postWorker))
	mux.HandleFunc("GET /schedules", d.serveSchedules)
	mux.HandleFunc("GET /redis", d.serveRedis)
	mux.HandleFunc("GET /api/stats", d.serveStatsJSON)
	mux.HandleFunc("GET /api/queues/{queue}/{state}", d.serveJobsJSON)
	mux.HandleFunc("GET /api/jobs/{queue}/{id}", d.serveJobJSON)
	mux.HandleFunc("GET /api/events", d.serveEvents)
	mux.Handle("GET /static/", staticHandler())
	d.workflowRoutes(mux)
}

// path returns the URL path of a dashboard page: the prefix, then each
// segment path-escaped. With no segments it is the prefix itself ("" at
// the root), so callers add the trailing "/" of the overview.
//
// A segment "." or ".." (a valid queue name and job ID) is written %2E or
// %2E%2E: as it is, a browser would resolve it away ("/queues/../ready"
// is "/ready"). The router matches the escaped path and unescapes each
// {wildcard}, so the handlers see "." and "..".
func (d *dash) path(segs ...string) string {
	var b strings.Builder
	b.WriteString(d.cfg.Prefix)
	for _, s := range segs {
		b.WriteByte('/')
		switch s {
		case ".":
			b.WriteString("%2E")
		case "..":
			b.WriteString("%2E%2E")
		default:
			b.WriteString(url.PathEscape(s))
		}
	}
	return b.String()
}

// home is the URL of the overview.
func (d *dash) home() string { return d.cfg.Prefix + "/" }

// queuePath is the URL of the list of queue's jobs in state st.
func (d *dash) queuePath(queue string, st hopper.JobState) string {
	return d.path("queues", queue, string(st))
}

// jobPath is the URL of one job's page.
func (d *dash) jobPath(queue, id string) string { return d.path("jobs", queue, id) }
