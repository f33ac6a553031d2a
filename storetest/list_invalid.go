package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

// invalidStates are states no store may list or search: empty, and a name
// that is not one of store.States.
var invalidStates = []store.JobState{"", "bogus"}

// testListInvalid: ListJobs refuses a state that is not one of
// store.States with an error wrapping store.ErrInvalidState, and a
// negative Offset or Limit with one wrapping store.ErrInvalidConfig, on a
// queue that holds jobs as on one never seen; a valid request still lists.
func testListInvalid(t *testing.T, s store.Store, a store.Admin) {
	ctx := t.Context()
	q := newQueue(t)
	add(t, s, job(q, "a"), job(q, "b"), delayed(q, "c", time.Hour), delayed(q, "d", time.Hour))
	if _, err := a.ListJobs(ctx, store.ListJobsOpts{Queue: "bad queue", State: store.StateReady, Limit: 10}); !errors.Is(err, store.ErrInvalidQueue) {
		t.Fatalf("ListJobs(%q): error %v, want one wrapping store.ErrInvalidQueue", "bad queue", err)
	}
	// A Limit of 0 asks for the total alone, in a state kept by due time
	// as in one kept in order.
	for _, st := range []store.JobState{store.StatePending, store.StateReady} {
		p, err := a.ListJobs(ctx, store.ListJobsOpts{Queue: q, State: st})
		if err != nil || len(p.Jobs) != 0 || p.Total != 2 {
			t.Fatalf("ListJobs(%s, Limit 0): %v, Total %d, %v; want no job, Total 2, no error", st, ids(p.Jobs), p.Total, err)
		}
	}
	for _, queue := range []string{q, newQueue(t)} {
		for _, st := range invalidStates {
			_, err := a.ListJobs(ctx, store.ListJobsOpts{Queue: queue, State: st, Limit: 10})
			if !errors.Is(err, store.ErrInvalidState) {
				t.Fatalf("ListJobs(%q, State %q): error %v, want one wrapping store.ErrInvalidState", queue, st, err)
			}
		}
		for _, req := range []store.ListJobsOpts{{Offset: -1, Limit: 10}, {Limit: -1}} {
			req.Queue, req.State = queue, store.StateReady
			if _, err := a.ListJobs(ctx, req); !errors.Is(err, store.ErrInvalidConfig) {
				t.Fatalf("ListJobs(%q, Offset %d, Limit %d): error %v, want one wrapping store.ErrInvalidConfig", queue, req.Offset, req.Limit, err)
			}
		}
	}
	if p := list(t, a, store.ListJobsOpts{Queue: q, State: store.StateReady, Limit: 10}); !sameIDs(p.Jobs, []string{"a", "b"}) || p.Total != 2 {
		t.Fatalf("ListJobs(ready) after the refused requests: %v, Total %d; want [a b], Total 2", ids(p.Jobs), p.Total)
	}
}

// testSearchInvalid: SearchJobs refuses a state that is not one of
// store.States with an error wrapping store.ErrInvalidState, by every walk,
// with a kind or without, and a negative From, Examine or Limit with one
// wrapping store.ErrInvalidConfig, on a queue with a kind index as on one
// never seen; a valid request still finds.
func testSearchInvalid(t *testing.T, s store.Store, se store.Searcher, a store.Admin) {
	ctx := t.Context()
	q := newQueue(t)
	if err := a.SetQueueConfig(ctx, q, store.QueueConfig{KindIndex: true}); err != nil {
		t.Fatal(err)
	}
	add(t, s, job(q, "a"), job(q, "b"), delayed(q, "c", time.Hour), delayed(q, "d", time.Hour))
	walks := []store.SearchWalk{store.SearchWalkState, store.SearchWalkKind, store.SearchWalkShorter}
	if _, err := se.SearchJobs(ctx, store.SearchJobsOpts{Queue: "bad queue", State: store.StateReady, Examine: 100, Limit: 10}); !errors.Is(err, store.ErrInvalidQueue) {
		t.Fatalf("SearchJobs(%q): error %v, want one wrapping store.ErrInvalidQueue", "bad queue", err)
	}
	for _, req := range []store.SearchJobsOpts{{Walk: store.SearchWalkShorter + 1, Kind: kind}, {Walk: -1}, {Walk: store.SearchWalkKind}} {
		req.Queue, req.State, req.Examine, req.Limit = q, store.StateReady, 100, 10
		if _, err := se.SearchJobs(ctx, req); !errors.Is(err, store.ErrInvalidConfig) {
			t.Fatalf("SearchJobs(walk %d, Kind %q): error %v, want one wrapping store.ErrInvalidConfig", req.Walk, req.Kind, err)
		}
	}
	// Examine 0 reports the walk's total alone, Limit 0 no candidate, in
	// a state kept by due time as in one kept in order, by every walk.
	for _, st := range []store.JobState{store.StatePending, store.StateReady} {
		for _, walk := range walks {
			for _, req := range []store.SearchJobsOpts{{Examine: 0, Limit: 10}, {Examine: 100, Limit: 0}} {
				req.Queue, req.State, req.Kind, req.Walk = q, st, kind, walk
				p, err := se.SearchJobs(ctx, req)
				if err != nil || len(p.Jobs) != 0 || p.Total == 0 {
					t.Fatalf("SearchJobs(%s, walk %d, Examine %d, Limit %d): %v, Total %d, %v; want no job, a Total, no error",
						st, walk, req.Examine, req.Limit, ids(p.Jobs), p.Total, err)
				}
			}
		}
	}
	for _, queue := range []string{q, newQueue(t)} {
		for _, st := range invalidStates {
			for _, k := range []string{"", kind} {
				for _, walk := range walks {
					req := store.SearchJobsOpts{Queue: queue, State: st, Kind: k, Walk: walk, Examine: 100, Limit: 10}
					if _, err := se.SearchJobs(ctx, req); !errors.Is(err, store.ErrInvalidState) {
						t.Fatalf("SearchJobs(%q, State %q, Kind %q, walk %d): error %v, want one wrapping store.ErrInvalidState", queue, st, k, walk, err)
					}
				}
			}
		}
		for _, req := range []store.SearchJobsOpts{{From: -1, Examine: 100, Limit: 10}, {Examine: -1, Limit: 10}, {Examine: 100, Limit: -1}} {
			req.Queue, req.State, req.Kind = queue, store.StateReady, kind
			if _, err := se.SearchJobs(ctx, req); !errors.Is(err, store.ErrInvalidConfig) {
				t.Fatalf("SearchJobs(%q, From %d, Examine %d, Limit %d): error %v, want one wrapping store.ErrInvalidConfig", queue, req.From, req.Examine, req.Limit, err)
			}
		}
	}
	for _, walk := range walks {
		p, err := se.SearchJobs(ctx, store.SearchJobsOpts{Queue: q, State: store.StateReady, Kind: kind, Walk: walk, Examine: 100, Limit: 10})
		if err != nil || !sameIDs(p.Jobs, []string{"a", "b"}) {
			t.Fatalf("SearchJobs(ready, walk %d) after the refused requests: %v, %v; want [a b], nil", walk, ids(p.Jobs), err)
		}
	}
}
