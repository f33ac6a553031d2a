package main

import (
	"strings"
	"testing"

	"github.com/hopperq/hopper/store"
)

// TestJobsShowByIDPrefix: jobs show takes the start of an ID, as the
// dashboard's search (/find) does: a whole ID wins, a start one job has
// shows it, in whatever queue and state, and a start several have lists
// them and exits 1. "jobs show lone" said no job "lone" in any queue.
func TestJobsShowByIDPrefix(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		jobs := []*store.NewJob{
			{ID: "lone-1", Queue: "default", Kind: "send_email", Args: []byte{0x80}},
			{ID: "shared-1", Queue: "default", Kind: "send_email", Args: []byte{0x80}},
			{ID: "shared-2", Queue: "critical", Kind: "resize", Args: []byte{0x80}},
			{ID: "shared", Queue: "critical", Kind: "resize", Args: []byte{0x80}},
		}
		if _, err := c.store.Enqueue(t.Context(), jobs); err != nil {
			t.Fatal(err)
		}

		r := c.run(t, "jobs", "show", "lone")
		wantCode(t, r, 0, "show by a start one job has")
		wantOut(t, r.stdout, "show by a start one job has", "ID:           lone-1", "Queue:        default")

		r = c.run(t, "jobs", "show", "shared")
		wantCode(t, r, 0, "show a whole ID that starts others")
		wantOut(t, r.stdout, "show a whole ID that starts others", "ID:           shared\n")

		r = c.run(t, "jobs", "show", "shared-")
		wantCode(t, r, 1, "show by a start two jobs have")
		if r.stdout != "" {
			t.Errorf("show by a shared start printed a job:\n%s", r.stdout)
		}
		wantOut(t, r.stderr, "show by a start two jobs have", `hopper jobs: "shared-" starts the IDs of 2 jobs`,
			"shared-1  default   ready", "shared-2  critical  ready")
		if strings.Count(r.stderr, "hopper") != 1 {
			t.Errorf("show by a shared start says \"hopper\" more than once:\n%s", r.stderr)
		}

		r = c.run(t, "jobs", "show", "--queue", "critical", "shared-", "--json")
		wantCode(t, r, 0, "show by a start one job of --queue has")
		wantOut(t, r.stdout, "show by a start one job of --queue has", `"id": "shared-2"`)

		r = c.run(t, "jobs", "show", "zz")
		wantCode(t, r, 1, "show by a start no job has")
		wantOut(t, r.stderr, "show by a start no job has", `hopper jobs: no job "zz" in any queue, nor one whose ID starts with it`)
		r = c.run(t, "jobs", "show", "--queue", "critical", "lone")
		wantCode(t, r, 1, "show by a start no job of --queue has")
		wantOut(t, r.stderr, "show by a start no job of --queue has", `no job "lone" in queue critical, nor one whose ID starts with it`)
	})
}
