package dashboard_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestRescheduleAtAndIn: a reschedule form with both a time and a delay
// is refused with a message, as the CLI refuses --at with --in, and the
// job stays as it was. The time won without a word.
func TestRescheduleAtAndIn(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := post(t, h, "/jobs/default/"+f.Pending+"/reschedule", url.Values{"at": {"2030-01-02T03:04"}, "in": {"0s"}})
		wantStatus(t, r, http.StatusUnprocessableEntity, "at and in")
		wantContains(t, r.Body, "at and in", "Give a time (Run at) or a delay (or in), not both")
		if st := dashtest.JobState(t, s, "default", f.Pending); st != hopper.StatePending {
			t.Errorf("job after a refused reschedule is in %q, want pending", st)
		}
	})
}
