package dashboard_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/dashboard"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/memstore"
)

// An action's outcome shows only on the page its own redirect leads to,
// shortly after: a crafted, altered or old link shows no banner.
func TestFlashCannotBeForged(t *testing.T) {
	s := memstore.New(nil)
	f := dashtest.Seed(t, s)
	var offset atomic.Int64
	h := newHandler(s, &dashboard.Config{Now: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})

	forged := get(t, h, "/queues/default/ready?flash=requeued&n=1000000")
	wantStatus(t, forged, http.StatusOK, "a forged outcome")
	wantLacks(t, forged.Body, "a forged outcome", "Requeued", "1,000,000", `class="flash`)

	r := post(t, h, "/queues/default/garbage/retry", url.Values{"id": {f.Garbage[0]}})
	wantStatus(t, r, http.StatusSeeOther, "retry")
	loc := r.Header.Get("Location")
	wantContains(t, get(t, h, loc).Body, "the real outcome", "Requeued 1 job: it is ready to run now.")

	// The signature of the real one does not carry over to another count.
	altered := strings.Replace(loc, "n=1&", "n=1000000&", 1)
	if altered == loc {
		t.Fatalf("no n=1 in %q", loc)
	}
	wantLacks(t, get(t, h, altered).Body, "an altered outcome", "Requeued", `class="flash`)

	// Nor does it last.
	offset.Store(int64(10 * time.Minute))
	wantLacks(t, get(t, h, loc).Body, "an old outcome", "Requeued", `class="flash`)
}
