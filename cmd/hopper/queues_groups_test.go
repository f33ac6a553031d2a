package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// groupedJobs enqueues jobs of queue "tenants" in groups: acme 3, globex 1.
func groupedJobs(t *testing.T, s hopper.Store) {
	t.Helper()
	c := hopper.NewClient(s, nil)
	for _, g := range []string{"acme", "acme", "acme", "globex"} {
		if _, err := hopper.Enqueue(context.Background(), c, emailArgs{To: g + "@example.com"}, &hopper.EnqueueOpts{Queue: "tenants", Group: g}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestQueuesGroups: "queues groups" lists a grouped queue's groups with
// their ready and running jobs and caps, as a table or JSON, and says
// when --limit left some out; "queues group-limit" gives a group a cap of
// its own, which the listing and the store show, and 0 removes it. The
// CLI had no view of a queue's groups: only the dashboard's panel.
func TestQueuesGroups(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		groupedJobs(t, c.store)
		if _, err := c.store.Claim(t.Context(), store.ClaimOpts{Queue: "tenants", Max: 1, Lease: time.Hour}); err != nil {
			t.Fatal(err)
		}

		r := c.run(t, "queues", "group-limit", "tenants", "acme", "5")
		wantCode(t, r, 0, "group-limit")
		wantOut(t, r.stdout, "group-limit", "group acme of tenants: at most 5 running")

		r = c.run(t, "queues", "groups", "tenants")
		wantCode(t, r, 0, "groups")
		lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
		if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "GROUP READY RUNNING CAP HELD" {
			t.Fatalf("groups printed:\n%s\nwant a header and two groups", r.stdout)
		}
		if got := strings.Join(strings.Fields(lines[1]), " "); got != "acme 2 1 5 (own) -" {
			t.Errorf("acme's row %q, want %q", got, "acme 2 1 5 (own) -")
		}
		if got := strings.Join(strings.Fields(lines[2]), " "); got != "globex 1 0 - -" {
			t.Errorf("globex's row %q, want %q", got, "globex 1 0 - -")
		}

		r = c.run(t, "queues", "groups", "--json", "--limit", "1", "tenants")
		wantCode(t, r, 0, "groups --json --limit 1")
		var rows []groupRow
		if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
			t.Fatalf("groups --json: %v\n%s", err, r.stdout)
		}
		if len(rows) != 1 || rows[0].Group != "acme" || rows[0].Ready != 2 || rows[0].Running != 1 || rows[0].Limit != 5 || !rows[0].Own {
			t.Errorf("groups --json --limit 1: %+v, want acme alone, 2 ready, 1 running, its own cap of 5", rows)
		}
		wantOut(t, r.stderr, "groups --limit 1", "tenants has more than 1 groups; --limit 0 prints them all")

		r = c.run(t, "queues", "group-limit", "tenants", "acme", "0")
		wantCode(t, r, 0, "group-limit 0")
		groups, err := hopper.NewInspector(c.store).ListGroups(t.Context(), "tenants", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			if g.Own {
				t.Errorf("after group-limit 0, group %s still has a cap of its own (%d)", g.Group, g.Limit)
			}
		}

		r = c.run(t, "queues", "groups", "empty")
		wantCode(t, r, 0, "groups of a queue without groups")
		wantOut(t, r.stdout, "groups of a queue without groups", "no groups in empty")
	})
}

// TestQueuesGroupsBadInput: a missing or extra argument, a cap that is not
// a whole number of 0 or more, and a bad --limit are bad usage (exit 2,
// saying what), and change nothing.
func TestQueuesGroupsBadInput(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		groupedJobs(t, c.store)
		for _, tc := range []struct {
			args []string
			says string
		}{
			{[]string{"queues", "groups"}, "give the name of one queue"},
			{[]string{"queues", "groups", "a", "b"}, "give the name of one queue"},
			{[]string{"queues", "groups", "--limit", "-1", "tenants"}, "--limit -1"},
			{[]string{"queues", "group-limit", "tenants", "acme"}, "give a queue, one of its groups, and the group's cap"},
			{[]string{"queues", "group-limit", "tenants", "acme", "-2"}, `cap "-2"`},
			{[]string{"queues", "group-limit", "tenants", "acme", "many"}, `cap "many"`},
			{[]string{"queues", "group-limit", "tenants", "", "2"}, "group"},
		} {
			r := c.run(t, tc.args...)
			what := strings.Join(tc.args, " ")
			wantCode(t, r, 2, what)
			wantOut(t, r.stderr, what, tc.says)
		}
		groups, err := hopper.NewInspector(c.store).ListGroups(t.Context(), "tenants", 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			if g.Own {
				t.Errorf("bad usage gave group %s a cap of its own", g.Group)
			}
		}
	})
}
