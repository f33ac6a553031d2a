package hopper_test

import (
	"errors"
	"testing"

	"github.com/hopperq/hopper"
)

// TestListJobsStateAndLimitErrors: ListJobs without a State says the State
// is required and lists the valid ones (it said only `hopper: invalid job
// state: ""`); a Limit above MaxListLimit is refused naming the maximum
// (it was cut to 1,000 silently), for SearchJobs too.
func TestListJobsStateAndLimitErrors(t *testing.T) {
	ctx := t.Context()
	in := hopper.NewInspector(newStore())
	const states = "pending, ready, unack, retry, garbage, done"
	_, listErr := in.ListJobs(ctx, hopper.ListJobsOpts{Queue: "default"})
	_, deadErr := in.ListJobs(ctx, hopper.ListJobsOpts{Queue: "default", State: "dead"})
	_, searchErr := in.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: "default"})
	_, allErr := in.ListJobsAllQueues(ctx, hopper.AllQueuesOpts{})
	for _, tc := range []struct {
		what string
		err  error
		want string
	}{
		{"ListJobs with no State", listErr, "hopper: invalid job state: ListJobsOpts.State is required: one of " + states},
		{"ListJobs of state dead", deadErr, `hopper: invalid job state: "dead" (want one of ` + states + ")"},
		{"SearchJobs with no State", searchErr, "hopper: invalid job state: SearchJobsOpts.State is required: one of " + states},
		{"ListJobsAllQueues with no State", allErr, "hopper: invalid job state: AllQueuesOpts.State is required: one of " + states},
	} {
		if !errors.Is(tc.err, hopper.ErrInvalidState) || tc.err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.what, tc.err, tc.want)
		}
	}

	_, listErr = in.ListJobs(ctx, hopper.ListJobsOpts{Queue: "default", State: hopper.StateReady, Limit: hopper.MaxListLimit + 1})
	_, searchErr = in.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: "default", State: hopper.StateReady, Limit: hopper.MaxListLimit + 1})
	for what, tc := range map[string]struct {
		err  error
		want string
	}{
		"ListJobs":   {listErr, "hopper: invalid config: ListJobsOpts.Limit 1001 is above MaxListLimit (1000): read further pages with Offset"},
		"SearchJobs": {searchErr, "hopper: invalid config: SearchJobsOpts.Limit 1001 is above MaxListLimit (1000): go on from the page's Next"},
	} {
		if !errors.Is(tc.err, hopper.ErrInvalidConfig) || tc.err.Error() != tc.want {
			t.Errorf("%s with Limit 1001: %v, want %q", what, tc.err, tc.want)
		}
	}
	if _, err := in.ListJobs(ctx, hopper.ListJobsOpts{Queue: "default", State: hopper.StateReady, Limit: hopper.MaxListLimit}); err != nil {
		t.Errorf("ListJobs with Limit MaxListLimit: %v, want it accepted", err)
	}
}
