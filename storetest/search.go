package storetest

import (
	"testing"

	"github.com/hopperq/hopper/store"
)

// testSearchEmpty: a search of a state that holds no job, or from a
// position past the end of one, finds nothing and fails nowhere, with or
// without a kind index: the usual state of retry, pending and garbage,
// which an operator searches first. (redisstore once answered such a
// search with a script error, which the dashboard showed as a 500.)
func testSearchEmpty(t *testing.T, s store.Store, se store.Searcher, a store.Admin) {
	ctx := t.Context()
	for _, indexed := range []bool{false, true} {
		q := newQueue(t)
		if err := a.SetQueueConfig(ctx, q, store.QueueConfig{KindIndex: indexed}); err != nil {
			t.Fatal(err)
		}
		add(t, s, job(q, "a"), job(q, "b"))
		for _, st := range store.States {
			for _, from := range []int{0, 999_999_999} {
				for _, walk := range []store.SearchWalk{store.SearchWalkState, store.SearchWalkShorter} {
					req := store.SearchJobsOpts{Queue: q, State: st, Kind: "nothing-of-this-kind", Text: "alice", IDPrefix: "z",
						Walk: walk, From: from, Examine: 100, Limit: 50}
					p, err := se.SearchJobs(ctx, req)
					if err != nil {
						t.Fatalf("index %v: SearchJobs(%s, from %d, walk %d): %v", indexed, st, from, walk, err)
					}
					if len(p.Jobs) != 0 {
						t.Fatalf("index %v: SearchJobs(%s, from %d, walk %d) found %v in a search that matches nothing", indexed, st, from, walk, ids(p.Jobs))
					}
					if from > 0 && p.Examined != 0 {
						t.Fatalf("index %v: SearchJobs(%s) from past the end examined %d jobs", indexed, st, p.Examined)
					}
				}
			}
		}
	}
}
