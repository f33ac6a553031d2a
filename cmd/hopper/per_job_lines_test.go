package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// TestPerJobLinesSayHopperOnce: the line a command prints for one job,
// workflow or schedule it could not act on names it, then why, without
// the library's "hopper: " in between, as the command's own line does
// (errText). "hopper jobs retry ID" on a running job printed "ID: hopper:
// invalid job state: ...", and so did delete, reschedule and schedules
// delete|pause|resume.
func TestPerJobLinesSayHopperOnce(t *testing.T) {
	ctx := context.Background()
	s := memstore.New(nil)
	c := &cli{store: s, open: func(context.Context, *storeFlags) (hopper.Store, func(), error) { return s, func() {}, nil }}
	ids := seed(t, s)
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Hour})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != ids.ready {
		t.Fatalf("claim the ready job: %v, %v", res.Jobs, err)
	}
	running := ids.ready
	for _, tc := range []struct {
		args []string
		who  string // what the line starts with
		want string // what it says after, "hopper: " left out
	}{
		{[]string{"jobs", "retry", running}, running, running + ": invalid job state"},
		{[]string{"jobs", "delete", running}, running, running + ": invalid job state"},
		{[]string{"jobs", "reschedule", "--in", "1h", ids.garbage}, ids.garbage, ids.garbage + ": "},
		{[]string{"schedules", "delete", "nightly"}, "nightly", "nightly: stored schedule not found"},
	} {
		what := strings.Join(tc.args, " ")
		r := c.run(t, tc.args...)
		wantCode(t, r, 1, what)
		line, _, _ := strings.Cut(r.stderr, "\n")
		if !strings.HasPrefix(line, tc.want) || strings.Contains(line, "hopper: ") {
			t.Errorf("%s: the line of %s is %q; want it to start %q, with no \"hopper: \"", what, tc.who, line, tc.want)
		}
	}
}
