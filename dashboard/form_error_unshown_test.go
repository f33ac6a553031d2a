package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestBadEditOfJobWithoutTheForm: a form error for a job whose page does
// not show that form (the job left the waiting states since its page was
// loaded, or is in a group, which has no priority form) is shown at the
// top of the page. The page came back 422 with the message nowhere.
func TestBadEditOfJobWithoutTheForm(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		grouped, err := hopper.Enqueue(context.Background(), hopper.NewClient(s, nil), dashtest.EmailArgs{To: "g"}, &hopper.EnqueueOpts{Group: "tenant-a"})
		if err != nil {
			t.Fatal(err)
		}
		dead := "/jobs/default/" + f.Garbage[0]
		for _, c := range []struct {
			name, target string
			form         url.Values
			want         string
		}{
			{"reschedule a dead job in -5m", dead + "/reschedule", url.Values{"in": {"-5m"}}, "“-5m” is not a delay"},
			{"reschedule a dead job at banana", dead + "/reschedule", url.Values{"at": {"banana"}}, "“banana” is not a time"},
			{"priority of a dead job", dead + "/priority", url.Values{"priority": {"high"}}, "“high” is not a priority"},
			{"args of a dead job", dead + "/args", url.Values{"args": {`{"to": `}}, "The args are not one JSON value"},
			{"priority of a grouped job", "/jobs/default/" + grouped.ID + "/priority", url.Values{"priority": {"high"}}, "“high” is not a priority"},
		} {
			r := post(t, h, c.target, c.form)
			if r.Code == http.StatusUnprocessableEntity {
				wantContains(t, r.Body, c.name, `id="form-error" role="alert">`+esc(c.want))
			} else if r.Code < 400 {
				t.Errorf("%s: %d, want an error", c.name, r.Code)
			}
		}
	})
}
