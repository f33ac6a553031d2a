package main

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

type stepArgs struct {
	Step string `msgpack:"step"`
}

func (stepArgs) Kind() string { return "etl_step" }

// seedWorkflows enqueues two workflows: "etl-1", a chain in queue "etl"
// whose extract succeeded and transform failed (load skipped: the
// workflow failed), and "fan-1", running in queue "fan": split succeeded,
// a and b ready, merge waiting for them.
func seedWorkflows(t *testing.T, s hopper.Store) {
	t.Helper()
	ctx := context.Background()
	c := hopper.NewClient(s, nil)
	opts := func(q string) *hopper.TaskOpts { return &hopper.TaskOpts{Queue: q, MaxRetries: hopper.NoRetry} }
	run := func(queue, want string, o hopper.Outcome) {
		t.Helper()
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: queue, Max: 1, Lease: time.Hour})
		if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != want {
			t.Fatalf("claim from %s: %v, %v; want %s", queue, res.Jobs, err, want)
		}
		j := res.Jobs[0]
		req := store.AttemptEnd{Queue: queue, ID: j.ID, Token: j.Token, Outcome: o}
		if o != hopper.OutcomeAck {
			req.Error = &store.AttemptError{Attempt: 1, Error: "boom"}
		}
		if errs, err := s.Finish(ctx, []store.AttemptEnd{req}); err != nil || errs[0] != nil {
			t.Fatal(err, errs)
		}
	}
	etl := hopper.NewWorkflow("nightly etl", &hopper.WorkflowOpts{ID: "etl-1"})
	etl.Chain(
		hopper.AddTask(etl, "extract", stepArgs{"extract"}, opts("etl")),
		hopper.AddTask(etl, "transform", stepArgs{"transform"}, opts("etl")),
		hopper.AddTask(etl, "load", stepArgs{"load"}, opts("etl")),
	)
	fan := hopper.NewWorkflow("thumbnails", &hopper.WorkflowOpts{ID: "fan-1"})
	split := hopper.AddTask(fan, "split", stepArgs{"split"}, opts("fan"))
	hopper.AddTask(fan, "merge", stepArgs{"merge"}, opts("fan")).After(
		hopper.AddTask(fan, "a", stepArgs{"a"}, opts("fan")).After(split),
		hopper.AddTask(fan, "b", stepArgs{"b"}, opts("fan")).After(split),
	).AnyOutcome()
	for _, wf := range []*hopper.Workflow{etl, fan} {
		if _, err := hopper.EnqueueWorkflow(ctx, c, wf); err != nil {
			t.Fatal(err)
		}
	}
	run("etl", "etl-1~extract", hopper.OutcomeAck)
	run("etl", "etl-1~transform", hopper.OutcomeGarbage)
	run("fan", "fan-1~split", hopper.OutcomeAck)
}

func TestWorkflowsList(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		seedWorkflows(t, c.store)
		r := c.run(t, "workflows", "list")
		wantCode(t, r, 0, "workflows list")
		wantOut(t, r.stdout, "workflows list", "ID", "NAME", "STATE", "etl-1", "nightly etl", "fan-1", "thumbnails",
			"1 succeeded, 1 failed, 1 skipped", "2 of 2 workflows (in all: running 1, succeeded 0, failed 1, cancelled 0)")
		if !regexp.MustCompile(`etl-1\s+nightly etl\s+failed\s+3/3`).MatchString(r.stdout) || !regexp.MustCompile(`fan-1\s+thumbnails\s+running\s+1/4`).MatchString(r.stdout) {
			t.Errorf("workflows list rows:\n%s", r.stdout)
		}

		r = c.run(t, "workflows", "list", "--state", "failed")
		wantCode(t, r, 0, "list --state")
		wantOut(t, r.stdout, "list --state", "etl-1", "1 of 1 workflows")
		if strings.Contains(r.stdout, "fan-1") {
			t.Errorf("list --state failed shows a running workflow:\n%s", r.stdout)
		}
		r = c.run(t, "workflows", "list", "--search", "thumb")
		wantOut(t, r.stdout, "list --search", "fan-1", "1 of 1 matches")

		r = c.run(t, "workflows", "list", "--json")
		wantCode(t, r, 0, "list --json")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != 2 {
			t.Fatalf("list --json printed %d lines:\n%s", len(lines), r.stdout)
		}
		var w struct {
			ID, State string
			TaskCount int `json:"task_count"`
			Counts    map[string]int
		}
		if err := json.Unmarshal([]byte(lines[0]), &w); err != nil || w.ID != "fan-1" || w.State != "running" || w.TaskCount != 4 || w.Counts["enqueued"] != 2 {
			t.Errorf("list --json: %+v, %v", w, err)
		}

		wantBadUsage(t, c.run(t, "workflows", "list", "--state", "bogus"), "bad state", `hopper workflows list: --state "bogus": want running`)
		wantCode(t, c.run(t, "workflows", "list", "extra"), 2, "extra argument")
		wantCode(t, c.run(t, "workflows"), 2, "no subcommand")
		wantCode(t, c.run(t, "workflows", "explode"), 2, "unknown subcommand")
	})
}

func TestWorkflowsShow(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		seedWorkflows(t, c.store)
		r := c.run(t, "workflows", "show", "etl-1")
		wantCode(t, r, 0, "workflows show")
		wantOut(t, r.stdout, "workflows show", "ID:        etl-1", "Name:      nightly etl", "State:     failed", "Ended:", "Kept:      24h0m0s after it ended",
			"Tasks:     3: 1 succeeded, 1 failed, 1 skipped", "NAME")
		for _, row := range []string{`extract\s+succeeded\s+etl\s+etl_step\s+-`, `transform\s+failed\s+etl\s+etl_step\s+extract`, `load\s+skipped\s+etl\s+etl_step\s+transform`} {
			if !regexp.MustCompile(row).MatchString(r.stdout) {
				t.Errorf("workflows show lacks a row matching %s:\n%s", row, r.stdout)
			}
		}
		r = c.run(t, "workflows", "show", "fan-1")
		wantOut(t, r.stdout, "show running", "State:     running", "Running:   for ", "merge (any outcome)")
		if !regexp.MustCompile(`merge \(any outcome\)\s+waiting\s+fan\s+etl_step\s+a,b`).MatchString(r.stdout) {
			t.Errorf("workflows show fan-1:\n%s", r.stdout)
		}

		r = c.run(t, "workflows", "show", "fan-1", "--json")
		wantCode(t, r, 0, "show --json")
		var w struct {
			ID, State string
			Tasks     []struct {
				Name, State, Queue, Kind string
				JobID                    string `json:"job_id"`
				Deps                     []string
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &w); err != nil || w.ID != "fan-1" || len(w.Tasks) != 4 {
			t.Fatalf("show --json: %+v, %v", w, err)
		}
		for _, task := range w.Tasks {
			if task.Name == "merge" && (task.State != "waiting" || strings.Join(task.Deps, ",") != "a,b" || task.JobID != "fan-1~merge") {
				t.Errorf("merge in JSON: %+v", task)
			}
		}

		r = c.run(t, "workflows", "show", "nope")
		wantCode(t, r, 1, "show unknown")
		wantOut(t, r.stderr, "show unknown", `no workflow "nope"`)
		wantBadUsage(t, c.run(t, "workflows", "show", "bad id"), "show a malformed ID", `hopper workflows show: invalid workflow: workflow ID "bad id" has " "`)
		wantCode(t, c.run(t, "workflows", "show"), 2, "show without ID")
	})
}

func TestWorkflowsCancelRetry(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		seedWorkflows(t, c.store)
		ins := hopper.NewInspector(c.store)
		r := c.run(t, "workflows", "retry", "etl-1")
		wantCode(t, r, 0, "retry")
		wantOut(t, r.stdout, "retry", "requeued the jobs of 1 failed task of etl-1")
		if rec, err := ins.GetWorkflow(t.Context(), "etl-1"); err != nil || rec.State != hopper.WorkflowRunning || rec.Counts[hopper.TaskWaiting] != 1 {
			t.Errorf("after retry: %+v, %v", rec, err)
		}
		r = c.run(t, "workflows", "retry", "etl-1")
		wantOut(t, r.stdout, "retry again", "etl-1: no failed task's job to requeue")

		r = c.run(t, "workflows", "cancel", "fan-1")
		wantCode(t, r, 0, "cancel")
		wantOut(t, r.stdout, "cancel", "cancelled workflow fan-1: 3 tasks will not run")
		if rec, err := ins.GetWorkflow(t.Context(), "fan-1"); err != nil || rec.State != hopper.WorkflowCancelled {
			t.Errorf("after cancel: %+v, %v", rec, err)
		}
		r = c.run(t, "workflows", "cancel", "fan-1", "nope")
		wantCode(t, r, 1, "cancel an ended and an unknown workflow")
		wantOut(t, r.stdout, "cancel again", "fan-1 has already ended (cancelled): nothing to cancel")
		wantOut(t, r.stderr, "cancel unknown", `nope: no workflow "nope"`, "1 of 2 workflows not cancelled")

		r = c.run(t, "workflows", "retry", "fan-1")
		wantCode(t, r, 1, "retry a cancelled workflow")
		wantOut(t, r.stderr, "retry a cancelled workflow", "cannot be retried")
		wantCode(t, c.run(t, "workflows", "cancel"), 2, "cancel nothing")
	})
}

// adminOnly is a store without store.Workflows.
type adminOnly struct {
	hopper.Store
	store.Admin
}

func TestWorkflowsUnsupported(t *testing.T) {
	m := memstore.New(nil)
	c := &cli{open: func(context.Context, *storeFlags) (hopper.Store, func(), error) {
		return adminOnly{m, m}, func() {}, nil
	}}
	for _, args := range [][]string{{"workflows", "list"}, {"workflows", "show", "x"}, {"workflows", "cancel", "x"}, {"workflows", "retry", "x"}} {
		r := c.run(t, args...)
		wantCode(t, r, 1, strings.Join(args, " "))
		wantOut(t, r.stderr, strings.Join(args, " "), "runs no workflows")
	}
}

func TestDemoWorkflows(t *testing.T) {
	c := &cli{}
	out, stop := c.start(t, "dashboard: http://", "demo", "--addr", "127.0.0.1:0", "--rate", "50", "--workflow-every", "300ms")
	u := dashboardURL(t, out())
	wantOut(t, out(), "demo", "a workflow every 300ms")
	// Both kinds of workflow show up, and some end.
	testutil.EventuallyTrue(t, 30*time.Second, "the demo's workflows on the dashboard", func() bool {
		_, body := fetch(t, "GET", u+"api/workflows", nil, nil)
		var page struct {
			Counts    map[string]int
			Workflows []struct{ Name string }
		}
		if json.Unmarshal([]byte(body), &page) != nil {
			return false
		}
		var etl, imp bool
		for _, w := range page.Workflows {
			etl = etl || strings.HasPrefix(w.Name, "nightly etl")
			imp = imp || strings.HasPrefix(w.Name, "import ")
		}
		return etl && imp && page.Counts["succeeded"]+page.Counts["failed"] > 0
	})
	code, body := fetch(t, "GET", u+"workflows", nil, nil)
	if code != http.StatusOK || !strings.Contains(body, "nightly etl") {
		t.Errorf("GET /workflows: %d\n%.300s", code, body)
	}
	r := stop()
	wantCode(t, r, 0, "demo")
	wantOut(t, r.stdout, "demo", "workflows enqueued:", "stopped")
}
