package dashboard_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// TestFindIDInSeveralQueues: job IDs are per queue, so a whole ID may be
// held by several queues; the top-bar search then lists each of them,
// linked, instead of opening the first queue's job without a word about
// the others. An ID one queue holds still opens its job.
func TestFindIDInSeveralQueues(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		c := hopper.NewClient(s, nil)
		for _, q := range []string{"dupa", "dupb"} {
			if _, err := hopper.Enqueue(ctx, c, dashtest.EmailArgs{To: "x@example.com"}, &hopper.EnqueueOpts{Queue: q, ID: "dup-id"}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := hopper.Enqueue(ctx, c, dashtest.EmailArgs{To: "x@example.com"}, &hopper.EnqueueOpts{Queue: "dupa", ID: "dup-id-2"}); err != nil {
			t.Fatal(err)
		}
		h := newHandler(s, nil)
		r := get(t, h, "/find?id=dup-id")
		wantStatus(t, r, http.StatusOK, "find an ID two queues hold")
		wantContains(t, r.Body, "find an ID two queues hold", "Jobs with ID", `id="find-several"`, "2 queues hold a job with this ID",
			`<a href="/jobs/dupa/dup-id">dupa</a>`, `<a href="/jobs/dupb/dup-id">dupb</a>`)
		wantLacks(t, r.Body, "find an ID two queues hold", "dup-id-2", "starts with")
		wantRedirect(t, get(t, h, "/find?id=dup-id-2"), "/jobs/dupa/dup-id-2", "find an ID one queue holds")
	})
}
