package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestFailuresActionBackURL: an action on the retries or dead page sent
// with no search to go back to redirects to the page with the flash
// alone; it went to "/retries?&flash=...".
func TestFailuresActionBackURL(t *testing.T) {
	h := newHandler(newMem(), nil)
	for _, page := range []string{"/retries", "/dead"} {
		for _, form := range []url.Values{{}, {"back": {""}}, {"back": {"kind=send_email"}}} {
			r := post(t, h, page+"/retry", form)
			wantStatus(t, r, http.StatusSeeOther, page+"/retry")
			loc := r.Header.Get("Location")
			if strings.Contains(loc, "?&") || !strings.HasPrefix(loc, page+"?") {
				t.Errorf("%s/retry with %v: Location %q", page, form, loc)
			}
			if form.Get("back") != "" && !strings.HasPrefix(loc, page+"?kind=send_email&flash=") {
				t.Errorf("%s/retry with %v: Location %q, want the search kept", page, form, loc)
			}
		}
	}
}
