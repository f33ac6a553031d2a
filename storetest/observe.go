package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// Engine cases observe a store through store.Store alone:
//
//   - Claim returns a job's full record, so what a job holds (args, meta,
//     attempt, errors, due time) is read by claiming it.
//   - A ready job is peeked at by claiming it and releasing it at once:
//     OutcomeRelease puts it back at the front of ready with the attempt
//     uncounted (peek releases several in reverse order to keep their
//     order).
//   - A job still held, in whatever state, makes an Enqueue of its ID
//     report a duplicate; the ID of a deleted job is free again.
//   - Maintain says what it promoted, reclaimed and collected, and when
//     the next job of a queue falls due (NextIn) or that none is scheduled
//     (Idle).
//   - Finish and Extend report per request, so a claim still held shows
//     in Extend's Held.

// maintain calls Store.Maintain or fails the test.
func maintain(t *testing.T, s store.Store, q string, opts store.MaintainOpts) store.MaintainResult {
	t.Helper()
	res, err := s.Maintain(t.Context(), q, opts)
	if err != nil {
		t.Fatalf("Maintain(%q, %+v): unexpected error: %v", q, opts, err)
	}
	return res
}

// maintainUntil calls Maintain on q until cond, given what the calls did
// so far added up, holds; it returns that sum.
func maintainUntil(t *testing.T, s store.Store, q string, opts store.MaintainOpts, cond func(sum store.MaintainResult) error) store.MaintainResult {
	t.Helper()
	var sum store.MaintainResult
	testutil.Eventually(t, waitFor, func() error {
		r := maintain(t, s, q, opts)
		sum.Promoted += r.Promoted
		sum.Reclaimed += r.Reclaimed
		sum.Collected += r.Collected
		return cond(sum)
	})
	return sum
}

// awaitReclaim calls Maintain on q until it reclaimed an expired lease and
// returns the sum of what the calls did.
func awaitReclaim(t *testing.T, s store.Store, q string) store.MaintainResult {
	t.Helper()
	return maintainUntil(t, s, q, store.MaintainOpts{}, func(sum store.MaintainResult) error {
		if sum.Reclaimed == 0 {
			return fmt.Errorf("Maintain of %q reclaimed nothing, want a lease that expired reclaimed", q)
		}
		return nil
	})
}

// requireNextIn fails unless r.NextIn is about want, a duration the store
// measured from its own now (a little less, as time passes between setting
// up and calling Maintain).
func requireNextIn(t *testing.T, r store.MaintainResult, want time.Duration, what string) {
	t.Helper()
	if r.Idle || r.NextIn > want+msSlack || r.NextIn < want-clockSlack {
		t.Fatalf("Maintain with %s: NextIn %v, Idle %v; want about %v, not idle", what, r.NextIn, r.Idle, want)
	}
}

// requireNextInAbout fails unless r.NextIn is within clockSlack of want, a
// duration measured on the test's clock (for a RunAt the test chose).
func requireNextInAbout(t *testing.T, r store.MaintainResult, want time.Duration, what string) {
	t.Helper()
	if r.Idle || r.NextIn > want+clockSlack || r.NextIn < want-clockSlack {
		t.Fatalf("Maintain with %s: NextIn %v, Idle %v; want %v (±%v), not idle", what, r.NextIn, r.Idle, want, clockSlack)
	}
}

// requireIdle fails unless Maintain finds nothing scheduled in q and does
// nothing.
func requireIdle(t *testing.T, s store.Store, q, why string) {
	t.Helper()
	if r := maintain(t, s, q, store.MaintainOpts{}); !r.Idle || r.Promoted+r.Reclaimed+r.Collected != 0 {
		t.Fatalf("Maintain of %q (%s): %+v, want Idle and nothing done", q, why, r)
	}
}

// peek returns the ready jobs of q, first in first out, as Claim returns
// them (Attempt counted, a Token and Deadline set), and leaves them ready
// in the same order: it claims them and releases them in reverse order.
// q must have no concurrency or rate limit.
func peek(t *testing.T, s store.Store, q string) []*store.JobRecord {
	t.Helper()
	got := claim(t, s, q, 1000, long).Jobs
	for _, j := range slices.Backward(got) {
		finishOK(t, s, outcome(j, store.OutcomeRelease))
	}
	return got
}

// requireReady fails unless the ready jobs of q are want, in that order,
// and returns them as peek does.
func requireReady(t *testing.T, s store.Store, q string, want ...string) []*store.JobRecord {
	t.Helper()
	got := peek(t, s, q)
	if !sameIDs(got, want) {
		t.Fatalf("ready jobs of %q (claimed and released): %v, want %v", q, ids(got), want)
	}
	return got
}

// probe is the job requireHeld and requireFree enqueue: due in two hours,
// so that it does not disturb what a case claims.
func probe(q, id string) *store.NewJob {
	j := delayed(q, id, 2*long)
	j.Args = []byte("probe")
	return j
}

// requireHeld fails unless job id of q still exists (in any state): an
// Enqueue of its ID reports a duplicate naming it, and adds nothing.
func requireHeld(t *testing.T, s store.Store, q, id, why string) {
	t.Helper()
	r := enqueue(t, s, probe(q, id))[0]
	if want := (store.EnqueueResult{ID: id, Duplicate: true}); r != want {
		t.Fatalf("Enqueue of ID %q in %q (%s): got %+v, want %+v (the job is still held)", id, q, why, r, want)
	}
}

// requireFree fails unless no job id exists in q: an Enqueue of its ID adds
// a job. That job, due in two hours, is left in q.
func requireFree(t *testing.T, s store.Store, q, id, why string) {
	t.Helper()
	r := enqueue(t, s, probe(q, id))[0]
	if r.Duplicate || r.ID != id || r.State != store.StatePending {
		t.Fatalf("Enqueue of ID %q in %q after %s: got %+v, want it added to pending (no job %q left)", id, q, why, r, id)
	}
}

// requireOwner fails unless c is still the current claim of its job:
// Extend with its token reports the lease held. It extends the lease by
// an hour.
func requireOwner(t *testing.T, s store.Store, c *store.JobRecord, after string) {
	t.Helper()
	st := extend(t, s, long, ref(c))[0]
	if !st.Held || st.Err != nil {
		t.Fatalf("after %s, Extend with the current claim's token of %q: %+v, want Held (the claim unchanged)", after, c.ID, st)
	}
}

// extend calls Store.Extend and fails on an error or a wrong number of
// statuses.
func extend(t *testing.T, s store.Store, lease time.Duration, refs ...store.LeaseRef) []store.LeaseStatus {
	t.Helper()
	st, err := s.Extend(t.Context(), refs, lease)
	if err != nil {
		t.Fatalf("Extend(%d refs, %v): unexpected error: %v", len(refs), lease, err)
	}
	if len(st) != len(refs) {
		t.Fatalf("Extend(%d refs) returned %d statuses, want one per ref", len(refs), len(st))
	}
	return st
}

func ref(j *store.JobRecord) store.LeaseRef {
	return store.LeaseRef{Queue: j.Queue, ID: j.ID, Token: j.Token}
}

// drive enqueues job j and drives it into state st the way a worker would:
// unack by claiming it (so q must have no other ready job), retry and
// garbage by failing that claim with error text "boom", done by acking it
// with a retention. Pending and retry are due an hour from now; done is
// kept an hour. A job driven to retry needs MaxRetries > 0. It returns the
// claim, nil for pending and ready.
func drive(t *testing.T, s store.Store, j *store.NewJob, st store.JobState) *store.JobRecord {
	t.Helper()
	if st == store.StatePending {
		j.Delay, j.RunAt = long, time.Time{}
	}
	add(t, s, j)
	if st == store.StatePending || st == store.StateReady {
		return nil
	}
	c := claimOne(t, s, j.Queue, j.ID, long)
	switch st {
	case store.StateUnack:
	case store.StateRetry:
		finishOK(t, s, failed(c, store.OutcomeRetry, "boom", long))
	case store.StateGarbage:
		finishOK(t, s, failed(c, store.OutcomeGarbage, "boom", 0))
	case store.StateDone:
		r := outcome(c, store.OutcomeAck)
		r.Retention = long
		finishOK(t, s, r)
	default:
		t.Fatalf("drive: cannot drive a job to state %q", st)
	}
	return c
}

// putStates lists the states drive can drive a job to, with a name for
// subtests.
var putStates = []struct {
	name  string
	state store.JobState
}{
	{"Pending", store.StatePending},
	{"Ready", store.StateReady},
	{"Unack", store.StateUnack},
	{"Retry", store.StateRetry},
	{"Garbage", store.StateGarbage},
	{"Done", store.StateDone},
}
