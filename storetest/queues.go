package storetest

import (
	"slices"
	"testing"

	"github.com/hopperq/hopper/store"
)

func queuesCases() []engineCase {
	return []engineCase{
		{name: "ListsSeen", fn: testStatsQueues},
	}
}

func testStatsQueues(t *testing.T, s store.Store) {
	q1, q2 := newQueue(t), newQueue(t)
	add(t, s, job(q1, "a"), delayed(q2, "b", long), job(q1, "c"))
	qs, err := s.ListQueues(t.Context())
	if err != nil {
		t.Fatalf("Queues: unexpected error: %v", err)
	}
	for _, q := range []string{q1, q2} {
		if n := count(qs, q); n != 1 {
			t.Fatalf("Queues lists %q %d times, want once (a job was enqueued into it); got %q", q, n, qs)
		}
	}
	if !slices.IsSorted(qs) {
		t.Fatalf("Queues = %q, want sorted by name", qs)
	}
}

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}
