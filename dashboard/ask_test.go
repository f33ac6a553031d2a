package dashboard_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

var (
	askFormRE  = regexp.MustCompile(`<form method="post" action="([^"]*)" class="confirm-actions">`)
	askInputRE = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)
)

// postAsked posts form to target as a browser without JavaScript does: the
// unconfirmed form must come back as a confirmation page (200) asking
// heading, which is then submitted as it stands. It returns the answer to
// the confirmed form.
func postAsked(t *testing.T, h http.Handler, target string, form url.Values, heading string) response {
	t.Helper()
	page := post(t, h, target, form)
	wantStatus(t, page, http.StatusOK, "unconfirmed "+target)
	wantContains(t, page.Body, "the question of "+target, `<h1 id="ask-heading">`+esc(heading)+`</h1>`)
	return submitAsk(t, h, page)
}

// submitAsk submits the confirming form of a confirmation page.
func submitAsk(t *testing.T, h http.Handler, page response) response {
	t.Helper()
	m := askFormRE.FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatalf("no confirming form on the page:\n%.3000s", page.Body)
	}
	i := strings.Index(page.Body, m[0])
	end := strings.Index(page.Body[i:], "</form>")
	confirmed := url.Values{}
	for _, in := range askInputRE.FindAllStringSubmatch(page.Body[i:i+end], -1) {
		confirmed.Add(html.UnescapeString(in[1]), html.UnescapeString(in[2]))
	}
	return post(t, h, html.UnescapeString(m[1]), confirmed)
}

// Every destructive action asks first: without confirm=1 the server
// answers with a page that asks, and the jobs are still there; the page's
// form then acts. (Browsers with JavaScript add confirm=1 after their own
// dialog.)
func TestDestructiveActionsAskFirst(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)
		type step struct {
			name, target string
			form         url.Values
			heading      string
			job          string          // a job the action acts on
			after        hopper.JobState // where the job is once confirmed ("" gone)
		}
		for _, c := range []step{
			{"delete one", "/jobs/default/" + f.Garbage[1] + "/delete", nil,
				"Delete job " + f.Garbage[1] + " (send_email, garbage) of queue default?", f.Garbage[1], ""},
			{"cancel one", "/jobs/default/" + f.Pending + "/cancel", nil,
				"Cancel job " + f.Pending + " (send_email, pending) of queue default?", f.Pending, hopper.StateGarbage},
			{"delete selected", "/queues/default/ready/delete", url.Values{"id": {f.Ready[0], f.Ready[1]}, "back": {"order=oldest"}},
				"Delete the 2 selected jobs in ready of queue default?", f.Ready[0], ""},
			{"cancel selected", "/queues/default/ready/cancel", url.Values{"id": {f.Ready[2]}},
				"Cancel the 1 selected job in ready of queue default?", f.Ready[2], hopper.StateGarbage},
		} {
			before := dashtest.JobState(t, s, "default", c.job)
			page := post(t, h, c.target, c.form)
			wantStatus(t, page, http.StatusOK, c.name+" unconfirmed")
			wantContains(t, page.Body, c.name, `<h1 id="ask-heading">`+esc(c.heading)+`</h1>`, `name="confirm" value="1"`)
			if st := dashtest.JobState(t, s, "default", c.job); st != before {
				t.Fatalf("%s: an unconfirmed POST moved the job from %q to %q", c.name, before, st)
			}
			r := submitAsk(t, h, page)
			wantStatus(t, r, http.StatusSeeOther, c.name+" confirmed")
			if st := dashtest.JobState(t, s, "default", c.job); st != c.after {
				t.Errorf("%s: once confirmed the job is in %q, want %q", c.name, st, c.after)
			}
		}
	})
}
