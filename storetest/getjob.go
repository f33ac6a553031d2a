package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func getJobCases() []testCase {
	var cases []testCase
	for _, ps := range putStates {
		cases = append(cases, testCase{name: ps.name, fn: func(t *testing.T, s store.Store) {
			testGetJobIn(t, s, ps.state)
		}})
	}
	return append(cases,
		testCase{name: "NotFound", fn: testGetJobNotFound},
	)
}

func testGetJobIn(t *testing.T, s store.Store, st store.JobState) {
	q := newQueue(t)
	j := withRetries(q, "a", 2)
	j.Meta = map[string]string{"k": "v"}
	before := time.Now()
	g := put(t, s, j, st)
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

func testGetJobNotFound(t *testing.T, s store.Store) {
	q, other := newQueue(t), newQueue(t)
	add(t, s, job(q, "a"))
	for _, c := range []struct{ q, id string }{{q, "b"}, {other, "a"}} {
		j, err := adm(t, s).GetJob(t.Context(), c.q, c.id)
		if !errors.Is(err, store.ErrJobNotFound) || j != nil {
			t.Fatalf("GetJob(%q, %q) with no such job in that queue: got %+v, %v; want nil, ErrJobNotFound", c.q, c.id, j, err)
		}
	}
}
