package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// commonPrefix returns the longest start a and b share.
func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n]
}

// TestFindByIDPrefix: the top-bar search takes the start of an ID, as the
// state search does: a start only one job has opens it, in whatever
// queue and state; a start several have lists them all.
func TestFindByIDPrefix(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		f := dashtest.Seed(t, s)
		h := newHandler(s, nil)

		r := get(t, h, "/find?id="+url.QueryEscape(f.Garbage[0][:len(f.Garbage[0])-1]))
		wantStatus(t, r, http.StatusSeeOther, "find by the start of a garbage job's ID")
		if loc := r.Header.Get("Location"); loc != "/jobs/default/"+f.Garbage[0] {
			t.Errorf("find by a unique start redirects to %q, want the job", loc)
		}

		p := commonPrefix(f.Ready[0], f.Crit)
		if p == "" {
			t.Skip("the seeded IDs share no start")
		}
		r = get(t, h, "/find?id="+url.QueryEscape(p))
		wantStatus(t, r, http.StatusOK, "find by a start several IDs share")
		wantContains(t, r.Body, "find by a shared start", "Jobs whose ID starts with",
			`href="/jobs/default/`+f.Ready[0]+`"`, `href="/jobs/critical/`+f.Crit+`"`, "in every state of every queue")
		if strings.Contains(r.Body, "/jobs/") && strings.Count(r.Body, `<tr><td class="mono"><a href="/jobs/`) < 2 {
			t.Errorf("a shared start listed fewer than two jobs")
		}
		wantStatus(t, get(t, h, "/find?id=zz-no-such"), http.StatusNotFound, "find by a start no ID has")
	})
}
