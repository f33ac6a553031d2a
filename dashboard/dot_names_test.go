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

// TestDotNames: the queue names and job IDs "." and ".." are written %2E
// and %2E%2E in the dashboard's links and forms, which the router reads
// back as the names; a browser resolved "/queues/../ready" to "/ready",
// so such a queue's pages, jobs and actions could not be reached, and
// /find?id=.. redirected to "/jobs/mail/..". Enqueue refuses such job
// IDs and queue names now (a browser also drops the %2E segments), but a
// store takes them (a job of an earlier release, or written through the
// store): the dashboard's own links and forms still reach them.
func TestDotNames(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		for _, e := range []struct{ queue, id string }{{"..", "a"}, {".", "b"}, {"mail", ".."}, {"mail", "."}} {
			job := &store.NewJob{ID: e.id, Queue: e.queue, Kind: "send_email", Args: mustMsgpack(t, dashtest.EmailArgs{To: "x@example.com"})}
			if _, err := s.Enqueue(ctx, []*store.NewJob{job}); err != nil {
				t.Fatal(err)
			}
		}
		h := newHandler(s, nil)
		wantContains(t, get(t, h, "/").Body, "the overview", `href="/queues/%2E%2E/ready"`, `href="/queues/%2E/ready"`)
		wantLacks(t, get(t, h, "/").Body, "the overview", `href="/queues/../`, `href="/queues/./`)

		r := get(t, h, "/queues/%2E%2E/ready")
		wantStatus(t, r, http.StatusOK, "queue ..")
		wantContains(t, r.Body, "queue ..", "<title>.. · ready", `href="/jobs/%2E%2E/a"`, `action="/queues/%2E%2E/pause"`)
		wantContains(t, get(t, h, "/queues/%2E/ready").Body, "queue .", "<title>. · ready", `href="/jobs/%2E/b"`)
		wantContains(t, get(t, h, "/queues/mail/ready").Body, "queue mail", `href="/jobs/mail/%2E%2E"`, `href="/jobs/mail/%2E"`)

		r = get(t, h, "/jobs/mail/%2E%2E")
		wantStatus(t, r, http.StatusOK, "job ..")
		wantContains(t, r.Body, "job ..", `action="/jobs/mail/%2E%2E/delete"`)
		for id, want := range map[string]string{"..": "/jobs/mail/%2E%2E", ".": "/jobs/mail/%2E", "a": "/jobs/%2E%2E/a"} {
			wantRedirect(t, get(t, h, "/find?id="+id), want, "find "+id)
		}

		wantRedirect(t, post(t, h, "/jobs/mail/%2E%2E/delete", url.Values{"confirm": {"1"}}), "/queues/mail/ready?flash=", "delete job ..")
		if _, err := hopper.NewInspector(s).GetJob(ctx, "mail", ".."); err == nil {
			t.Errorf("job .. of mail is still there after its delete")
		}
		wantRedirect(t, post(t, h, "/queues/%2E%2E/pause", url.Values{"return": {"ready"}}), "/queues/%2E%2E/ready?flash=paused", "pause queue ..")
		if st, err := hopper.NewInspector(s).GetQueueStats(ctx, ".."); err != nil || !st.Config.Paused {
			t.Errorf("queue .. after its pause: %+v, %v; want it paused", st.Config, err)
		}
	})
}
