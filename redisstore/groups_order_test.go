package redisstore_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestGroupOrderAcrossThousands: a group's jobs keep their order when the
// order keys of one push cross a multiple of a thousand (groups/store.lua
// formats the number once per thousand keys): pushed to the back by an
// enqueue, and to the front by released jobs.
func TestGroupOrderAcrossThousands(t *testing.T) {
	s, rdb, prefix := newPrefixedStore(t)
	ctx := t.Context()
	marks := "{" + prefix + ":q}:m"
	var jobs []*store.NewJob
	var want []string
	for i := range 10 {
		j := job("q", fmt.Sprintf("a%d", i))
		j.Group = "g"
		jobs = append(jobs, j)
		want = append(want, j.ID)
	}
	// A first grouped job shapes the queue; then the counters sit just
	// below a thousand.
	first := job("q", "first")
	first.Group = "g"
	mustEnqueue(t, s, first)
	claimIDs(t, s, 1, "first")
	if err := rdb.HSet(ctx, marks, "gs", 995, "gf", 995).Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, jobs...)
	res := claimIDs(t, s, 10, want...)
	// Released in one call, they go back to the front of the group in one
	// push, in their order.
	ends := make([]store.AttemptEnd, len(res.Jobs))
	for i, j := range res.Jobs {
		ends[i] = store.AttemptEnd{Queue: "q", ID: j.ID, Token: j.Token, Outcome: store.OutcomeRelease}
	}
	if _, err := s.Finish(ctx, ends); err != nil {
		t.Fatal(err)
	}
	claimIDs(t, s, 10, want...)
}

// claimIDs claims up to n jobs of queue q and fails unless they are want,
// in that order.
func claimIDs(t *testing.T, s *redisstore.Store, n int, want ...string) store.ClaimResult {
	t.Helper()
	res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "q", Max: n, Lease: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range res.Jobs {
		got = append(got, j.ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("claimed %v, want %v", got, want)
	}
	return res
}
