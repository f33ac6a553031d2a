package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hopperq/hopper/dashboard"
)

// TestNotFoundLinksBackOnce: the 404 page of a path no route serves has
// one "Back to the queues" link, to the dashboard's home; it had two, the
// page's own and the template's, to the same place.
func TestNotFoundLinksBackOnce(t *testing.T) {
	for _, prefix := range []string{"", "/ops"} {
		h := newHandler(newMem(), &dashboard.Config{Prefix: prefix})
		r := get(t, h, "/nonexistent")
		wantStatus(t, r, http.StatusNotFound, "/nonexistent")
		if n := strings.Count(r.Body, "Back to the queues"); n != 1 {
			t.Errorf("prefix %q: the 404 page links back to the queues %d times, want once:\n%s", prefix, n, r.Body)
		}
		wantContains(t, r.Body, "/nonexistent", `href="`+prefix+`/">Back to the queues</a>`)
	}
}
