package browsertest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// seedWideWorkflow adds a workflow wider than the drawing shows: a split,
// 40 chunks (one failed, five running) and a merge, in queue "wide".
func seedWideWorkflow(t *testing.T, s hopper.Store) {
	t.Helper()
	wf := hopper.NewWorkflow("resize 40 images", &hopper.WorkflowOpts{ID: "wide-1"})
	opts := &hopper.TaskOpts{Queue: "wide", MaxRetries: hopper.NoRetry}
	split := hopper.AddTask(wf, "split", dashtest.StepArgs{Step: "split"}, opts)
	merge := hopper.AddTask(wf, "merge", dashtest.StepArgs{Step: "merge"}, opts)
	for i := range 40 {
		merge.After(hopper.AddTask(wf, fmt.Sprintf("resize-%02d", i), dashtest.ChunkArgs{Chunk: i}, opts).After(split))
	}
	hopper.AddTask(wf, "notify", dashtest.StepArgs{Step: "notify"}, opts).After(merge).AnyOutcome()
	if _, err := hopper.EnqueueWorkflow(context.Background(), hopper.NewClient(s, nil), wf); err != nil {
		t.Fatal(err)
	}
	dashtest.RunTask(t, s, "wide", "wide-1", "split", hopper.OutcomeAck)
	for i := range 12 {
		j := dashtest.Claim(t, s, "wide")
		switch {
		case i == 3:
			dashtest.Finish(t, s, j, hopper.OutcomeGarbage)
		case i < 7:
			dashtest.Finish(t, s, j, hopper.OutcomeAck)
		}
		// the others stay running
	}
}

func TestBrowserWorkflows(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)
	t.Logf("screenshots: %s", shots)

	t.Run("GraphLiveCancelRetry", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		f := dashtest.SeedWorkflows(t, s.st)
		seedWideWorkflow(t, s.st)
		tab := newTab(t, browser, nil)

		nav(t, tab, s, "/workflows", "table.workflows")
		if n := textOfJS(t, tab, "String(document.querySelectorAll('tr[data-workflow-row]').length)"); n != "4" {
			t.Errorf("the list shows %s workflows, want 4", n)
		}
		if got := textOf(t, tab, `[data-wf-count="running"]`); got != "2" {
			t.Errorf("running tab counts %q, want 2", got)
		}
		screenshot(t, tab, shots, "30-workflows")

		// The running fan-out: one node per task, coloured by state.
		nav(t, tab, s, "/workflows/"+f.Running, "svg.wf-graph a.node")
		if n := textOfJS(t, tab, "String(document.querySelectorAll('svg.wf-graph a.node[data-task]').length)"); n != fmt.Sprint(2+dashtest.FanOutWidth) {
			t.Errorf("the graph has %s task nodes, want %d", n, 2+dashtest.FanOutWidth)
		}
		node := func(task string) string { return `svg.wf-graph a.node[data-task="` + task + `"]` }
		if fill := textOfJS(t, tab, "getComputedStyle(document.querySelector('"+node("split")+" rect')).fill"); fill != "rgb(240, 253, 244)" {
			t.Errorf("the succeeded node is filled %q: app.css did not style the graph", fill)
		}
		if w := textOfJS(t, tab, "String(document.querySelector('svg.wf-graph').getBoundingClientRect().width > 600)"); w != "true" {
			t.Errorf("the graph is not drawn at its size")
		}
		screenshot(t, tab, shots, "31-workflow-running")

		// Live: a task that succeeds turns green, without a reload.
		if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void]("window.__noReload = 'still here'")); err != nil {
			t.Fatal(err)
		}
		dashtest.Finish(t, s.st, f.RunningJob, hopper.OutcomeAck)
		waitFor(t, tab, "document.querySelector('"+node(f.RunningTask)+"').classList.contains('node-succeeded')", "the finished task's node to turn succeeded")
		if got := textOf(t, tab, `[data-task-count="succeeded"]`); got != "2" {
			t.Errorf("succeeded count %q after the task ended, want 2", got)
		}
		if v := textOfJS(t, tab, "String(window.__noReload)"); v != "still here" {
			t.Errorf("the page was reloaded (mark is %q)", v)
		}
		// Refreshes that find nothing new (304 Not Modified) swap nothing
		// and keep the page live.
		waitFor(t, tab, "Number(document.body.dataset.fragmentUpdates) > Number(document.body.dataset.fragmentSwaps) + 2", "refreshes without a change")
		if cls := textOfJS(t, tab, "document.getElementById('live-status').className"); strings.Contains(cls, "stale") {
			t.Errorf("the live status is %q after unchanged refreshes", cls)
		}

		// A node links to its task's job.
		clickAndLoad(t, tab, node("split"))
		if got := textOf(t, tab, "#job-id"); got != f.Running+"~split" {
			t.Errorf("the split node led to job %q", got)
		}
		if got := textOf(t, tab, "#workflow-link"); got != "thumbnails" {
			t.Errorf("the job page's workflow link says %q", got)
		}
		screenshot(t, tab, shots, "32-workflow-task-job")
		clickAndLoad(t, tab, "#workflow-link")

		// Cancel, through the confirmation page.
		clickAndLoad(t, tab, "#cancel-workflow")
		if got := textOf(t, tab, `[data-confirm="waiting"]`); got != "1" {
			t.Errorf("the confirmation counts %q waiting tasks, want 1", got)
		}
		if got := textOf(t, tab, `[data-confirm="enqueued"]`); got != fmt.Sprint(dashtest.FanOutWidth-1) {
			t.Errorf("the confirmation counts %q enqueued tasks, want %d", got, dashtest.FanOutWidth-1)
		}
		screenshot(t, tab, shots, "33-workflow-confirm-cancel")
		clickAndLoad(t, tab, "#confirm-workflow")
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Cancelled the workflow") {
			t.Errorf("flash %q after cancel", got)
		}
		if st := dashtest.WorkflowState(t, s.st, f.Running); st != hopper.WorkflowCancelled {
			t.Errorf("the workflow is %s after cancel, want cancelled", st)
		}
		waitFor(t, tab, "document.querySelectorAll('svg.wf-graph a.node-cancelled').length === "+fmt.Sprint(dashtest.FanOutWidth), "the cancelled nodes")
		screenshot(t, tab, shots, "34-workflow-cancelled")

		// Retry the failed ETL's failed task, through the confirmation page.
		nav(t, tab, s, "/workflows/"+f.Failed, "svg.wf-graph a.node")
		if cls := textOfJS(t, tab, "document.querySelector('"+node("transform")+"').getAttribute('class')"); cls != "node node-failed" {
			t.Errorf("transform's node is %q, want failed", cls)
		}
		screenshot(t, tab, shots, "35-workflow-failed")
		clickAndLoad(t, tab, "#retry-workflow")
		if got := textOf(t, tab, `[data-confirm="requeue"]`); got != "1" {
			t.Errorf("the confirmation counts %q jobs to requeue, want 1", got)
		}
		screenshot(t, tab, shots, "36-workflow-confirm-retry")
		clickAndLoad(t, tab, "#confirm-workflow")
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Requeued the jobs of 1 failed task") {
			t.Errorf("flash %q after retry", got)
		}
		if cls := textOfJS(t, tab, "document.querySelector('"+node("transform")+"').getAttribute('class')"); cls != "node node-enqueued" {
			t.Errorf("transform's node is %q after the retry, want enqueued", cls)
		}
		if st := dashtest.JobState(t, s.st, "etl", f.Failed+"~transform"); st != hopper.StateReady {
			t.Errorf("transform's job is %q after the retry, want ready", st)
		}
		screenshot(t, tab, shots, "37-workflow-retried")

		// A workflow wider than the drawing: a "+k more" node, and the
		// table lists every task.
		nav(t, tab, s, "/workflows/wide-1", "svg.wf-graph a.node-more")
		if got := textOf(t, tab, "svg.wf-graph a.node-more .node-label"); got != "+29 more" {
			t.Errorf("the collapsed node says %q, want +29 more", got)
		}
		if n := textOfJS(t, tab, "String(document.querySelectorAll('tr[data-task-row]').length)"); n != "43" {
			t.Errorf("the table has %s rows, want 43", n)
		}
		screenshot(t, tab, shots, "38-workflow-wide")
	})

	t.Run("WorkflowPagesWithoutJavaScript", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, nil)
		f := dashtest.SeedWorkflows(t, s.st)
		tab := newTab(t, browser, nil)
		if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		nav(t, tab, s, "/workflows/"+f.Running, "svg.wf-graph a.node")
		clickAndLoad(t, tab, "#cancel-workflow")
		clickAndLoad(t, tab, "#confirm-workflow")
		if got := textOf(t, tab, ".flash-ok"); !strings.Contains(got, "Cancelled the workflow") {
			t.Errorf("flash %q after cancel without JavaScript", got)
		}
		if st := dashtest.TaskStates(t, s.st, f.Running)["merge"]; st != hopper.TaskCancelled {
			t.Errorf("merge is %s after cancel without JavaScript", st)
		}
	})
}
