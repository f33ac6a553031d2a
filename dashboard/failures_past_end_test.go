package dashboard_test

import (
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestFailuresPagePastTheEnd: a Retries or Dead page past the end of the
// list says so and links the last page, as a queue's own pages do, with
// no "No jobs" and no Next link; a page past the pages the list reaches
// shows none of the jobs of the last one under its number. Such pages
// said "No jobs in garbage in any queue" under "In 2 queues: …", offered
// Next → to more empty pages, and a page past the depth showed the last
// reachable page's jobs.
func TestFailuresPagePastTheEnd(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s) // default: 2 garbage, 1 retry
		failIn(t, s, "billing", hopper.OutcomeGarbage)
		h := newHandler(s, &dashboard.Config{PageSize: 2})
		for _, c := range []struct{ target, says, last string }{
			{"/dead?page=3", "Page 3 is past the end: 3 jobs in garbage fill 2 pages.", `href="/dead?page=2" id="last-page"`},
			{"/dead?page=999", "Page 999 is past the end: 3 jobs in garbage fill 2 pages.", `href="/dead?page=2" id="last-page"`},
			{"/retries?page=2", "Page 2 is past the end: 1 job in retry fill 1 page.", `href="/retries" id="last-page"`},
			{"/dead?page=3&kind=send_email", "Page 3 is past the end: 3 matches fill 2 pages.", `href="/dead?kind=send_email&amp;page=2" id="last-page"`},
		} {
			r := get(t, h, c.target)
			wantStatus(t, r, http.StatusOK, c.target)
			wantContains(t, r.Body, c.target, c.says, c.last)
			wantLacks(t, r.Body, c.target, "No jobs in", "No match in", `rel="next"`, "data-job-row=")
		}
		r := get(t, h, "/dead?page=2")
		wantContains(t, r.Body, "the last page", "Showing <strong>3–3</strong> of <strong>3</strong>", `rel="prev"`)
		wantLacks(t, r.Body, "the last page", `rel="next"`, "past the end")
		wantContains(t, get(t, h, "/retries?page=1").Body, "the first page", `data-job-row="default/`+f.Retry+`"`)
	})
}

// TestFailuresPagePastTheDepth: a page past the hopper.MaxAllQueuesDepth
// jobs the list reaches says so and links the last page it reaches; it
// showed that page's jobs under its own number.
func TestFailuresPagePastTheDepth(t *testing.T) {
	s := newMem()
	for range hopper.MaxAllQueuesDepth + 1 {
		failIn(t, s, "bulk", hopper.OutcomeGarbage)
	}
	h := newHandler(s, &dashboard.Config{PageSize: 500})
	r := get(t, h, "/dead?page=3")
	wantContains(t, r.Body, "page 3 of 500", "Page 3 lies past the first 1,000 jobs this list reaches: each queue's own page lists the rest.",
		`href="/dead?page=2" id="last-page"`)
	wantLacks(t, r.Body, "page 3 of 500", "data-job-row=", `rel="next"`, "Showing")
	r = get(t, h, "/dead?page=2")
	wantContains(t, r.Body, "page 2 of 500", "Showing <strong>501–1,000</strong>", "this list reaches the first 1,000")
	wantLacks(t, r.Body, "page 2 of 500", `rel="next"`)
}
