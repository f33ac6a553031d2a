package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestGroupCapErrorOnQueueWithoutGroups: a group cap refused on a queue
// whose page lists no groups (none has jobs nor a cap of its own yet)
// comes back with the groups panel open, its form holding what was typed
// and the message beside it. The page came back 422 with the message
// nowhere: it belonged to the groups panel, which the page drew only for
// a queue with groups.
func TestGroupCapErrorOnQueueWithoutGroups(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		if _, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), dashtest.EmailArgs{To: "x"}, &hopper.EnqueueOpts{Queue: "plain"}); err != nil {
			t.Fatal(err)
		}
		h := newHandler(s, nil)
		wantLacks(t, get(t, h, "/queues/plain/ready").Body, "a queue without groups", `id="groups"`)
		for _, c := range []struct {
			form url.Values
			want []string
		}{
			{url.Values{"group": {"tenant-1"}, "limit": {"abc"}}, []string{
				`id="group-error" role="alert">The cap must be a whole number of 0 or more (empty or 0 for the queue&#39;s), not “abc”.`,
				`value="tenant-1"`, `value="abc" aria-invalid="true"`}},
			{url.Values{"group": {"tenant-1"}, "limit": {"-1"}}, []string{`id="group-error" role="alert">The cap must be a whole number`}},
			{url.Values{"group": {" "}, "limit": {"3"}}, []string{`id="group-error" role="alert">Name the group.`, `value="3"`}},
		} {
			r := post(t, h, "/queues/plain/groups", c.form)
			wantStatus(t, r, http.StatusUnprocessableEntity, c.form.Encode())
			wantContains(t, r.Body, c.form.Encode(), append([]string{`<details class="limits" id="groups" open>`, "Groups:</span> none with jobs ready or running"}, c.want...)...)
		}
		groups, err := hopper.NewInspector(s).ListGroups(ctx, "plain", 10)
		if err != nil || len(groups) != 0 {
			t.Errorf("groups of plain after refused caps: %+v, %v; want none", groups, err)
		}
	})
}
