package dashboard_test

import (
	"context"
	"errors"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

func TestQueuesPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		r := get(t, newHandler(s, nil), "/")
		wantStatus(t, r, http.StatusOK, "GET /")
		wantContains(t, r.Body, "queues page",
			`href="/queues/default/ready"`, `href="/queues/critical/ready"`,
			`data-count="default/garbage">2<`, `data-count="default/ready">3<`, `data-count="default/retry">1<`,
			`data-count="default/unack">1<`, `data-count="default/pending">1<`, `data-count="default/done">1<`,
			`data-count="critical/ready">1<`,
			`data-total="ready">4<`,                 // totals across queues
			`data-chart=""`, `data-chart="default"`, // throughput charts
			`class="done"`, `class="failed"`, // bars: the dashtest.Fixture acked one job and failed three
			`action="/queues/default/pause"`, `data-live="/api/stats"`,
			`href="/?range=1h" aria-current="page"`, "peak", "per min", "60 min ago",
		)
		// A longer range: its bars, labels and live updates.
		r = get(t, newHandler(s, nil), "/?range=30d")
		wantContains(t, r.Body, "queues page over 30 days", "last 30 days, all queues", `href="/?range=30d" aria-current="page"`,
			"per 12 h", "30 days ago", `data-live="/api/stats?range=30d"`, `data-chart-ymid=""`, `class="done"`)
		r = get(t, newHandler(s, nil), "/api/stats?range=24h")
		wantContains(t, r.Body, "stats over a day", `"ymid":`, `UTC: `)
	})
}

func TestQueuesPageEmptyStore(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		r := get(t, newHandler(s, nil), "/")
		wantStatus(t, r, http.StatusOK, "GET / on an empty store")
		wantContains(t, r.Body, "empty overview", "No queues yet")
	})
}

func TestQueuesPageShowsPausedAndLatency(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		if err := hopper.NewInspector(s).SetQueueConfig(context.Background(), "critical", hopper.QueueConfig{Paused: true}); err != nil {
			t.Fatal(err)
		}
		now := time.Now().Add(time.Hour) // the ready jobs have waited an hour
		r := get(t, newHandler(s, &dashboard.Config{Now: func() time.Time { return now }}), "/")
		wantStatus(t, r, http.StatusOK, "GET /")
		// The paused badge and the resume form are shown for critical only.
		if !regexp.MustCompile(`class="badge paused" data-when-paused="critical"[^>]*>paused<`).MatchString(r.Body) {
			t.Error("critical is not shown as paused")
		}
		if !regexp.MustCompile(`class="badge paused" data-when-paused="default"[^>]* hidden>`).MatchString(r.Body) {
			t.Error("default is shown as paused")
		}
		wantContains(t, r.Body, "resume form", `action="/queues/critical/resume" data-when-paused="critical">`)
		if !regexp.MustCompile(`data-latency="default">[0-9.]+(ms|s)<`).MatchString(r.Body) {
			t.Error("default shows no latency although jobs are ready")
		}
	})
}

func TestJobsPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := get(t, h, "/queues/default/garbage")
		wantStatus(t, r, http.StatusOK, "garbage list")
		wantContains(t, r.Body, "garbage list",
			`href="/jobs/default/`+f.Garbage[0]+`"`, `href="/jobs/default/`+f.Garbage[1]+`"`,
			`name="id" value="`+f.Garbage[0]+`"`, // selectable
			"Requeue selected", "Delete selected", "Requeue all…", "Delete all…",
			"smtp: 550 mailbox &lt;unavailable&gt;", // last error, escaped
			"Showing <strong>1–2</strong> of <strong>2</strong>",
			`aria-current="page" title="Dead`, // the garbage tab is current
		)
		// Garbage lists newest first by default.
		if strings.Index(r.Body, f.Garbage[1]) > strings.Index(r.Body, f.Garbage[0]) {
			t.Error("garbage is not listed newest first by default")
		}
		r = get(t, h, "/queues/default/garbage?order=oldest")
		if strings.Index(r.Body, f.Garbage[0]) > strings.Index(r.Body, f.Garbage[1]) {
			t.Error("order=oldest does not list the oldest first")
		}

		// Ready jobs cannot be requeued, only cancelled or deleted; running
		// ones only cancelled.
		r = get(t, h, "/queues/default/ready")
		wantStatus(t, r, http.StatusOK, "ready list")
		wantContains(t, r.Body, "ready list", "Delete selected", "Cancel selected", f.Ready[0])
		wantLacks(t, r.Body, "ready list", "selected</button>\n      <button class=\"btn\"", "Run now selected")
		r = get(t, h, "/queues/default/unack")
		wantStatus(t, r, http.StatusOK, "unack list")
		wantContains(t, r.Body, "unack list", f.Unack, "Cancel selected", `type="checkbox" name="id"`)
		wantLacks(t, r.Body, "unack list", "Delete selected")
		wantLacks(t, get(t, h, "/queues/default/done").Body, "done list", "Cancel selected")
	})
}

func TestJobsPagePaging(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		c := hopper.NewClient(s, nil)
		var ids []string
		for i := range 7 {
			info, err := hopper.Enqueue(context.Background(), c, dashtest.ReportArgs{Month: "m" + string(rune('a'+i))}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, info.ID)
		}
		h := newHandler(s, &dashboard.Config{PageSize: 3})
		seen := map[string]bool{}
		next := "/queues/default/ready"
		for page := 1; next != ""; page++ {
			if page > 3 {
				t.Fatalf("more than 3 pages of 3 for 7 jobs")
			}
			r := get(t, h, next)
			wantStatus(t, r, http.StatusOK, next)
			for _, id := range ids {
				if strings.Contains(r.Body, `value="`+id+`"`) {
					if seen[id] {
						t.Errorf("job %s on two pages", id)
					}
					seen[id] = true
				}
			}
			m := regexp.MustCompile(`href="([^"]+)" rel="next"`).FindStringSubmatch(r.Body)
			next = ""
			if m != nil {
				next = strings.ReplaceAll(m[1], "&amp;", "&")
			}
		}
		if len(seen) != len(ids) {
			t.Errorf("pages showed %d of %d jobs", len(seen), len(ids))
		}
	})
}

func TestJobsPageSearch(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		cases := []struct {
			name, query string
			want, not   []string
		}{
			{"args substring", "/queues/default/ready?args=ALICE@example", []string{f.Ready[0]}, []string{f.Ready[1], f.Traced}},
			{"kind", "/queues/default/ready?kind=build_report", []string{f.Traced}, []string{f.Ready[0], f.Ready[1]}},
			{"kind and args", "/queues/default/ready?kind=send_email&args=carol", []string{f.Ready[1]}, []string{f.Ready[0], f.Traced}},
			{"args HTML text", "/queues/default/garbage?args=" + "%3Cscript%3E", []string{f.Garbage[0]}, []string{f.Garbage[1]}},
			{"no match", "/queues/default/ready?args=nobody-has-this", []string{"No match among jobs", "searched to the end"}, []string{f.Ready[0]}},
		}
		for _, c := range cases {
			r := get(t, h, c.query)
			wantStatus(t, r, http.StatusOK, c.name)
			wantContains(t, r.Body, c.name, c.want...)
			wantLacks(t, r.Body, c.name, c.not...)
		}
		// Filtered lists offer no "all" actions: they would act beyond the matches.
		r := get(t, h, "/queues/default/garbage?args=weekly")
		wantContains(t, r.Body, "filtered garbage", "Requeue selected")
		wantLacks(t, r.Body, "filtered garbage", "Requeue all…")
	})
}

func TestJobsPageSearchByID(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		// Found in any state: redirect to the job.
		r := get(t, h, "/queues/default/ready?id="+f.Garbage[1])
		wantStatus(t, r, http.StatusSeeOther, "search by ID")
		if loc := r.Header.Get("Location"); loc != "/jobs/default/"+f.Garbage[1] {
			t.Errorf("search by ID redirects to %q", loc)
		}
		r = get(t, h, "/queues/default/ready?id=no-such-id")
		wantStatus(t, r, http.StatusOK, "search by unknown ID")
		wantContains(t, r.Body, "search by unknown ID", `No job of default has the ID &#34;no-such-id&#34;`, "No match among jobs")
		// A prefix of IDs lists the jobs of the state that start with it.
		r = get(t, h, "/queues/default/ready?id="+url.QueryEscape(f.Ready[0][:len(f.Ready[0])-1]))
		wantStatus(t, r, http.StatusOK, "search by an ID's start")
		wantContains(t, r.Body, "search by an ID's start", `data-job-row="`+f.Ready[0]+`"`, "whose IDs start with it")

		// The header's search finds a job in any queue.
		r = get(t, h, "/find?id="+f.Crit)
		wantStatus(t, r, http.StatusSeeOther, "find")
		if loc := r.Header.Get("Location"); loc != "/jobs/critical/"+f.Crit {
			t.Errorf("find redirects to %q", loc)
		}
		wantStatus(t, get(t, h, "/find?id=nope"), http.StatusNotFound, "find unknown")
	})
}

func TestJobPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)

		r := get(t, h, "/jobs/default/"+f.Garbage[0])
		wantStatus(t, r, http.StatusOK, "garbage job")
		wantContains(t, r.Body, "garbage job",
			`<span class="kind kind-big">send_email</span>`,
			`class="state state-garbage"`,
			">1</span> of 1",               // attempts and limit
			esc(`"to": "bob@example.com"`), // indented JSON args
			esc(`"subject": "<script>alert(1)</script>"`),
			esc(`"password": "[redacted]"`),
			"smtp: 550 mailbox &lt;unavailable&gt;",
			"goroutine 7 [running]:\n<mark class=\"user-frame\">main.send(0xc000010000)</mark>", // the stack, the user's frame marked
			"your code: <span class=\"mono\">main.send at send.go:42</span>",
			"Enqueued", "Due", "Last attempt", "Finished",
			`action="/jobs/default/`+f.Garbage[0]+`/retry"`, `action="/jobs/default/`+f.Garbage[0]+`/delete"`,
		)
		wantLacks(t, r.Body, "garbage job", dashtest.SecretText, `/cancel"`)

		r = get(t, h, "/jobs/default/"+f.Done)
		wantStatus(t, r, http.StatusOK, "done job")
		wantContains(t, r.Body, "done job", "Result", esc(`"file": "`+dashtest.ResultText+`"`), "Run again", "Retention")

		r = get(t, h, "/jobs/default/"+f.Traced)
		wantStatus(t, r, http.StatusOK, "traced job")
		wantContains(t, r.Body, "traced job",
			`<dd class="mono wrap" id="trace-id">4bf92f3577b34da6a3ce929d0e0e4736</dd>`,
			"00f067aa0ba902b7", dashtest.Traceparent, // parent span and raw metadata
			`<dt class="mono">api_token</dt><dd class="mono wrap">[redacted]</dd>`,
			`/cancel"`, // a waiting job can be cancelled
		)
		wantLacks(t, r.Body, "traced job", dashtest.SecretText)

		r = get(t, h, "/jobs/default/"+f.Unack)
		wantStatus(t, r, http.StatusOK, "running job")
		wantContains(t, r.Body, "running job", "Lease until", `/cancel"`)
		wantLacks(t, r.Body, "running job", `/delete"`, `/retry"`)
	})
}

func TestJobPageUndecodableArgs(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		res, err := s.Enqueue(context.Background(), []*store.NewJob{{ID: "bad-args", Queue: "default", Kind: "broken", Args: []byte{0xc1, 0x01, 0x02}}})
		if err != nil || res[0].Duplicate {
			t.Fatal(err, res)
		}
		h := newHandler(s, nil)
		r := get(t, h, "/jobs/default/bad-args")
		wantStatus(t, r, http.StatusOK, "undecodable job")
		wantContains(t, r.Body, "undecodable job", "do not decode as msgpack", "c1 01 02")
		r = get(t, h, "/queues/default/ready")
		wantStatus(t, r, http.StatusOK, "list with undecodable job")
		wantContains(t, r.Body, "list with undecodable job", "undecodable (3 bytes)")
		// An args search skips it instead of failing.
		wantStatus(t, get(t, h, "/queues/default/ready?args=x"), http.StatusOK, "search over undecodable job")
	})
}

// A queue's page charts its history: jobs finished, and the depth and
// latency Maintain samples, over the range asked.
func TestQueueHistory(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		if _, err := s.Maintain(context.Background(), "default", store.MaintainOpts{}); err != nil {
			t.Fatal(err)
		}
		h := newHandler(s, nil)
		r := get(t, h, "/queues/default/ready")
		wantContains(t, r.Body, "history", `id="history"`, "History, last hour:", "Jobs ready", "3 ready</title>", "oldest waited up to",
			`href="/queues/default/ready?range=24h#history"`)
		r = get(t, h, "/queues/default/ready?range=30d")
		wantContains(t, r.Body, "history over 30 days", "History, last 30 days:", `id="history" open`, "per 12 h")
		// Handler durations, per kind.
		if err := s.(store.Durations).AddDurations(context.Background(), []store.DurationCount{
			{Queue: "default", Kind: "send_email", Bucket: store.DurationBucket(40 * time.Millisecond), Count: 90},
			{Queue: "default", Kind: "send_email", Bucket: store.DurationBucket(2 * time.Second), Count: 10},
		}); err != nil {
			t.Fatal(err)
		}
		r = get(t, h, "/queues/default/ready")
		wantContains(t, r.Body, "durations", "How long handlers ran", `data-kind-durations="send_email"`, ">100<")
	})
}

// A live refresh of a queue's page (app.js asks for its regions only)
// reads neither the history nor the workers: the list is all it swaps.
func TestQueueRegionsOnly(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		req := newRequest(http.MethodGet, "/queues/default/ready", nil)
		req.Header.Set("X-Hopper-Regions", "1")
		r := serve(newHandler(s, nil), req)
		wantStatus(t, r, http.StatusOK, "regions only")
		wantContains(t, r.Body, "regions only", `id="jobs-region"`, `data-job-row="`+f.Ready[0]+`"`)
		wantLacks(t, r.Body, "regions only", `id="history"`, "Served by")
	})
}

// A queue's page names the live workers that serve it.
func TestQueueServingWorkers(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := get(t, h, "/queues/default/ready")
		wantContains(t, r.Body, "default's page", "Served by 1 live worker", `href="/workers#worker-worker-1"`, "×2 · 1/8 running")
		r = get(t, h, "/queues/"+"solo"+"/ready")
		wantContains(t, r.Body, "a queue no worker serves", "No live worker serves solo")
	})
}

func TestWorkersPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		r := get(t, newHandler(s, nil), "/workers")
		wantStatus(t, r, http.StatusOK, "workers")
		wantContains(t, r.Body, "workers", "worker-1", "host-a", "4242", "critical", "×5", "default", "×2",
			"1 / 8 busy", `href="/jobs/default/`+f.Unack+`"`, "build_report", "Heartbeat", "Started",
			"<span data-processed>12,345</span>", "67 failed", "12,345 processed, 67 failed since they started")
	})
}

func TestSchedulesPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := get(t, h, "/schedules")
		wantStatus(t, r, http.StatusOK, "schedules")
		next, err := hopper.NextTick("0 3 1 * *", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		nextText := next.UTC().Format("2006-01-02 15:04:05") // computed from the spec
		wantContains(t, r.Body, "schedules", "monthly-report", "0 3 1 * *", "build_report", "never", nextText)
		wantLacks(t, r.Body, "schedules", ">missed<", ">orphaned<")

		// A tick enqueued by the schedule shows as its last run.
		tick := time.Now().Add(-time.Minute).Truncate(time.Second)
		_, err = s.Enqueue(context.Background(), []*store.NewJob{{ID: "tick-1", Queue: "default", Kind: "build_report", Schedule: "monthly-report", Tick: tick}})
		if err != nil {
			t.Fatal(err)
		}
		r = get(t, h, "/schedules")
		wantLacks(t, r.Body, "schedules after a tick", ">never<")
		wantContains(t, r.Body, "schedules after a tick", tick.UTC().Format("2006-01-02 15:04:05"))

		// A schedule no live process has registered for three refresh
		// periods is orphaned; one registered a refresh ago is not.
		seen := time.Now().Add(-4 * store.ScheduleRefresh)
		if err := s.RegisterSchedules(context.Background(), []store.ScheduleInfo{
			{Name: "gone-report", Spec: "0 4 * * *", Queue: "default", Kind: "build_report", Next: time.Now().Add(time.Hour), SeenAt: seen},
			{Name: "kept-report", Spec: "0 5 * * *", Queue: "default", Kind: "build_report", Next: time.Now().Add(time.Hour), SeenAt: time.Now().Add(-store.ScheduleRefresh)},
		}); err != nil {
			t.Fatal(err)
		}
		r = get(t, h, "/schedules")
		body := r.Body
		gone, kept := strings.Index(body, "gone-report"), strings.Index(body, "kept-report")
		if gone < 0 || kept < 0 || !strings.Contains(body[gone:kept], ">orphaned<") || strings.Contains(body[kept:], ">orphaned<") {
			t.Errorf("want gone-report marked orphaned and kept-report not; page:\n%s", body)
		}
	})
}

func TestNotFound(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		for _, p := range []string{
			"/nope", "/queues/default/nostate", "/queues/bad%20queue/ready", "/jobs/default/nope",
			"/queues/default/garbage/confirm?action=explode", "/static/", "/static/nope.css",
			"/api/jobs/default/nope", "/api/queues/default/nostate",
		} {
			r := get(t, h, p)
			if r.Code != http.StatusNotFound && r.Code != http.StatusBadRequest {
				t.Errorf("GET %s: status %d, want 404 or 400", p, r.Code)
			}
		}
	})
}

func TestStaticFiles(t *testing.T) {
	h := newHandler(newMem(), nil)
	for _, f := range []struct{ path, ctype string }{
		{"/static/app.css", "text/css"}, {"/static/app.js", "text/javascript"}, {"/static/favicon.svg", "image/svg+xml"},
	} {
		r := get(t, h, f.path)
		wantStatus(t, r, http.StatusOK, f.path)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, f.ctype) {
			t.Errorf("%s: Content-Type %q, want %s", f.path, ct, f.ctype)
		}
		if cc := r.Header.Get("Cache-Control"); !strings.Contains(cc, "max-age") {
			t.Errorf("%s: Cache-Control %q, want a max-age", f.path, cc)
		}
	}
	// Pages link the static files with a version, so a new release is fetched.
	r := get(t, h, "/")
	if !regexp.MustCompile(`href="/static/app.css\?v=[0-9a-f]{12}"`).MatchString(r.Body) {
		t.Error("the page does not link a versioned app.css")
	}
}

// TestEveryLinkWorks follows every link of every page, with the dashboard
// at the root and under a prefix, and wants each to answer 200 (or a
// redirect to a page that does).
func TestEveryLinkWorks(t *testing.T) {
	for _, prefix := range []string{"", "/admin/jobs"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			eachStore(t, func(t *testing.T, s hopper.Store) {
				dashtest.Seed(t, s)
				var h http.Handler = newHandler(s, &dashboard.Config{Prefix: prefix})
				if prefix != "" {
					mux := http.NewServeMux()
					mux.Handle(prefix+"/", http.StripPrefix(prefix, h))
					h = mux
				}
				crawl(t, h, prefix)
			})
		})
	}
}

var linkRE = regexp.MustCompile(`(?:href|src|action)="([^"#]*)"`)

// crawl visits every GET link reachable from the overview.
func crawl(t *testing.T, h http.Handler, prefix string) {
	t.Helper()
	seen := map[string]bool{}
	queue := []string{prefix + "/"}
	for len(queue) > 0 && len(seen) < 300 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] {
			continue
		}
		seen[p] = true
		r := get(t, h, p)
		for hops := 0; r.Code == http.StatusFound || r.Code == http.StatusSeeOther; hops++ {
			if hops > 3 {
				t.Fatalf("GET %s: redirect loop", p)
			}
			r = get(t, h, r.Header.Get("Location"))
		}
		if r.Code != http.StatusOK {
			t.Errorf("GET %s: status %d", p, r.Code)
			continue
		}
		if !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
			continue
		}
		for _, m := range linkRE.FindAllStringSubmatch(r.Body, -1) {
			link := html.UnescapeString(m[1])
			if link == "" || strings.Contains(link, "://") {
				continue
			}
			if !strings.HasPrefix(link, prefix+"/") {
				t.Errorf("page %s links %q, outside the prefix %q", p, link, prefix)
				continue
			}
			// Forms posting actions are tested elsewhere; the find form needs an ID.
			if isAction(link) || strings.HasSuffix(link, "/find") {
				continue
			}
			queue = append(queue, link)
		}
	}
	if len(seen) < 20 {
		t.Errorf("crawled only %d pages", len(seen))
	}
}

// isAction reports whether a path is a POST action.
func isAction(p string) bool {
	for _, s := range []string{"/retry", "/delete", "/cancel", "/pause", "/resume", "/limits", "/reschedule", "/priority", "/groups", "/pause", "/resume", "/spec", "/args", "/quiet", "/stop", "/run", "/forget"} {
		if strings.HasSuffix(p, s) {
			return true
		}
	}
	return false
}

func TestMountedBareRedirects(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/ops/", http.StripPrefix("/ops", newHandler(newMem(), &dashboard.Config{Prefix: "/ops/"})))
	mux.Handle("/ops", http.StripPrefix("/ops", newHandler(newMem(), &dashboard.Config{Prefix: "/ops/"})))
	r := get(t, mux, "/ops")
	wantStatus(t, r, http.StatusFound, "GET /ops")
	if loc := r.Header.Get("Location"); loc != "/ops/" {
		t.Errorf("GET /ops redirects to %q, want /ops/", loc)
	}
	wantStatus(t, get(t, mux, "/ops/"), http.StatusOK, "GET /ops/")
}

// TestOddJobID follows the links to a job whose ID holds every character
// that means something in a URL or in HTML, and acts on it.
func TestOddJobID(t *testing.T) {
	const id = `a/b?c=1&d#e%2F<f>"g'h+i`
	eachStore(t, func(t *testing.T, s hopper.Store) {
		if _, err := s.Enqueue(context.Background(), []*store.NewJob{{ID: id, Queue: "default", Kind: "odd", Args: mustMarshal(t, map[string]string{"x": "y"})}}); err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("/p/", http.StripPrefix("/p", newHandler(s, &dashboard.Config{Prefix: "/p"})))
		list := get(t, mux, "/p/queues/default/ready")
		m := regexp.MustCompile(`href="(/p/jobs/default/[^"]+)"`).FindStringSubmatch(list.Body)
		if m == nil {
			t.Fatalf("no job link in the list")
		}
		link := html.UnescapeString(m[1])
		r := get(t, mux, link)
		wantStatus(t, r, http.StatusOK, "GET "+link)
		wantContains(t, html.UnescapeString(r.Body), "odd job page", `<span id="job-id">`+id+`</span>`)
		wantLacks(t, r.Body, "odd job page", "<f>")
		r = post(t, mux, link+"/delete", nil)
		wantStatus(t, r, http.StatusOK, "ask before deleting the odd job")
		r = submitAsk(t, mux, r)
		wantStatus(t, r, http.StatusSeeOther, "delete the odd job")
		if st := dashtest.JobState(t, s, "default", id); st != "" {
			t.Errorf("odd job still in %q", st)
		}
	})
}

// engineOnly is a store without store.Admin: it runs jobs, but has no
// operator interface.
type engineOnly struct{ hopper.Store }

// On a store without store.Admin the dashboard says what it cannot show
// instead of failing.
func TestPagesOnStoreWithoutAdmin(t *testing.T) {
	s := engineOnly{newMem()}
	if _, err := hopper.Enqueue(t.Context(), hopper.NewClient(s, nil), dashtest.ReportArgs{Month: "x"}, nil); err != nil {
		t.Fatal(err)
	}
	h := newHandler(s, nil)
	for _, path := range []string{"/", "/queues/default/ready", "/workers"} {
		r := get(t, h, path)
		wantStatus(t, r, http.StatusNotImplemented, path)
		wantContains(t, r.Body, path, "Not available on this store", "store.Admin", "Jobs still run")
	}
	r := get(t, h, "/schedules")
	wantStatus(t, r, http.StatusOK, "/schedules")
}

// A path no route serves answers the dashboard's 404 page, not Go's plain
// text; a wrong method on an action still answers 405.
func TestUnknownPathIsAPage(t *testing.T) {
	h := newHandler(newMem(), nil)
	for _, p := range []string{"/nope", "/queues/default/ready/extra/segments", "/static2/app.css"} {
		r := get(t, h, p)
		wantStatus(t, r, http.StatusNotFound, p)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("GET %s: Content-Type %q, want text/html", p, ct)
		}
		wantContains(t, r.Body, p, "Page not found", "Back to the queues")
		wantLacks(t, r.Body, p, "404 page not found")
	}
	wantStatus(t, get(t, h, "/queues/default/pause"), http.StatusMethodNotAllowed, "GET an action")
	wantStatus(t, do(t, h, http.MethodPut, "/jobs/default/x/cancel", nil), http.StatusMethodNotAllowed, "PUT an action")
}

// A page past the end of a list that has jobs says so and links the last
// page, instead of "No jobs".
func TestPagePastTheEnd(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		for _, p := range []string{"/queues/default/ready?page=99999999999", "/queues/default/ready?page=2"} {
			r := get(t, h, p)
			wantStatus(t, r, http.StatusOK, p)
			wantContains(t, r.Body, p, "is past the end: 3 jobs in ready fill 1 page.", `id="last-page"`)
			wantLacks(t, r.Body, p, "No jobs in ready")
		}
		wantContains(t, get(t, h, "/queues/critical/garbage?page=2").Body, "empty state, page 2", "No jobs in garbage")
	})
}

// With Config.TraceURL a job's trace ID links to the tracing UI, on the
// page and in the JSON; a template without {trace_id} or not http(s) is
// refused.
func TestTraceLink(t *testing.T) {
	s := newMem()
	f := dashtest.Seed(t, s)
	h := newHandler(s, &dashboard.Config{TraceURL: "https://jaeger.example.com/trace/{trace_id}?from=hopper"})
	page := get(t, h, "/jobs/default/"+f.Traced).Body
	wantContains(t, page, "traced job", `<a href="https://jaeger.example.com/trace/`, `?from=hopper" rel="noopener noreferrer"`)
	wantContains(t, get(t, h, "/api/jobs/default/"+f.Traced).Body, "traced job JSON", `"trace_url":"https://jaeger.example.com/trace/`)
	wantLacks(t, get(t, h, "/jobs/default/"+f.Ready[1]).Body, "job without a trace", "jaeger.example.com")
	wantLacks(t, get(t, newHandler(s, nil), "/jobs/default/"+f.Traced).Body, "no TraceURL", "jaeger.example.com")
	for _, bad := range []string{"https://jaeger.example.com/trace/", "javascript:alert('{trace_id}')", "/trace/{trace_id}"} {
		if err := (dashboard.Config{TraceURL: bad}).Validate(); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Errorf("TraceURL %q: Validate() = %v, want ErrInvalidConfig", bad, err)
		}
	}
}
