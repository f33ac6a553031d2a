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

// TestUnknownQueueSaysSo: the page of a queue no store lists says that no
// queue has that name rather than showing an empty queue, and its pause,
// limits and group forms ask before they set the queue up (a queue may be
// set up before its first job; a mistyped name should not be). The page
// showed an empty queue, and a pause created the queue without a word.
func TestUnknownQueueSaysSo(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		dashtest.Seed(t, s)
		h := newHandler(s, nil)
		ctx := context.Background()
		ins := hopper.NewInspector(s)
		listed := func(q string) bool {
			qs, err := ins.ListQueues(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return slices.Contains(qs, q)
		}
		const notice = "No queue named typo: no jobs, settings or workers yet."

		r := get(t, h, "/queues/typo/ready")
		wantStatus(t, r, http.StatusOK, "an unknown queue's page")
		wantContains(t, r.Body, "an unknown queue's page", notice,
			`data-confirm="No queue is named typo: pause it anyway, setting it up before its first job?"`,
			`data-confirm="No queue is named typo: save these limits anyway, setting it up before its first job?"`)
		wantLacks(t, get(t, h, "/queues/default/ready").Body, "a known queue's page", "No queue named", "data-confirm=\"No queue is named")

		page := post(t, h, "/queues/typo/pause", url.Values{"return": {"ready"}})
		wantStatus(t, page, http.StatusOK, "an unconfirmed pause of an unknown queue")
		wantContains(t, page.Body, "an unconfirmed pause of an unknown queue", `<h1 id="ask-heading">Pause typo, a queue no store lists yet?</h1>`)
		if listed("typo") {
			t.Fatalf("an unconfirmed pause set the unknown queue up")
		}
		wantRedirect(t, submitAsk(t, h, page), "/queues/typo/ready?flash=paused", "a confirmed pause of an unknown queue")
		if st, err := ins.GetQueueStats(ctx, "typo"); err != nil || !st.Config.Paused || !listed("typo") {
			t.Errorf("after a confirmed pause: %+v, %v, listed %v; want it paused and listed", st.Config, err, listed("typo"))
		}
		wantLacks(t, get(t, h, "/queues/typo/ready").Body, "the page of a queue set up", notice)

		r = postAsked(t, h, "/queues/later/limits", url.Values{"max_running": {"3"}}, "Save the limits of later, a queue no store lists yet?")
		wantRedirect(t, r, "/queues/later/ready?flash=limits", "confirmed limits of an unknown queue")
		if st, err := ins.GetQueueStats(ctx, "later"); err != nil || st.Config.MaxRunning != 3 {
			t.Errorf("after confirmed limits: %+v, %v; want MaxRunning 3", st.Config, err)
		}

		// A queue with jobs is paused at once, as before.
		wantRedirect(t, post(t, h, "/queues/default/pause", url.Values{"return": {"ready"}}), "/queues/default/ready?flash=paused", "pause a known queue")
	})
}
