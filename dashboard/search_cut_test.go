package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLongSearchCutAtACharacter: a search longer than the pages keep is
// cut at a character's boundary. It was cut at a byte count, mid-character
// for a non-ASCII one, and the page echoed the broken character in its
// search box: the page was not valid UTF-8. So was a search given bytes
// that are not UTF-8.
func TestLongSearchCutAtACharacter(t *testing.T) {
	h := newHandler(newMem(), nil)
	long := url.QueryEscape("a" + strings.Repeat("é", 300))
	for _, target := range []string{
		"/queues/default/ready?args=" + long,
		"/queues/default/ready?kind=" + long,
		"/queues/default/garbage?prefix=" + long,
		"/retries?args=" + long,
		"/dead?kind=" + long,
		"/workflows?q=" + long,
		"/queues/default/ready?args=%ff%fe",
		"/find?id=%ff%fe",
	} {
		r := get(t, h, target)
		what := target[:min(len(target), 40)]
		if r.Code >= http.StatusInternalServerError {
			t.Errorf("%s: status %d", what, r.Code)
		}
		if !utf8.ValidString(r.Body) {
			t.Errorf("%s: the page is not valid UTF-8", what)
		}
	}
}
