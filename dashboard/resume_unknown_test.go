package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestResumeUnknownQueue: a resume of a queue no store lists and no
// worker serves says there is nothing to resume, as `hopper queues
// resume` does, and sets nothing up. It flashed "Resumed the queue.".
func TestResumeUnknownQueue(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		r := post(t, h, "/queues/ghost7/resume", url.Values{"return": {"ready"}})
		wantStatus(t, r, http.StatusNotFound, "resume an unknown queue")
		wantContains(t, r.Body, "resume an unknown queue", "Nothing to resume", "No queue is named ghost7")
		if qs, err := hopper.NewInspector(s).ListQueues(context.Background()); err != nil || slices.Contains(qs, "ghost7") {
			t.Errorf("queues after the resume: %v, %v; want no ghost7", qs, err)
		}
		wantRedirect(t, post(t, h, "/queues/default/resume", url.Values{"return": {"ready"}}), "/queues/default/ready?flash=resumed", "resume a known queue")
	})
}
