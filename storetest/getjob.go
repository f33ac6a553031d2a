package storetest

import (
	"bytes"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func getJobCases() []adminCase {
	var cases []adminCase
	for _, ps := range putStates {
		cases = append(cases, adminCase{name: ps.name, fn: func(t *testing.T, s store.Store, a store.Admin) {
			testGetJobIn(t, s, a, ps.state)
		}})
	}
	return append(cases,
		adminCase{name: "NotFound", fn: testGetJobNotFound},
		adminCase{name: "Args", fn: testGetJobArgs},
		adminCase{name: "Meta", fn: testGetJobMeta},
		adminCase{name: "NewJobFields", fn: testGetJobFields},
	)
}

func testGetJobIn(t *testing.T, s store.Store, a store.Admin, st store.JobState) {
	q := newQueue(t)
	j := withRetries(q, "a", 2)
	j.Meta = map[string]string{"k": "v"}
	before := time.Now()
	g := put(t, s, a, j, st)
	after := time.Now()
	if g.Kind != kind || string(g.Args) != "args of a" || g.Meta["k"] != "v" || g.MaxRetries != 2 {
		t.Fatalf("GetJob in %s: Kind %q, Args %q, Meta %v, MaxRetries %d; want %q, %q, k=v, 2", st, g.Kind, g.Args, g.Meta, g.MaxRetries, kind, "args of a")
	}
	requireNow(t, "EnqueuedAt", g.EnqueuedAt, before, after)
	wantAttempt := 1
	if st == store.StatePending || st == store.StateReady {
		wantAttempt = 0
	}
	if g.Attempt != wantAttempt {
		t.Fatalf("GetJob in %s: Attempt %d, want %d", st, g.Attempt, wantAttempt)
	}
	if wantAttempt == 1 {
		requireNow(t, "AttemptedAt", g.AttemptedAt, before, after)
	} else if !g.AttemptedAt.IsZero() {
		t.Fatalf("GetJob in %s: AttemptedAt %v, want zero before the first attempt", st, g.AttemptedAt)
	}
	if st == store.StateUnack {
		requireNear(t, "Deadline of a job claimed with a 1h lease", g.Deadline, g.AttemptedAt.Add(long), time.Second)
	} else if !g.Deadline.IsZero() || g.Token != 0 {
		t.Fatalf("GetJob in %s: Deadline %v, Token %d; want both zero outside unack", st, g.Deadline, g.Token)
	}
	switch st {
	case store.StatePending, store.StateRetry:
		requireNow(t, "RunAt minus 1h", g.RunAt.Add(-long), before, after)
	}
	wantErrors := 0
	if st == store.StateRetry || st == store.StateGarbage {
		wantErrors = 1
	}
	if len(g.Errors) != wantErrors || wantErrors == 1 && (g.Errors[0].Error != "boom" || g.Errors[0].Attempt != 1) {
		t.Fatalf("GetJob in %s: Errors %+v, want %d error(s) (boom, attempt 1)", st, g.Errors, wantErrors)
	}
	if st == store.StateGarbage || st == store.StateDone {
		requireNow(t, "FinishedAt", g.FinishedAt, before, after)
	} else if !g.FinishedAt.IsZero() {
		t.Fatalf("GetJob in %s: FinishedAt %v, want zero for a job not finished", st, g.FinishedAt)
	}
}

func testGetJobNotFound(t *testing.T, s store.Store, a store.Admin) {
	q, other := newQueue(t), newQueue(t)
	add(t, s, job(q, "a"))
	for _, c := range []struct{ q, id string }{{q, "b"}, {other, "a"}} {
		j, err := a.GetJob(t.Context(), c.q, c.id)
		if !errors.Is(err, store.ErrJobNotFound) || j != nil {
			t.Fatalf("GetJob(%q, %q) with no such job in that queue: got %+v, %v; want nil, ErrJobNotFound", c.q, c.id, j, err)
		}
	}
}

// testGetJobArgs: GetJob returns args as they were enqueued, byte for
// byte.
func testGetJobArgs(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	for _, v := range argVariants() {
		j := job(q, v.name)
		j.Args = v.args
		add(t, s, j)
		if got := getJob(t, a, q, v.name).Args; !bytes.Equal(got, v.args) {
			t.Fatalf("GetJob of a job with %s args returned %d bytes of args, want the %d bytes enqueued (first difference at %d)",
				v.name, len(got), len(v.args), firstDiff(got, v.args))
		}
	}
}

func testGetJobMeta(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	j := job(q, "with-meta")
	j.Meta = maps.Clone(testMeta)
	add(t, s, j, job(q, "no-meta"))
	if got := getJob(t, a, q, "with-meta").Meta; !maps.Equal(got, testMeta) {
		t.Fatalf("GetJob Meta = %q, want %q", got, testMeta)
	}
	if got := getJob(t, a, q, "no-meta").Meta; len(got) != 0 {
		t.Fatalf("job enqueued with nil Meta has Meta %q, want none", got)
	}
}

func testGetJobFields(t *testing.T, s store.Store, a store.Admin) {
	q := newQueue(t)
	j := fieldsJob(q)
	before := time.Now()
	add(t, s, j)
	after := time.Now()
	got := getJob(t, a, q, "fields")
	requireFields(t, "GetJob", got, record(j), before, after)
	if got.Attempt != 0 || !got.AttemptedAt.IsZero() || !got.FinishedAt.IsZero() || len(got.Errors) != 0 || got.Cancelled || got.Token != 0 {
		t.Fatalf("new job: Attempt %d, AttemptedAt %v, FinishedAt %v, Errors %v, Cancelled %v, Token %d; want all zero",
			got.Attempt, got.AttemptedAt, got.FinishedAt, got.Errors, got.Cancelled, got.Token)
	}
	c := claimOne(t, s, q, "fields", long)
	if !c.EnqueuedAt.Equal(got.EnqueuedAt) {
		t.Fatalf("claimed job's EnqueuedAt %v differs from GetJob's %v", c.EnqueuedAt, got.EnqueuedAt)
	}
}
