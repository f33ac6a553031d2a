package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestSearchEndSaysWhatWasSearched: a search that reaches the end says
// whether the whole state was searched — also when the last page of the
// series only examined the last stretch — or from which job it started.
func TestSearchEndSaysWhatWasSearched(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)

		// From the start, in one page.
		r := get(t, h, "/queues/default/ready?args=nobody-has-this")
		wantStatus(t, r, http.StatusOK, "search from the start")
		wantContains(t, r.Body, "search from the start", "searched to the end: all", "jobs in ready were searched")

		// The last page of a series that started at the first job (the
		// links that go on carry origin=0).
		r = get(t, h, "/queues/default/ready?args=nobody-has-this&from=2&origin=0")
		wantStatus(t, r, http.StatusOK, "last page of a series from the start")
		wantContains(t, r.Body, "last page of a series from the start", "among jobs <strong>3–", "jobs in ready were searched")

		// A series that started at the third job says so.
		r = get(t, h, "/queues/default/ready?args=nobody-has-this&from=2")
		wantStatus(t, r, http.StatusOK, "search from the third job")
		wantContains(t, r.Body, "search from the third job", "searched from job 3 on; the 2 before it were not searched", `id="search-restart"`)
		if strings.Contains(r.Body, "were searched") {
			t.Error("a search that started at the third job says every job was searched")
		}
	})
}
