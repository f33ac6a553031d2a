// Package dashboard is hopper's web dashboard: an http.Handler to inspect
// queues and jobs and act on them, for any hopper.Store.
//
//	store := redisstore.New(rdb, nil)
//	http.Handle("/admin/jobs/", http.StripPrefix("/admin/jobs",
//		dashboard.New(store, &dashboard.Config{Prefix: "/admin/jobs", BasicAuth: &dashboard.BasicAuth{User: "ops", Password: pw}})))
//
// The hopper command serves it too: hopper dashboard --redis redis://host:6379.
//
// # Pages
//
//   - Queues: per queue the jobs in each state, whether it is paused, the
//     latency of its oldest ready job and its throughput over the last hour
//     (done and failed per minute, as a chart); totals across queues.
//   - Jobs in one state of one queue: paged, oldest or newest first,
//     searchable by exact ID, by kind and by a substring of the decoded
//     args, with checkboxes to act on several at once.
//   - One job: kind, queue, state, attempts and limits, times, the decoded
//     args and result as indented JSON, every recorded error with its
//     stack, and its metadata with the trace ID of a W3C traceparent.
//   - A queue's history, on its page: jobs finished, and the jobs ready
//     and the wait of the oldest as the Scheduler samples them once a
//     minute (store.MaintainResult.Backlog), over the last hour, day or
//     30 days; and how long each kind's handlers ran over the last day
//     (hopper.Inspector.GetKindDurations).
//   - A job's attempts: a timeline from its enqueue, each attempt a bar,
//     and a table of when each started, how long it took, on which worker
//     and how it ended (failed attempts from their error records, the
//     last from the job; the worker of a running one from the registry).
//   - Errors of a queue: its retry and garbage jobs grouped by kind and
//     last error (first line, runs of digits as "#"), the newest 10,000
//     of each state, with counts; a group is requeued or deleted in one
//     action, after a question that counts it.
//   - Workers: the live worker processes, the jobs each is running (a job
//     shows within about a second of starting: a worker sends a heartbeat
//     early when one starts, at most one a second) and how many attempts
//     each processed and failed since it started.
//   - Periodic jobs: the registered schedules with their last and next
//     run; a schedule no running scheduler has registered for three
//     minutes (store.ScheduleRefresh) is marked orphaned.
//   - Workflows: per state (running, succeeded, failed, cancelled) with
//     counts, searchable by ID prefix or name, each with a bar of its tasks
//     per state. On a store without workflows the page says so.
//   - One workflow: its tasks drawn as a graph (SVG laid out on the server,
//     in columns by depth, nodes coloured by task state and linked to their
//     jobs; crowded columns and very deep workflows are drawn in groups, so
//     it stays readable for thousands of tasks), and a table of every task
//     with its kind, queue, state and dependencies. While it runs, the page
//     redraws itself as tasks move.
//   - A workflow task's job page links its workflow and lists its
//     dependencies and dependents with their states.
//
// Actions — run a job now (requeue it from pending, retry, garbage or
// done), delete, cancel, pause and resume a queue — work on one job, on the
// selected jobs or on every job in a state, the last after a confirmation
// page. A workflow can be cancelled, or have its failed tasks retried,
// after a confirmation page that counts what the action does. Every action
// that loses data (delete and cancel of one job, of the selected jobs or
// of an error group, deleting a stored schedule, removing an orphaned
// registered schedule, quieting or stopping a worker) asks first: the server
// acts only on a form that carries confirm=1, and answers one without it
// with a page that asks, counts and posts the form again confirmed (with
// JavaScript, a dialog asks instead and adds confirm=1).
//
// Operator controls: the workers page quiets a worker (it claims no more
// jobs and finishes its running ones) or stops it, through the store
// (store.WorkerControl), taking effect on the worker's next heartbeat; the
// periodic page runs a stored schedule's job now, once, and lists each
// schedule's last runs (store.ScheduleRuns); the Redis page shows each
// server's INFO and an estimate of each queue's memory
// (store.ServerInformer). A store without one of these says so on its
// page.
//
// The banner that tells an action's outcome comes in the redirect's query,
// signed with a key random per process and valid for two minutes: a
// crafted link shows none. A value a form cannot take (a delay of -5m, a
// priority out of range, args that are not JSON, a bad limit) answers 422
// with the form's page again, the message under the form and what was
// typed still in it. A store failure answers with what failed, in words,
// and a request ID (also the X-Request-Id header, and request_id in JSON);
// the store's own error goes only to Config.Logger, under that request_id.
//
// A queue's limits form changes only the settings the operator changed
// on it (it sends the values it showed beside the values typed), in one
// atomic step (hopper.Inspector.UpdateQueueConfig): a setting another
// operator changed after the page was rendered stays as they set it.
//
// A search of a jobs list (kind, args, the start of an ID) goes through
// the state a stretch per request (hopper.Inspector.SearchJobs: each
// answers within about 150 ms, the store narrowing the candidates itself),
// says which jobs it examined of how many, and offers to go on; a page
// that found nothing yet goes on by itself, with a Stop link. A search by
// kind in a queue that keeps a kind index (the "Index kinds" box of its
// limits: hopper.QueueConfig.KindIndex) walks that kind's jobs only, and
// says so.
//
// Pages are rendered on the server with html/template; the CSS, a small
// JavaScript file and the icon are embedded. Everything works without
// JavaScript; with it, counts and charts refresh in place every
// Config.RefreshInterval (a fetch of GET /api/stats, never a reload), the
// workflow pages swap in their live part when it changed (a fetch of the
// page with fragment=1), and the jobs lists, job pages, workers and
// periodic pages swap in their live regions (elements marked
// data-live-region) when a fetch of the page itself finds them changed.
// A region is held while the user works in it (a job ticked, a field
// typed in). The top bar says whether the page is live, paused (its Pause
// button, kept for the tab's session) or stale: a failed refresh, or none
// for three periods, shows a banner with the reason and the time of the
// state shown, and dims what can no longer be vouched for. Live means a
// store read succeeded within those periods: an open event stream counts
// only through the "alive" messages the server sends after each read of
// the store, so a store that stops answering (a Redis under CLIENT PAUSE)
// turns every page stale within a few seconds. The job lists
// get a select-all box. Below 900 px the top bar wraps and each job of a
// list is a card with its fields labelled.
//
// # Security
//
// Safe by default:
//
//   - Authentication: Config.Auth wraps the whole handler with the
//     application's own check; Config.BasicAuth adds HTTP basic auth
//     compared in constant time. Config.AllowedHosts defends a dashboard
//     without authentication on loopback against DNS rebinding.
//   - Actions are POST only, refused (403) from another origin
//     (http.CrossOriginProtection: Sec-Fetch-Site, else Origin against
//     Host), and refused (403) in every case when Config.ReadOnly is set.
//   - Every response carries a Content-Security-Policy that allows scripts,
//     styles and fetches from the dashboard only (no inline script or
//     style), frame-ancestors 'none', X-Frame-Options: DENY,
//     X-Content-Type-Options: nosniff and Cache-Control: no-store.
//   - Every string from the store (args, errors, stacks, kinds, IDs,
//     metadata) is escaped by html/template for its context.
//   - Config.Redact (by default DefaultRedact, which hides the values of
//     keys such as password, token, secret and api_key) runs on args,
//     results and metadata before they reach a page, the JSON endpoints or
//     the args search, so a search cannot reveal a hidden value.
//   - Every action is logged to Config.Logger with its user, path and
//     count.
package dashboard
