package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// Both stores run workflows; the tests below run on each.
var (
	_ store.Workflows = (*memstore.Store)(nil)
	_ store.Workflows = (*redisstore.Store)(nil)
)

// taskNodeRE finds the nodes of the graph that stand for one task.
var taskNodeRE = regexp.MustCompile(`<a class="node (node-[a-z]+)" href="([^"]*)" data-task="([^"]+)"`)

// graphNodes returns the task nodes of a workflow page: task name to its
// class and link.
func graphNodes(body string) map[string][2]string {
	out := map[string][2]string{}
	for _, m := range taskNodeRE.FindAllStringSubmatch(body, -1) {
		out[m[3]] = [2]string{m[1], m[2]}
	}
	return out
}

func TestWorkflowsPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		f := dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)
		r := get(t, h, "/workflows")
		wantStatus(t, r, http.StatusOK, "GET /workflows")
		wantContains(t, r.Body, "workflows page",
			`<a href="/workflows" aria-current="page">Workflows</a>`, // the nav entry
			`href="/workflows/`+f.Failed+`"`, `href="/workflows/`+f.Running+`"`, `href="/workflows/`+f.Succeeded+`"`,
			`data-wf-count="all">3<`, `data-wf-count="running">1<`, `data-wf-count="failed">1<`,
			`data-wf-count="succeeded">1<`, `data-wf-count="cancelled">0<`,
			`class="state wfstate-failed"`, `class="state wfstate-running"`,
			">nightly etl<", ">4/4<", ">1/7<", // tasks ended of all
			esc(dashtest.XSSText), `class="taskbar"`,
			`data-fragment="/workflows?fragment=1"`,
		)
		wantLacks(t, r.Body, "workflows page", dashtest.XSSText)

		// A tab lists one state; a search matches an ID prefix or a part
		// of the name, and the tabs keep it.
		r = get(t, h, "/workflows?state=failed")
		wantStatus(t, r, http.StatusOK, "failed tab")
		wantContains(t, r.Body, "failed tab", `href="/workflows/`+f.Failed+`"`, `class="tab tab-wf-failed" href="/workflows?state=failed" aria-current="page"`)
		wantLacks(t, r.Body, "failed tab", `href="/workflows/`+f.Running+`"`)
		for q, want := range map[string]string{"etl-": f.Failed, "thumb": f.Running, "fanout": f.Running} {
			r = get(t, h, "/workflows?q="+url.QueryEscape(q))
			wantStatus(t, r, http.StatusOK, "search "+q)
			wantContains(t, r.Body, "search "+q, `href="/workflows/`+want+`"`, "Showing <strong>1–1</strong> of <strong>1</strong> matches",
				`href="/workflows?q=`+url.QueryEscape(q)+`&amp;state=failed"`)
		}
		r = get(t, h, "/workflows?q=nobody&state=running")
		wantContains(t, r.Body, "search without match", "No workflow's ID starts with, or name holds, “nobody” among the running ones")

		// Pages.
		h = newHandler(s, &dashboard.Config{PageSize: 2})
		r = get(t, h, "/workflows")
		wantContains(t, r.Body, "page 1", "Showing <strong>1–2</strong> of <strong>3</strong>", `href="/workflows?page=2" rel="next"`)
		r = get(t, h, "/workflows?page=2")
		wantContains(t, r.Body, "page 2", "Showing <strong>3–3</strong> of <strong>3</strong>", `href="/workflows" rel="prev"`)
	})
}

func TestWorkflowsPageEmpty(t *testing.T) {
	r := get(t, newHandler(newMem(), nil), "/workflows")
	wantStatus(t, r, http.StatusOK, "no workflows")
	wantContains(t, r.Body, "no workflows", "No workflows yet", `data-wf-count="all">0<`)
}

func TestWorkflowPage(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)

		r := get(t, h, "/workflows/"+f.Running)
		wantStatus(t, r, http.StatusOK, "running workflow")
		wantContains(t, r.Body, "running workflow",
			`<svg class="wf-graph"`, `<marker id="wf-arrow"`, `<path class="edge edge-succeeded"`,
			`class="state wfstate-running"`, `id="cancel-workflow" href="/workflows/`+f.Running+`/confirm?action=cancel"`,
			`data-task-count="enqueued">5<`, `data-task-count="succeeded">1<`, `data-task-count="waiting">1<`,
			`<tr id="task-merge" data-task-row="merge">`, `class="dep dep-succeeded" href="/workflows/`+f.Running+`#task-split"`,
			`data-fragment="/workflows/`+f.Running+`?fragment=1"`, `data-workflow-state="running"`,
			`<a href="/workflows" aria-current="page">Workflows</a>`,
		)
		wantLacks(t, r.Body, "running workflow", `id="retry-workflow"`)
		nodes := graphNodes(r.Body)
		if len(nodes) != 2+dashtest.FanOutWidth {
			t.Errorf("graph has %d task nodes, want %d: %v", len(nodes), 2+dashtest.FanOutWidth, nodes)
		}
		want := map[string][2]string{
			"split": {"node-succeeded", "/jobs/fan/" + f.Running + "~split"},
			"merge": {"node-waiting", "/workflows/" + f.Running + "#task-merge"}, // no job yet: its row
		}
		for i := range dashtest.FanOutWidth {
			name := fmt.Sprintf("chunk-%d", i)
			want[name] = [2]string{"node-enqueued", "/jobs/fan/" + f.Running + "~" + name}
		}
		for name, w := range want {
			if nodes[name] != w {
				t.Errorf("node %s: %v, want %v", name, nodes[name], w)
			}
		}
		// Columns by depth: split, then the chunks, then merge.
		x := func(task string) int {
			m := regexp.MustCompile(`data-task="` + task + `" transform="translate\((\d+) `).FindStringSubmatch(r.Body)
			if m == nil {
				t.Fatalf("no position for %s", task)
			}
			var n int
			fmt.Sscan(m[1], &n)
			return n
		}
		if !(x("split") < x("chunk-0") && x("chunk-0") == x("chunk-4") && x("chunk-4") < x("merge")) {
			t.Errorf("columns: split %d, chunk-0 %d, chunk-4 %d, merge %d", x("split"), x("chunk-0"), x("chunk-4"), x("merge"))
		}
		// The legend and every state's class.
		for _, st := range []string{"waiting", "enqueued", "succeeded", "failed", "skipped", "cancelled"} {
			wantContains(t, r.Body, "legend", `class="key key-task key-`+st+`"`, `href="/workflows/`+f.Running+`?task_state=`+st+`#tasks"`)
		}

		// The failed workflow: failed and skipped nodes, the retry action,
		// no cancel.
		r = get(t, h, "/workflows/"+f.Failed)
		wantStatus(t, r, http.StatusOK, "failed workflow")
		nodes = graphNodes(r.Body)
		for name, class := range map[string]string{"extract": "node-succeeded", "transform": "node-failed", "load": "node-skipped", "report": "node-skipped"} {
			if nodes[name][0] != class {
				t.Errorf("failed workflow: node %s is %q, want %s", name, nodes[name][0], class)
			}
		}
		wantContains(t, r.Body, "failed workflow", `class="state wfstate-failed"`, `id="retry-workflow"`,
			`href="/jobs/etl/`+f.Failed+`~transform"`, "kept for 1d 0h")
		wantLacks(t, r.Body, "failed workflow", `id="cancel-workflow"`)

		// The table filtered by state.
		r = get(t, h, "/workflows/"+f.Failed+"?task_state=skipped")
		wantContains(t, r.Body, "skipped tasks", `data-task-row="load"`, `data-task-row="report"`, "of <strong>2</strong> skipped tasks", "Show every task")
		wantLacks(t, r.Body, "skipped tasks", `data-task-row="extract"`)

		// The escaped name.
		r = get(t, h, "/workflows/"+f.Succeeded)
		wantStatus(t, r, http.StatusOK, "succeeded workflow")
		wantContains(t, r.Body, "succeeded workflow", esc(dashtest.XSSText), `class="state wfstate-succeeded"`, `data-fragment-idle`)
		wantLacks(t, r.Body, "succeeded workflow", dashtest.XSSText, `id="retry-workflow"`, `id="cancel-workflow"`)
	})
}

func TestWorkflowPageFragment(t *testing.T) {
	s := newMem()
	f := dashtest.SeedWorkflows(t, s)
	h := newHandler(s, nil)
	r := get(t, h, "/workflows/"+f.Running+"?task_state=enqueued&fragment=1")
	wantStatus(t, r, http.StatusOK, "fragment")
	if !strings.HasPrefix(r.Body, `<div id="workflow-live" data-version="`) {
		t.Errorf("fragment starts %.80q", r.Body)
	}
	wantContains(t, r.Body, "fragment", `<svg class="wf-graph"`, `data-fragment="/workflows/`+f.Running+`?task_state=enqueued&amp;fragment=1"`)
	wantLacks(t, r.Body, "fragment", "<html", "<nav class=\"mainnav\"")
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || r.Header.Get("Content-Security-Policy") == "" {
		t.Errorf("fragment headers %v", r.Header)
	}
	version := regexp.MustCompile(`data-version="([^"]+)"`)
	v1 := version.FindStringSubmatch(r.Body)[1]
	if v := version.FindStringSubmatch(get(t, h, "/workflows/"+f.Running+"?task_state=enqueued&fragment=1").Body)[1]; v != v1 {
		t.Errorf("version changed from %s to %s with nothing changed", v1, v)
	}
	// The version is the fragment's ETag: unchanged, it is not sent again.
	if etag := r.Header.Get("ETag"); etag != `"`+v1+`"` {
		t.Errorf("ETag %q, want the version %q", etag, v1)
	}
	req := newRequest(http.MethodGet, "/workflows/"+f.Running+"?task_state=enqueued&fragment=1", nil)
	req.Header.Set("If-None-Match", `"`+v1+`"`)
	if r := serve(h, req); r.Code != http.StatusNotModified || r.Body != "" {
		t.Errorf("unchanged fragment: %d, %d bytes; want 304 and no body", r.Code, len(r.Body))
	}
	dashtest.Finish(t, s, f.RunningJob, hopper.OutcomeAck)
	if r := serve(h, req); r.Code != http.StatusOK {
		t.Errorf("changed fragment with the old ETag: %d, want 200", r.Code)
	}
	if v := version.FindStringSubmatch(get(t, h, "/workflows/"+f.Running+"?task_state=enqueued&fragment=1").Body)[1]; v == v1 {
		t.Errorf("version %s unchanged after a task succeeded", v)
	}
	r = get(t, h, "/workflows?fragment=1")
	wantStatus(t, r, http.StatusOK, "list fragment")
	if !strings.HasPrefix(r.Body, `<div id="workflows-live" data-version="`) {
		t.Errorf("list fragment starts %.80q", r.Body)
	}

	// Without live updates, no page part refreshes.
	h = newHandler(s, &dashboard.Config{RefreshInterval: -1})
	for _, p := range []string{"/workflows", "/workflows/" + f.Running} {
		wantLacks(t, get(t, h, p).Body, p, "data-fragment=")
	}
}

// TestWorkflowPageLarge: a fan-out of 1,000 tasks and a chain of 60 are
// drawn within bounds, and the table lists every task.
func TestWorkflowPageLarge(t *testing.T) {
	s := newMem()
	c := hopper.NewClient(s, nil)
	wf := hopper.NewWorkflow("wide", &hopper.WorkflowOpts{ID: "wide"})
	split := hopper.AddTask(wf, "split", dashtest.StepArgs{Step: "split"}, nil)
	merge := hopper.AddTask(wf, "merge", dashtest.StepArgs{Step: "merge"}, nil)
	for i := range 1000 {
		merge.After(hopper.AddTask(wf, fmt.Sprintf("chunk-%04d", i), dashtest.ChunkArgs{Chunk: i}, nil).After(split))
	}
	if _, err := hopper.EnqueueWorkflow(t.Context(), c, wf); err != nil {
		t.Fatal(err)
	}
	dashtest.RunTask(t, s, "default", "wide", "split", hopper.OutcomeAck)
	// A failed chunk is among those drawn, however many there are.
	j := dashtest.Claim(t, s, "default")
	dashtest.Finish(t, s, j, hopper.OutcomeGarbage)
	_, failed, _ := hopper.TaskOf(j)

	h := newHandler(s, nil)
	r := get(t, h, "/workflows/wide")
	wantStatus(t, r, http.StatusOK, "wide workflow")
	nodes := graphNodes(r.Body)
	if len(nodes) != 1+11+1 {
		t.Errorf("%d task nodes drawn, want 13 (split, 11 chunks, merge)", len(nodes))
	}
	if nodes[failed][0] != "node-failed" {
		t.Errorf("the failed chunk %s is not drawn: %v", failed, nodes[failed])
	}
	wantContains(t, r.Body, "wide workflow", `class="node node-more" href="/workflows/wide#tasks"`, "&#43;989 more", "989 tasks drawn in groups",
		"Showing <strong>1–1,000</strong> of <strong>1,002</strong>", `href="/workflows/wide?task_page=2#tasks" rel="next"`)
	if n := strings.Count(r.Body, `<path class="edge`); n > 30 {
		t.Errorf("%d edges drawn for a fan-out drawn as 14 nodes", n)
	}
	if n := strings.Count(r.Body, `data-task-row=`); n != 1000 {
		t.Errorf("the table's first page has %d rows, want 1,000", n)
	}
	r = get(t, h, "/workflows/wide?task_page=2")
	if n := strings.Count(r.Body, `data-task-row=`); n != 2 {
		t.Errorf("the table's second page has %d rows, want 2", n)
	}
	// A page past the end is the last one, however large its number (one
	// too large for an int showed the first).
	for _, page := range []string{"999999", overflow} {
		if n := strings.Count(get(t, h, "/workflows/wide?task_page="+page).Body, `data-task-row=`); n != 2 {
			t.Errorf("task_page=%s has %d rows, want the last page's 2", page, n)
		}
	}
	// The merge task, on the second page, is linked there.
	wantContains(t, r.Body, "merge row", `<tr id="task-merge"`)
	wantContains(t, get(t, h, "/workflows/wide").Body, "merge link", `href="/workflows/wide?task_page=2#task-merge" data-task="merge"`)

	// A chain deeper than the drawing's columns: the middle is one node.
	chain := hopper.NewWorkflow("deep", &hopper.WorkflowOpts{ID: "deep"})
	var steps []*hopper.Task
	for i := range 60 {
		steps = append(steps, hopper.AddTask(chain, fmt.Sprintf("step-%02d", i), dashtest.StepArgs{Step: "s"}, &hopper.TaskOpts{Queue: "deep"}))
	}
	chain.Chain(steps...)
	if _, err := hopper.EnqueueWorkflow(t.Context(), c, chain); err != nil {
		t.Fatal(err)
	}
	r = get(t, h, "/workflows/deep")
	wantStatus(t, r, http.StatusOK, "deep workflow")
	if n := len(graphNodes(r.Body)); n != 23 {
		t.Errorf("%d task nodes drawn for a chain of 60, want 23 (24 columns, one collapsed)", n)
	}
	wantContains(t, r.Body, "deep workflow", "… 37 tasks", "37 tasks in 37 columns", "60 columns by depth")
	if m := regexp.MustCompile(`<svg class="wf-graph" width="(\d+)"`).FindStringSubmatch(r.Body); m == nil || len(m[1]) > 4 {
		t.Errorf("the drawing is %v wide", m)
	}
}

func TestWorkflowCancel(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)
		page := "/workflows/" + f.Running

		// The confirmation says exactly what happens.
		r := get(t, h, page+"/confirm?action=cancel")
		wantStatus(t, r, http.StatusOK, "confirm cancel")
		wantContains(t, r.Body, "confirm cancel", "Cancel workflow thumbnails?",
			`<strong data-confirm="waiting">1</strong> waiting task is cancelled`,
			`<strong data-confirm="enqueued">5</strong> enqueued tasks have their jobs cancelled`,
			`<strong data-confirm="queued">4</strong> waiting in their queues move to garbage`,
			`<strong data-confirm="running">1</strong> running is flagged`,
			`action="`+page+`/cancel"`, `name="confirm" value="1"`, `id="confirm-workflow"`)

		// Unconfirmed, the action leads there and changes nothing.
		r = post(t, h, page+"/cancel", nil)
		wantRedirect(t, r, page+"/confirm?action=cancel", "unconfirmed cancel")
		if st := dashtest.TaskStates(t, s, f.Running)["merge"]; st != hopper.TaskWaiting {
			t.Fatalf("merge is %s after an unconfirmed cancel", st)
		}

		r = post(t, h, page+"/cancel", url.Values{"confirm": {"1"}})
		wantRedirect(t, r, page+"?flash=wfcancelled&n=5", "cancel")
		states := dashtest.TaskStates(t, s, f.Running)
		for name, st := range states {
			want := hopper.TaskCancelled
			switch name {
			case "split":
				want = hopper.TaskSucceeded
			case f.RunningTask:
				want = hopper.TaskEnqueued // flagged; it ends when its handler stops
			}
			if st != want {
				t.Errorf("after cancel: %s is %s, want %s", name, st, want)
			}
		}
		r = get(t, h, r.Header.Get("Location"))
		wantContains(t, r.Body, "after cancel", "Cancelled the workflow: 5 tasks will not run", ">cancelling<", `data-task-count="cancelled">5<`)
		wantLacks(t, r.Body, "after cancel", `id="cancel-workflow"`, `id="retry-workflow"`)
		wantContains(t, get(t, h, page+"/confirm?action=cancel").Body, "cancel again", "already cancelled")

		// The running task ends: the workflow is cancelled; cancelling it
		// again does nothing, and it cannot be retried.
		dashtest.Finish(t, s, f.RunningJob, hopper.OutcomeCancel)
		if st := dashtest.WorkflowState(t, s, f.Running); st != hopper.WorkflowCancelled {
			t.Fatalf("workflow %s after its last task stopped, want cancelled", st)
		}
		wantRedirect(t, post(t, h, page+"/cancel", url.Values{"confirm": {"1"}}), page+"?flash=wfended", "cancel an ended workflow")
		wantStatus(t, post(t, h, page+"/retry", url.Values{"confirm": {"1"}}), http.StatusConflict, "retry a cancelled workflow")
		wantContains(t, get(t, h, page+"/confirm?action=retry").Body, "confirm retry of a cancelled workflow", "cannot be retried")
	})
}

func TestWorkflowRetry(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)
		page := "/workflows/" + f.Failed

		r := get(t, h, page+"/confirm?action=retry")
		wantStatus(t, r, http.StatusOK, "confirm retry")
		wantContains(t, r.Body, "confirm retry", "Retry the failed tasks of nightly etl?",
			`<strong data-confirm="requeue">1</strong> failed task's job moves from garbage to ready`,
			"(2 tasks are skipped now)", `action="`+page+`/retry"`)

		wantRedirect(t, post(t, h, page+"/retry", nil), page+"/confirm?action=retry", "unconfirmed retry")
		if st := dashtest.TaskStates(t, s, f.Failed)["transform"]; st != hopper.TaskFailed {
			t.Fatalf("transform is %s after an unconfirmed retry", st)
		}
		r = post(t, h, page+"/retry", url.Values{"confirm": {"1"}})
		wantRedirect(t, r, page+"?flash=wfretried&n=1", "retry")
		want := map[string]hopper.TaskState{"extract": hopper.TaskSucceeded, "transform": hopper.TaskEnqueued, "load": hopper.TaskWaiting, "report": hopper.TaskWaiting}
		if got := dashtest.TaskStates(t, s, f.Failed); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("after retry: %v, want %v", got, want)
		}
		if st := dashtest.JobState(t, s, "etl", f.Failed+"~transform"); st != hopper.StateReady {
			t.Errorf("transform's job is %s, want ready", st)
		}
		r = get(t, h, r.Header.Get("Location"))
		wantContains(t, r.Body, "after retry", "Requeued the jobs of 1 failed task: the workflow runs again.", `class="state wfstate-running"`, `id="cancel-workflow"`)

		// Nothing failed any more: nothing to confirm, nothing done.
		wantContains(t, get(t, h, page+"/confirm?action=retry").Body, "nothing to retry", "No task has failed")
		wantRedirect(t, post(t, h, page+"/retry", url.Values{"confirm": {"1"}}), page+"?flash=wfretried&n=0", "retry with nothing failed")
	})
}

func TestWorkflowActionsGuarded(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.SeedWorkflows(t, s)
		actions := []string{"/workflows/" + f.Running + "/cancel", "/workflows/" + f.Failed + "/retry"}

		// Read-only: no buttons, no confirmation, no action.
		h := newHandler(s, &dashboard.Config{ReadOnly: true})
		for _, p := range []string{"/workflows/" + f.Running, "/workflows/" + f.Failed} {
			r := get(t, h, p)
			wantStatus(t, r, http.StatusOK, "read-only "+p)
			wantLacks(t, r.Body, "read-only "+p, `id="cancel-workflow"`, `id="retry-workflow"`, `method="post"`)
			wantStatus(t, get(t, h, p+"/confirm?action=cancel"), http.StatusForbidden, "read-only confirm")
		}
		for _, p := range actions {
			wantStatus(t, post(t, h, p, url.Values{"confirm": {"1"}}), http.StatusForbidden, "read-only "+p)
		}

		// From another origin, or by GET: refused.
		h = newHandler(s, nil)
		for _, p := range actions {
			req := newRequest(http.MethodPost, p, url.Values{"confirm": {"1"}})
			req.Header.Set("Sec-Fetch-Site", "cross-site")
			req.Header.Set("Origin", "https://evil.example")
			wantStatus(t, serve(h, req), http.StatusForbidden, "cross-origin "+p)
			wantStatus(t, get(t, h, p), http.StatusMethodNotAllowed, "GET "+p)
		}
		if st := dashtest.WorkflowState(t, s, f.Failed); st != hopper.WorkflowFailed {
			t.Errorf("refused actions changed the failed workflow to %s", st)
		}
		if st := dashtest.TaskStates(t, s, f.Running)["merge"]; st != hopper.TaskWaiting {
			t.Errorf("refused actions changed merge to %s", st)
		}
	})
}

func TestWorkflowActionsAudited(t *testing.T) {
	s := newMem()
	f := dashtest.SeedWorkflows(t, s)
	var buf strings.Builder
	h := dashboard.New(s, &dashboard.Config{Logger: slog.New(slog.NewTextHandler(&buf, nil)), BasicAuth: &dashboard.BasicAuth{User: "ops", Password: "pw"}})
	r := doAuth(t, h, http.MethodPost, "/workflows/"+f.Failed+"/retry", url.Values{"confirm": {"1"}}, "ops", "pw")
	wantStatus(t, r, http.StatusSeeOther, "retry")
	for _, want := range []string{`msg="dashboard: action"`, "action=/workflows/" + f.Failed + "/retry", "affected=1", "user=ops", "workflow=" + f.Failed} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("audit log lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestJobPageWorkflow(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		wf := dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)

		r := get(t, h, "/jobs/etl/"+wf.Failed+"~transform")
		wantStatus(t, r, http.StatusOK, "task job")
		wantContains(t, r.Body, "task job", `id="workflow-panel"`,
			`<a id="workflow-link" href="/workflows/`+wf.Failed+`">nightly etl</a>`,
			`href="/workflows/`+wf.Failed+`#task-transform">transform</a> <span class="state taskstate-failed"`,
			// its dependency, with its state and job; its dependent, skipped, on its row
			`<a class="mono" href="/jobs/etl/`+wf.Failed+`~extract">extract</a> <span class="state taskstate-succeeded"`,
			`<a class="mono" href="/workflows/`+wf.Failed+`#task-load">load</a> <span class="state taskstate-skipped"`,
			`class="state wfstate-failed"`)

		r = get(t, h, "/jobs/fan/"+wf.Running+"~split")
		wantContains(t, r.Body, "first task", "nothing: it runs first", `href="/jobs/fan/`+wf.Running+`~chunk-0">chunk-0</a>`)

		// A job that is no task has no panel.
		wantLacks(t, get(t, h, "/jobs/default/"+f.Garbage[0]).Body, "plain job", `id="workflow-panel"`)

		// A task that never ran has no job: its link leads back to the
		// workflow.
		r = get(t, h, "/jobs/etl/"+wf.Failed+"~load")
		wantStatus(t, r, http.StatusNotFound, "skipped task's job")
		wantContains(t, r.Body, "skipped task's job", "task load of workflow "+wf.Failed, `href="/workflows/`+wf.Failed+`">Open the workflow</a>`)

		// A workflow that is gone leaves the task's name.
		if _, err := s.Enqueue(t.Context(), []*store.NewJob{{ID: store.TaskJobID("gone", "t"), Queue: "default", Kind: "x",
			JobSpec: store.JobSpec{Meta: map[string]string{store.MetaWorkflow: "gone", store.MetaTask: "t"}}}}); err != nil {
			t.Fatal(err)
		}
		r = get(t, h, "/jobs/default/gone~t")
		wantStatus(t, r, http.StatusOK, "task of a gone workflow")
		wantContains(t, r.Body, "task of a gone workflow", `id="workflow-panel"`, "The workflow is gone")
		wantLacks(t, r.Body, "task of a gone workflow", `href="/workflows/gone"`)
	})
}

func TestWorkflowJSON(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)
		var list struct {
			Total     int
			Counts    map[string]int
			Workflows []struct {
				ID, Name, State string
				TaskCount       int `json:"task_count"`
				Counts          map[string]int
				URL             string
				Tasks           []any
			}
		}
		r := get(t, h, "/api/workflows?state=failed")
		wantStatus(t, r, http.StatusOK, "list JSON")
		if err := json.Unmarshal([]byte(r.Body), &list); err != nil {
			t.Fatal(err)
		}
		if list.Total != 1 || len(list.Workflows) != 1 || list.Counts["running"] != 1 || list.Counts["cancelled"] != 0 {
			t.Fatalf("list JSON: %+v", list)
		}
		w := list.Workflows[0]
		if w.ID != f.Failed || w.Name != "nightly etl" || w.State != "failed" || w.TaskCount != 4 || w.Counts["skipped"] != 2 ||
			w.URL != "/workflows/"+f.Failed || w.Tasks != nil {
			t.Errorf("listed workflow %+v", w)
		}

		var one struct {
			ID, State string
			CreatedAt *time.Time `json:"created_at"`
			EndedAt   *time.Time `json:"ended_at"`
			Tasks     []struct {
				Name, Queue, Kind, State string
				JobID                    string `json:"job_id"`
				JobURL                   string `json:"job_url"`
				Deps                     []string
			}
		}
		r = get(t, h, "/api/workflows/"+f.Running)
		wantStatus(t, r, http.StatusOK, "workflow JSON")
		if err := json.Unmarshal([]byte(r.Body), &one); err != nil {
			t.Fatal(err)
		}
		if one.ID != f.Running || one.State != "running" || one.CreatedAt == nil || one.EndedAt != nil || len(one.Tasks) != 2+dashtest.FanOutWidth {
			t.Fatalf("workflow JSON: %+v", one)
		}
		for _, task := range one.Tasks {
			switch task.Name {
			case "split":
				if task.State != "succeeded" || task.Queue != "fan" || task.Kind != "etl_step" || len(task.Deps) != 0 || task.JobURL != "/jobs/fan/"+f.Running+"~split" {
					t.Errorf("split: %+v", task)
				}
			case "merge":
				if task.State != "waiting" || len(task.Deps) != dashtest.FanOutWidth || task.JobURL != "" || task.JobID != f.Running+"~merge" {
					t.Errorf("merge: %+v", task)
				}
			}
		}
		wantLacks(t, get(t, h, "/api/workflows/"+f.Succeeded).Body, "escaped JSON", dashtest.XSSText)
	})
}

// TestWorkflowBadInput: malformed and unknown IDs, states and actions are
// answered 400 or 404, never 500.
func TestWorkflowBadInput(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)
		long := strings.Repeat("x", 65)
		for path, want := range map[string]int{
			"/workflows/nope":                                     http.StatusNotFound,
			"/workflows/bad%20id":                                 http.StatusNotFound,
			"/workflows/a~b":                                      http.StatusNotFound,
			"/workflows/%3Cscript%3E":                             http.StatusNotFound,
			"/workflows/" + long:                                  http.StatusNotFound,
			"/workflows/nope/confirm?action=cancel":               http.StatusNotFound,
			"/workflows/" + f.Running + "/confirm?action=explode": http.StatusBadRequest,
			"/workflows/" + f.Running + "/confirm":                http.StatusBadRequest,
			"/workflows?state=bogus":                              http.StatusBadRequest,
			"/workflows?state=%3Cb%3E":                            http.StatusBadRequest,
			"/api/workflows/nope":                                 http.StatusNotFound,
			"/api/workflows/bad%20id":                             http.StatusNotFound,
			"/api/workflows/" + long:                              http.StatusNotFound,
			"/api/workflows?state=bogus":                          http.StatusBadRequest,
			// Odd queries are ignored.
			"/workflows/" + f.Running + "?task_state=bogus&task_page=-3":  http.StatusOK,
			"/workflows/" + f.Running + "?task_page=99999999999999999999": http.StatusOK,
			"/workflows?page=-1&q=" + strings.Repeat("%3C", 300):          http.StatusOK,
			"/workflows?page=9223372036854775807":                         http.StatusOK,
			"/api/workflows?page=9223372036854775807":                     http.StatusOK,
			"/queues/default/ready?page=9223372036854775807":              http.StatusOK, // the jobs list alike
			"/workflows/": http.StatusFound,
		} {
			r := get(t, h, path)
			if r.Code != want {
				t.Errorf("GET %s: status %d, want %d; body:\n%.500s", path, r.Code, want, r.Body)
			}
			wantLacks(t, r.Body, path, "<script>", "<b>")
		}
		for _, p := range []string{"/workflows/nope/cancel", "/workflows/bad%20id/retry", "/workflows/" + long + "/cancel"} {
			wantStatus(t, post(t, h, p, url.Values{"confirm": {"1"}}), http.StatusNotFound, "POST "+p)
		}
	})
}

// adminOnly is a store with store.Admin but without store.Workflows.
type adminOnly struct {
	hopper.Store
	store.Admin
}

// On a store without workflows, the list says so and the rest answers 501.
func TestWorkflowsUnsupported(t *testing.T) {
	m := memstore.New(nil)
	s := adminOnly{m, m}
	if hopper.NewInspector(s).WorkflowsSupported() {
		t.Fatal("the wrapper runs workflows")
	}
	h := newHandler(s, nil)
	r := get(t, h, "/workflows")
	wantStatus(t, r, http.StatusOK, "list")
	wantContains(t, r.Body, "list", "Workflows are not supported by this store", "does not run workflows")
	for _, p := range []string{"/workflows/x", "/workflows/x/confirm?action=cancel", "/api/workflows", "/api/workflows/x"} {
		r := get(t, h, p)
		wantStatus(t, r, http.StatusNotImplemented, p)
		wantContains(t, r.Body, p, "not supported by this store")
	}
	wantStatus(t, post(t, h, "/workflows/x/cancel", url.Values{"confirm": {"1"}}), http.StatusNotImplemented, "cancel")

	// A task's job page still shows, with what its metadata says.
	if _, err := m.Enqueue(context.Background(), []*store.NewJob{{ID: "wf~t", Queue: "default", Kind: "x",
		JobSpec: store.JobSpec{Meta: map[string]string{store.MetaWorkflow: "wf", store.MetaTask: "t"}}}}); err != nil {
		t.Fatal(err)
	}
	r = get(t, h, "/jobs/default/wf~t")
	wantStatus(t, r, http.StatusOK, "task job")
	wantContains(t, r.Body, "task job", `id="workflow-panel"`, "does not run workflows")
}

// TestWorkflowPagesSafe: no workflow page carries an inline script or
// style, and every link of them works, at the root and under a prefix.
func TestWorkflowPagesSafe(t *testing.T) {
	s := newMem()
	f := dashtest.SeedWorkflows(t, s)
	h := newHandler(s, nil)
	for _, p := range []string{"/workflows", "/workflows/" + f.Running, "/workflows/" + f.Failed + "/confirm?action=retry", "/workflows/" + f.Running + "?fragment=1"} {
		body := get(t, h, p).Body
		for _, tag := range strings.Split(body, "<script")[1:] {
			if !strings.HasPrefix(tag, " src=") {
				t.Errorf("%s: inline script: <script%.60s", p, tag)
			}
		}
		for _, attr := range []string{" onclick=", " onload=", " onerror=", " style=", "javascript:"} {
			if strings.Contains(body, attr) {
				t.Errorf("%s: page holds %q", p, attr)
			}
		}
	}
}

func TestEveryWorkflowLinkWorks(t *testing.T) {
	for _, prefix := range []string{"", "/admin/jobs"} {
		t.Run("prefix="+prefix, func(t *testing.T) {
			eachStore(t, func(t *testing.T, s hopper.Store) {
				dashtest.SeedWorkflows(t, s)
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
