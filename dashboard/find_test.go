package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
)

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

		// Two jobs whose IDs share a start, in two queues.
		shared := []*store.NewJob{
			{ID: "shared-start-1", Queue: "default", Kind: "send_email", Args: []byte{0x80}},
			{ID: "shared-start-2", Queue: "critical", Kind: "send_email", Args: []byte{0x80}},
		}
		if _, err := s.Enqueue(context.Background(), shared); err != nil {
			t.Fatal(err)
		}
		r = get(t, h, "/find?id=shared-start-")
		wantStatus(t, r, http.StatusOK, "find by a start several IDs share")
		wantContains(t, r.Body, "find by a shared start", "Jobs whose ID starts with",
			`href="/jobs/default/shared-start-1"`, `href="/jobs/critical/shared-start-2"`, "in every state of every queue")
		wantStatus(t, get(t, h, "/find?id=zz-no-such"), http.StatusNotFound, "find by a start no ID has")
	})
}
