package dashboard_test

import (
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// overflow is a page number too large for an int.
const overflow = "99999999999999999999999"

// TestPageTooLargeForAnInt: a page number too large for an int is a page
// past the end like any other (the lists bound a page at 1,000,000): the
// HTML lists say so and link the last page, the JSON ones answer as for
// page 1,000,000. It read as page 1, which the lists showed under a link
// that asked for another, and /api/retries?page=9223372036854775807
// failed with 500 (its offset overflowed).
func TestPageTooLargeForAnInt(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s) // default: 3 ready, 1 retry, 2 garbage
		dashtest.SeedWorkflows(t, s)
		h := newHandler(s, nil)
		for _, target := range []string{"/queues/default/ready", "/retries", "/dead", "/workflows"} {
			r := get(t, h, target+"?page="+overflow)
			wantStatus(t, r, http.StatusOK, target)
			wantContains(t, r.Body, target, "Page 1,000,000 is past the end:", `id="last-page"`)
			wantLacks(t, r.Body, target, "data-job-row=", "data-workflow-row=", "Showing")
		}
		for _, target := range []string{"/api/queues/default/ready", "/api/retries", "/api/dead", "/api/workflows"} {
			want := get(t, h, target+"?page=1000000")
			for _, page := range []string{overflow, "9223372036854775807"} {
				if r := get(t, h, target+"?page="+page); r.Code != want.Code || r.Body != want.Body {
					t.Errorf("%s?page=%s: %d %s\nwant as page 1,000,000: %d %s", target, page, r.Code, r.Body, want.Code, want.Body)
				}
			}
		}
		// A search's position too large for an int is past the end too:
		// it searched from the first job.
		r := get(t, h, "/queues/default/ready?kind=send_email&from="+overflow)
		wantContains(t, r.Body, "a search from past the end", "No match", `id="search-restart"`)
		wantLacks(t, r.Body, "a search from past the end", "data-job-row=")
	})
}
