package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// TestJobsListLimitOver1000: jobs list prints as many jobs as --limit
// says, past the Inspector's page of 1,000 (hopper.MaxListLimit), in
// text and in JSON. "--limit 1100" printed 1,000 jobs, and said "1000 of
// 1050 jobs".
func TestJobsListLimitOver1000(t *testing.T) {
	eachCLI(t, func(t *testing.T, c *cli) {
		const n = hopper.MaxListLimit + 50
		jobs := make([]*store.NewJob, n)
		for i := range jobs {
			jobs[i] = &store.NewJob{ID: fmt.Sprintf("job-%04d", i), Queue: "big", Kind: "send_email", Args: []byte{0x80}}
		}
		if _, err := c.store.Enqueue(t.Context(), jobs); err != nil {
			t.Fatal(err)
		}

		r := c.run(t, "jobs", "list", "--queue", "big", "--limit", "1100")
		wantCode(t, r, 0, "list --limit 1100")
		wantOut(t, r.stdout, "list --limit 1100", fmt.Sprintf("%d of %d jobs in ready of big", n, n))
		if got := strings.Count(r.stdout, "\njob-"); got != n {
			t.Errorf("list --limit 1100 of %d jobs printed %d of them", n, got)
		}

		r = c.run(t, "jobs", "list", "--queue", "big", "--limit", "1030", "--offset", "10", "--json")
		wantCode(t, r, 0, "list --limit 1030 --offset 10 --json")
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if len(lines) != 1030 || !strings.Contains(lines[0], `"id":"job-0010"`) || !strings.Contains(lines[1029], `"id":"job-1039"`) {
			t.Errorf("list --limit 1030 --offset 10 --json: %d lines, first %.40q, last %.40q; want 1030, job-0010 to job-1039",
				len(lines), lines[0], lines[len(lines)-1])
		}
	})
}
