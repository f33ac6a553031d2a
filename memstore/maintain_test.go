package memstore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func TestMaintainBoundsEachDutyByBatch(t *testing.T) {
	s, clock := newClocked()
	var jobs []*store.NewJob
	for i := range 5 {
		j := newJob(fmt.Sprint("p", i))
		j.Delay = time.Duration(i+1) * time.Millisecond
		j.MaxRetries = 1
		jobs = append(jobs, j)
	}
	mustEnqueue(t, s, jobs...)
	clock.Set(ms(time.Second))
	m := maintain(t, s, store.MaintainOpts{Batch: 2})
	if m.Promoted != 2 || !m.More || m.NextIn != 0 {
		t.Fatalf("first call %+v, want 2 promoted and More", m)
	}
	maintain(t, s, store.MaintainOpts{Batch: 2})
	m = maintain(t, s, store.MaintainOpts{Batch: 2})
	if m.Promoted != 1 || m.More || !m.Idle {
		t.Fatalf("last call %+v, want 1 promoted, no More, Idle", m)
	}
	// Promoted in due order.
	if got := ids(claim(t, s, 5, time.Minute).Jobs); fmt.Sprint(got) != "[p0 p1 p2 p3 p4]" {
		t.Fatalf("ready order %v", got)
	}
	// Leases: reclaimed at most Batch at a time, back in ready at once.
	clock.Set(ms(time.Second + time.Minute))
	m = maintain(t, s, store.MaintainOpts{Batch: 3})
	if m.Reclaimed != 3 || m.Promoted != 0 || !m.More {
		t.Fatalf("reclaim %+v, want 3 reclaimed (none promoted: they are ready already), More", m)
	}
	if _, err := s.Maintain(context.Background(), testQueue, store.MaintainOpts{Batch: -1}); !errors.Is(err, store.ErrInvalidConfig) {
		t.Fatalf("negative batch: %v", err)
	}
}

func TestMaintainCollectsGarbageByAgeAndCount(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	for i := range 6 {
		mustEnqueue(t, s, newJob(fmt.Sprint("g", i)))
		c := claim(t, s, 1, time.Minute).Jobs[0]
		finish(t, s, store.AttemptEnd{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: store.OutcomeGarbage})
		clock.Advance(time.Minute) // g0 is the oldest
	}
	// Now is 6 minutes after g0 died, 1 minute after g5.
	m := maintain(t, s, store.MaintainOpts{GarbageMaxCount: 4})
	if m.Collected != 2 {
		t.Fatalf("by count: %+v, want 2 collected", m)
	}
	if _, err := s.GetJob(ctx, testQueue, "g1"); !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("g1 survived: %v", err)
	}
	getJob(t, s, "g2")
	m = maintain(t, s, store.MaintainOpts{GarbageMaxAge: 3 * time.Minute})
	if m.Collected != 2 || m.Idle || m.NextIn != time.Minute {
		t.Fatalf("by age: %+v, want 2 collected (g2, g3), next in 1m", m)
	}
	if m := maintain(t, s, store.MaintainOpts{}); !m.Idle {
		t.Fatalf("without an age limit garbage is not scheduled: %+v", m)
	}
}
