package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// Helpers of the Admin cases. hopper.Inspector, the only production caller
// of store.Admin, checks every request before it reaches the store, so these
// send only valid ones: valid queues and states, Limit at least 1, a state
// the action allows, a QueueConfig passed through QueueConfig.Normalize.

// getJob returns the job or fails the test.
func getJob(t *testing.T, a store.Admin, q, id string) *store.JobRecord {
	t.Helper()
	j, err := a.GetJob(t.Context(), q, id)
	if err != nil {
		t.Fatalf("GetJob(%q, %q): unexpected error: %v", q, id, err)
	}
	if j == nil {
		t.Fatalf("GetJob(%q, %q) returned nil record and nil error", q, id)
	}
	if j.ID != id || j.Queue != q {
		t.Fatalf("GetJob(%q, %q) returned job %q of queue %q", q, id, j.ID, j.Queue)
	}
	return j
}

// requireState fails unless job id of q is in state want, and returns it.
func requireState(t *testing.T, a store.Admin, q, id string, want store.JobState) *store.JobRecord {
	t.Helper()
	j := getJob(t, a, q, id)
	if j.State != want {
		t.Fatalf("job %q: state %q, want %q", id, j.State, want)
	}
	return j
}

// requireNotFound fails unless GetJob reports ErrJobNotFound for id.
func requireNotFound(t *testing.T, a store.Admin, q, id, why string) {
	t.Helper()
	j, err := a.GetJob(t.Context(), q, id)
	if !errors.Is(err, store.ErrJobNotFound) {
		state := store.JobState("")
		if j != nil {
			state = j.State
		}
		t.Fatalf("GetJob(%q, %q) after %s: got state %q, error %v; want ErrJobNotFound", q, id, why, state, err)
	}
}

// stats returns QueueStats or fails the test.
func stats(t *testing.T, a store.Admin, q string) store.QueueStats {
	t.Helper()
	st, err := a.GetQueueStats(t.Context(), q)
	if err != nil {
		t.Fatalf("QueueStats(%q): unexpected error: %v", q, err)
	}
	return st
}

// requireCounts fails unless q's counts are want.
func requireCounts(t *testing.T, a store.Admin, q string, want store.StateCounts) {
	t.Helper()
	if got := stats(t, a, q).Counts; got != want {
		t.Fatalf("QueueStats(%q).Counts = %+v, want %+v", q, got, want)
	}
}

// setQueueConfig normalizes cfg, as the Inspector does, and calls
// Admin.SetQueueConfig, or fails the test.
func setQueueConfig(t *testing.T, a store.Admin, q string, cfg store.QueueConfig) {
	t.Helper()
	cfg, err := cfg.Normalize()
	if err != nil {
		t.Fatalf("storetest: QueueConfig %+v: %v", cfg, err)
	}
	if err := a.SetQueueConfig(t.Context(), q, cfg); err != nil {
		t.Fatalf("SetQueueConfig(%q, %+v): unexpected error: %v", q, cfg, err)
	}
}

// put drives job j into state st (see drive) and returns it as GetJob
// reports it.
func put(t *testing.T, s store.Store, a store.Admin, j *store.NewJob, st store.JobState) *store.JobRecord {
	t.Helper()
	drive(t, s, j, st)
	return requireState(t, a, j.Queue, j.ID, st)
}

// requireDone fails unless id is in done with result, finished between
// before and after.
func requireDone(t *testing.T, a store.Admin, q, id, result string, before, after time.Time) *store.JobRecord {
	t.Helper()
	d := requireState(t, a, q, id, store.StateDone)
	if string(d.Result) != result {
		t.Fatalf("done job %q: Result %q, want %q", id, d.Result, result)
	}
	requireNow(t, "FinishedAt of an acked job", d.FinishedAt, before, after)
	return d
}

// cancel calls Admin.CancelJob and fails unless it reports the job was in
// state want.
func cancel(t *testing.T, a store.Admin, q, id string, want store.JobState) {
	t.Helper()
	if st, err := a.CancelJob(t.Context(), q, id); err != nil || st != want {
		t.Fatalf("Cancel(%q, %q): got %q, %v; want %q, nil", q, id, st, err, want)
	}
}

// list calls Admin.ListJobs (with Limit 50 when req has none) or fails the
// test.
func list(t *testing.T, a store.Admin, req store.ListJobsOpts) store.JobPage {
	t.Helper()
	if req.Limit == 0 {
		req.Limit = 50
	}
	p, err := a.ListJobs(t.Context(), req)
	if err != nil {
		t.Fatalf("ListJobs(%+v): unexpected error: %v", req, err)
	}
	for _, j := range p.Jobs {
		if j.State != req.State || j.Queue != req.Queue {
			t.Fatalf("ListJobs of %s in %q returned job %q in state %s of queue %q", req.State, req.Queue, j.ID, j.State, j.Queue)
		}
	}
	return p
}
