package dashboard_test

import (
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestWorkflowsPagePastTheEnd: a workflows page past the end of the list
// says so and links the last page, as the jobs lists do. It said "No
// workflows yet. Enqueue one with Client.EnqueueWorkflow…" under tabs
// that counted them, with a Previous link to another empty page.
func TestWorkflowsPagePastTheEnd(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.SeedWorkflows(t, s) // 3 workflows: failed, running, succeeded
		h := newHandler(s, &dashboard.Config{PageSize: 2})
		for _, c := range []struct{ target, says, last string }{
			{"/workflows?page=3", "Page 3 is past the end: 3 workflows fill 2 pages.", `href="/workflows?page=2" id="last-page"`},
			{"/workflows?page=999", "Page 999 is past the end: 3 workflows fill 2 pages.", `href="/workflows?page=2" id="last-page"`},
			{"/workflows?state=failed&page=2", "Page 2 is past the end: 1 failed workflow fills 1 page.", `href="/workflows?state=failed" id="last-page"`},
		} {
			r := get(t, h, c.target)
			wantStatus(t, r, http.StatusOK, c.target)
			wantContains(t, r.Body, c.target, c.says, c.last)
			wantLacks(t, r.Body, c.target, "No workflows", `rel="prev"`, `rel="next"`, "data-workflow-row=")
		}
		r := get(t, h, "/workflows?page=2")
		wantContains(t, r.Body, "the last page", "Showing <strong>3–3</strong> of <strong>3</strong>", `rel="prev"`)
		wantLacks(t, r.Body, "the last page", "past the end")
		wantContains(t, get(t, newHandler(newMem(), nil), "/workflows?page=2").Body, "no workflows at all", "No workflows yet.")
	})
}
