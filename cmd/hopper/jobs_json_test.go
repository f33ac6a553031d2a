package main

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
)

// TestJobsJSONAsDashboard: jobs show --json and jobs list --json give a
// job's errors, priority and options under the names the dashboard's
// /api/jobs/{queue}/{id} gives them, with the same values. The errors
// were "Attempt", "At", "Error", "Stack" (store.AttemptError has no JSON
// names), and priority and options were missing; the dashboard's errors
// lacked started_at and worker.
func TestJobsJSONAsDashboard(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		ids := seed(t, c.store)
		srv := httptest.NewServer(dashboard.New(c.store, nil))
		defer srv.Close()
		apiJob := func(id string) map[string]any {
			code, body := fetch(t, "GET", srv.URL+"/api/jobs/default/"+id, nil, nil)
			if code != 200 {
				t.Fatalf("dashboard: %d %s", code, body)
			}
			var api map[string]any
			if err := json.Unmarshal([]byte(body), &api); err != nil {
				t.Fatal(err)
			}
			return api
		}
		api := apiJob(ids.garbage)
		apiErrs, _ := api["errors"].([]any)
		if len(apiErrs) != 1 {
			t.Fatalf("dashboard: errors %v", api["errors"])
		}

		show := c.run(t, "jobs", "show", ids.garbage, "--json")
		wantCode(t, show, 0, "jobs show --json")
		list := c.run(t, "jobs", "list", "--state", "garbage", "--json")
		wantCode(t, list, 0, "jobs list --json")
		for what, out := range map[string]string{"jobs show --json": show.stdout, "jobs list --json": list.stdout} {
			var cj map[string]any
			if err := json.Unmarshal([]byte(out), &cj); err != nil {
				t.Fatalf("%s: %v\n%s", what, err, out)
			}
			errs, _ := cj["errors"].([]any)
			if len(errs) != 1 {
				t.Fatalf("%s: errors %v", what, cj["errors"])
			}
			got, want := errs[0].(map[string]any), apiErrs[0].(map[string]any)
			for k, v := range want {
				if !reflect.DeepEqual(got[k], v) {
					t.Errorf("%s: errors[0][%q] = %v, the dashboard's %v\nCLI: %v\ndashboard: %v", what, k, got[k], v, got, want)
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("%s: errors[0] has %q, the dashboard's does not\nCLI: %v\ndashboard: %v", what, k, got, want)
				}
				if k != strings.ToLower(k) {
					t.Errorf("%s: errors[0] has the field %q, not a dashboard name: %v", what, k, got)
				}
			}
		}

		// A job with options: the same priority and options.
		info, err := hopper.Enqueue(t.Context(), hopper.NewClient(c.store, nil), emailArgs{To: "vip@example.com"},
			&hopper.EnqueueOpts{Priority: 2, Timeout: 90 * time.Second, MaxRetries: 4})
		if err != nil {
			t.Fatal(err)
		}
		api = apiJob(info.ID)
		if api["options"] == nil {
			t.Fatalf("dashboard: no options: %v", api)
		}
		show = c.run(t, "jobs", "show", info.ID, "--json")
		wantCode(t, show, 0, "jobs show --json")
		var cj map[string]any
		if err := json.Unmarshal([]byte(show.stdout), &cj); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"priority", "options", "attempt", "max_retries", "state"} {
			if !reflect.DeepEqual(cj[k], api[k]) {
				t.Errorf("jobs show --json: %q = %v, the dashboard's %v", k, cj[k], api[k])
			}
		}
	})
}

// TestJobsListJSONGoesOn: a search with --json says where it goes on
// ("more with --from N") on stderr, as the table does, and stdout stays
// JSON lines; it said nothing, so a script could not page on.
func TestJobsListJSONGoesOn(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		cl := hopper.NewClient(c.store, nil)
		for _, to := range []string{"user1@example.com", "user2@example.com", "user3@example.com"} {
			if _, err := hopper.Enqueue(t.Context(), cl, emailArgs{To: to}, &hopper.EnqueueOpts{Queue: "mail"}); err != nil {
				t.Fatal(err)
			}
		}
		var seen []string
		from := ""
		for range 3 {
			args := []string{"jobs", "list", "--queue", "mail", "--search", "user", "--limit", "2", "--json"}
			if from != "" {
				args = append(args, "--from", from)
			}
			r := c.run(t, args...)
			wantCode(t, r, 0, strings.Join(args, " "))
			for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
				var j struct{ ID string }
				if err := json.Unmarshal([]byte(line), &j); err != nil || j.ID == "" {
					t.Fatalf("%v: stdout line %q is not a job: %v", args, line, err)
				}
				seen = append(seen, j.ID)
			}
			m := regexp.MustCompile(`more with --from (\S+)`).FindStringSubmatch(r.stderr)
			if m == nil {
				wantOut(t, r.stderr, strings.Join(args, " "), "in ready of mail, among jobs")
				break
			}
			from = m[1]
		}
		if len(seen) != 3 {
			t.Errorf("paging on with --from: %d jobs %v, want the 3", len(seen), seen)
		}
	})
}
