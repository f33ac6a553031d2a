package dashboard_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard/internal/dashtest"
	"github.com/hopperq/hopper/store"
	"github.com/vmihailenco/msgpack/v5"
)

// TestEditArgsNull: "Change args" refuses empty and null args with a
// message, and the form says that the handler decodes the JSON into its
// args type (the dashboard cannot check it). A job whose args are null
// (set from code, or by the dashboard before) still has the form, and
// takes args from it. The form took null, then vanished from the job's
// page for good.
func TestEditArgsNull(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		ctx := context.Background()
		h := newHandler(s, nil)
		ins := hopper.NewInspector(s)
		rep, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), dashtest.ReportArgs{Month: "2026-10"}, &hopper.EnqueueOpts{Delay: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		page := get(t, h, "/jobs/default/"+rep.ID).Body
		wantContains(t, page, "the args form", `aria-describedby="args-help"`,
			"The job's handler decodes this JSON into its args type, which the dashboard does not know: a value of another type (a number for a string field) makes the job fail with a decode error when it runs")
		for _, bad := range []string{"null", " null\n", "   "} {
			r := post(t, h, "/jobs/default/"+rep.ID+"/args", url.Values{"args": {bad}})
			wantStatus(t, r, http.StatusUnprocessableEntity, "args "+bad)
			wantContains(t, r.Body, "args "+bad, `id="args-error" role="alert">The args cannot be empty or null`)
		}
		if j, err := ins.GetJob(ctx, "default", rep.ID); err != nil || string(j.Args) != string(mustMsgpack(t, dashtest.ReportArgs{Month: "2026-10"})) {
			t.Fatalf("args after refused edits: %x, %v; want them unchanged", j.Args, err)
		}

		// A job whose args are null keeps the form, and takes args.
		if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: "nulled", Queue: "default", Kind: "build_report", Args: []byte{0xc0}, RunAt: time.Now().Add(time.Hour)}}); err != nil {
			t.Fatal(err)
		}
		wantContains(t, get(t, h, "/jobs/default/nulled").Body, "a job with null args", `action="/jobs/default/nulled/args"`, ">null</textarea>")
		wantRedirect(t, post(t, h, "/jobs/default/nulled/args", url.Values{"args": {`{"month": "2026-12"}`}}), "/jobs/default/nulled?flash=args", "args for a job with null ones")
		j, err := ins.GetJob(ctx, "default", "nulled")
		var got dashtest.ReportArgs
		if err != nil || msgpack.Unmarshal(j.Args, &got) != nil || got.Month != "2026-12" {
			t.Errorf("args of the nulled job after the edit: %+v, %v; want month 2026-12", got, err)
		}
	})
}
