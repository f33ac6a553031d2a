package storetest

import (
	"testing"

	"github.com/hopperq/hopper/store"
)

// testClaimSharedToken: the jobs of one claim share its token, and a
// token fences a claim of one job, not the claim as a whole: acking one
// job leaves the others of its claim unack, their leases held, and
// Extend or Finish of the acked job with that token then fails.
func testClaimSharedToken(t *testing.T, s store.Store) {
	q := newQueue(t)
	add(t, s, job(q, "a"), job(q, "b"))
	got := claim(t, s, q, 2, long).Jobs
	if len(got) != 2 {
		t.Fatalf("Claim(Max 2) returned %v, want a and b", ids(got))
	}
	a, b := got[0], got[1]
	if a.Token == 0 || a.Token != b.Token {
		t.Fatalf("jobs of one claim got tokens %d and %d, want one token, shared, not zero", a.Token, b.Token)
	}
	finishOK(t, s, outcome(a, store.OutcomeAck))
	sts, err := s.Extend(t.Context(), []store.LeaseRef{
		{Queue: q, ID: a.ID, Token: a.Token},
		{Queue: q, ID: b.ID, Token: b.Token},
	}, long)
	if err != nil {
		t.Fatalf("Extend after acking a: %v", err)
	}
	if sts[0].Held || sts[0].Err != nil {
		t.Fatalf("Extend of acked job a with the claim's token: %+v, want not held", sts[0])
	}
	if !sts[1].Held || sts[1].Err != nil {
		t.Fatalf("Extend of job b after acking a, which shares b's token: %+v, want held", sts[1])
	}
	claimNone(t, s, q, "b is still claimed: acking a does not end b's claim")
	finishOK(t, s, outcome(b, store.OutcomeAck))
}
