package storetest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

const (
	// waitFor is how long a wait polls before it gives up: generous, so
	// that a slow machine under -race never fails a correct store.
	waitFor = testutil.Wait
	// clockSlack is how far a time the store reports may be from the test's
	// own clock (a store's clock may be a server's). Checks of one store time
	// against another store time use msSlack instead.
	clockSlack = 2 * time.Second
	// msSlack absorbs the store's millisecond rounding.
	msSlack = time.Millisecond
	// long is a delay, lease or retention no subtest outlives.
	long = time.Hour
	// kind is the job kind the suite uses unless a subtest needs several.
	kind = "storetest"
)

var (
	runID    = randomHex(4) // tells runs apart on a shared server
	queueSeq atomic.Uint64
)

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("storetest: " + err.Error())
	}
	return hex.EncodeToString(b)
}

// newQueue returns a queue name no other subtest (in this or another run)
// uses, with a readable hint of the subtest's name.
func newQueue(t *testing.T) string {
	return fmt.Sprintf("st.%s.%s.%d", nameHint(t), runID, queueSeq.Add(1))
}

// nameHint returns the last element of the subtest's name, letters, digits
// and '_' only, at most 24 bytes: a hint for names a subtest creates.
func nameHint(t *testing.T) string {
	name := t.Name()
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	hint := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return -1
	}, name)
	if len(hint) > 24 {
		hint = hint[:24]
	}
	return hint
}

// job returns a valid NewJob for queue q with ID id, ready at once, no
// retries. Callers set other fields on the result.
func job(q, id string) *store.NewJob {
	return &store.NewJob{ID: id, Queue: q, Kind: kind, Args: []byte("args of " + id)}
}

// delayed returns job(q, id) due d from now.
func delayed(q, id string, d time.Duration) *store.NewJob {
	j := job(q, id)
	j.Delay = d
	return j
}

// withRetries returns job(q, id) with MaxRetries n.
func withRetries(q, id string, n int) *store.NewJob {
	j := job(q, id)
	j.MaxRetries = n
	return j
}

// enqueue calls Store.Enqueue and fails the test on an error or a wrong
// number of results.
func enqueue(t *testing.T, s store.Store, jobs ...*store.NewJob) []store.EnqueueResult {
	t.Helper()
	res, err := s.Enqueue(t.Context(), jobs)
	if err != nil {
		t.Fatalf("Enqueue(%d jobs): unexpected error: %v", len(jobs), err)
	}
	if len(res) != len(jobs) {
		t.Fatalf("Enqueue(%d jobs) returned %d results, want one per job", len(jobs), len(res))
	}
	return res
}

// add enqueues jobs and fails the test unless every one was added (not a
// duplicate) under its own ID.
func add(t *testing.T, s store.Store, jobs ...*store.NewJob) {
	t.Helper()
	for i, r := range enqueue(t, s, jobs...) {
		if r.Duplicate || r.ID != jobs[i].ID {
			t.Fatalf("Enqueue of new job %q in %q: got %+v, want it added under its ID", jobs[i].ID, jobs[i].Queue, r)
		}
	}
}

// claim claims up to n jobs from q with the given lease.
func claim(t *testing.T, s store.Store, q string, n int, lease time.Duration) store.ClaimResult {
	t.Helper()
	res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: q, Max: n, Lease: lease, WorkerID: "storetest"})
	if err != nil {
		t.Fatalf("Claim(%q, Max %d, Lease %v): unexpected error: %v", q, n, lease, err)
	}
	if len(res.Jobs) > n {
		t.Fatalf("Claim(%q, Max %d) returned %d jobs, want at most %d", q, n, len(res.Jobs), n)
	}
	return res
}

// claimOne claims one job from q and fails unless it is the job id.
func claimOne(t *testing.T, s store.Store, q, id string, lease time.Duration) *store.JobRecord {
	t.Helper()
	res := claim(t, s, q, 1, lease)
	if len(res.Jobs) != 1 {
		t.Fatalf("Claim(%q) returned %d jobs, want job %q (ready)", q, len(res.Jobs), id)
	}
	if j := res.Jobs[0]; j.ID != id {
		t.Fatalf("Claim(%q) returned job %q, want %q", q, j.ID, id)
	}
	return res.Jobs[0]
}

// claimNone fails unless Claim on q returns no job.
func claimNone(t *testing.T, s store.Store, q, why string) store.ClaimResult {
	t.Helper()
	res := claim(t, s, q, 10, long)
	if len(res.Jobs) != 0 {
		t.Fatalf("Claim(%q) returned %v, want no job (%s)", q, ids(res.Jobs), why)
	}
	return res
}

// claimWhenDue polls Maintain and Claim on q until a job is claimed and
// returns it.
func claimWhenDue(t *testing.T, s store.Store, q string, lease time.Duration) *store.JobRecord {
	t.Helper()
	var got *store.JobRecord
	testutil.Eventually(t, waitFor, func() error {
		maintain(t, s, q, store.MaintainOpts{})
		if res := claim(t, s, q, 1, lease); len(res.Jobs) == 1 {
			got = res.Jobs[0]
			return nil
		}
		return fmt.Errorf("no job claimable in %q, want one to fall due", q)
	})
	return got
}

// finish calls Store.Finish and fails the test on a call error or a wrong
// number of results.
func finish(t *testing.T, s store.Store, reqs ...store.AttemptEnd) []error {
	t.Helper()
	errs, err := s.Finish(t.Context(), reqs)
	if err != nil {
		t.Fatalf("Finish(%d requests): unexpected error: %v", len(reqs), err)
	}
	if len(errs) != len(reqs) {
		t.Fatalf("Finish(%d requests) returned %d errors, want one per request", len(reqs), len(errs))
	}
	return errs
}

// outcome builds the AttemptEnd that ends j's current claim with o.
func outcome(j *store.JobRecord, o store.Outcome) store.AttemptEnd {
	return store.AttemptEnd{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: o, Kind: j.Kind, Attempt: j.Attempt}
}

// failed builds a retry or garbage AttemptEnd for j with an error
// message and the given delay.
func failed(j *store.JobRecord, o store.Outcome, msg string, delay time.Duration) store.AttemptEnd {
	r := outcome(j, o)
	r.Delay = delay
	r.Error = &store.AttemptError{Attempt: j.Attempt, Error: msg}
	return r
}

// finishOK finishes each request and fails unless all succeed.
func finishOK(t *testing.T, s store.Store, reqs ...store.AttemptEnd) {
	t.Helper()
	for i, err := range finish(t, s, reqs...) {
		if err != nil {
			t.Fatalf("Finish %s of %q with its current token: got %v, want nil", reqs[i].Outcome, reqs[i].ID, err)
		}
	}
}

// ids returns the IDs of jobs in order.
func ids(jobs []*store.JobRecord) []string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}

// sameIDs reports whether got and want hold the same IDs in the same order.
func sameIDs(got []*store.JobRecord, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i, j := range got {
		if j.ID != want[i] {
			return false
		}
	}
	return true
}

// seqIDs returns n IDs prefix0000, prefix0001, ... that sort in creation
// order.
func seqIDs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return out
}
