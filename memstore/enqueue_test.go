package memstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func TestEnqueueWithAnInvalidJobWritesNothing(t *testing.T) {
	s := New(nil)
	ctx := context.Background()
	bad := newJob("bad id")
	for _, jobs := range [][]*store.NewJob{
		{newJob("a"), bad},
		{newJob("a"), nil},
		{newJob("a"), {ID: "b", Queue: "no/slash", Kind: "k"}},
	} {
		if _, err := s.Enqueue(ctx, jobs); err == nil {
			t.Fatalf("Enqueue(%v) succeeded", jobs)
		}
	}
	if _, err := s.Enqueue(ctx, []*store.NewJob{bad}); !errors.Is(err, store.ErrInvalidJob) {
		t.Fatalf("err %v, want ErrInvalidJob", err)
	}
	if _, err := s.GetJob(ctx, testQueue, "a"); !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("GetJob(a) = %v: a was written", err)
	}
	if qs, _ := s.ListQueues(ctx); len(qs) != 0 {
		t.Fatalf("queues %v, want none", qs)
	}
}

func TestEnqueueDuplicates(t *testing.T) {
	s, clock := newClocked()
	tick := func(id string, at time.Duration) *store.NewJob {
		j := newJob(id)
		j.Schedule, j.Tick = "every", ms(at)
		return j
	}
	res := mustEnqueue(t, s,
		newJob("a"),
		newJob("a"),                // same ID in the same call
		newUnique("u1", "key"),     // takes the key
		newUnique("u2", "key"),     // held by u1
		tick("t1", time.Minute),    // first tick
		tick("t2", time.Minute),    // same tick
		tick("t3", 30*time.Second), // older tick
	)
	want := []store.EnqueueResult{
		{ID: "a", State: store.StateReady},
		{ID: "a", Duplicate: true},
		{ID: "u1", State: store.StateReady},
		{ID: "u1", Duplicate: true},
		{ID: "t1", State: store.StateReady},
		{Duplicate: true},
		{Duplicate: true},
	}
	for i := range want {
		if res[i] != want[i] {
			t.Fatalf("result %d = %+v, want %+v", i, res[i], want[i])
		}
	}

	// A job in garbage still holds its ID but not its key.
	clock.Advance(time.Second)
	for range 2 {
		c := claim(t, s, 1, time.Minute).Jobs[0]
		finish(t, s, store.AttemptEnd{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: store.OutcomeGarbage})
	}
	if r := getJob(t, s, "u1"); r.State != store.StateGarbage {
		t.Fatalf("u1 in %s, want garbage", r.State)
	}
	res = mustEnqueue(t, s, newJob("a"), newUnique("u3", "key"), tick("t4", 2*time.Minute))
	want = []store.EnqueueResult{
		{ID: "a", Duplicate: true},
		{ID: "u3", State: store.StateReady},
		{ID: "t4", State: store.StateReady},
	}
	for i := range want {
		if res[i] != want[i] {
			t.Fatalf("after garbage: result %d = %+v, want %+v", i, res[i], want[i])
		}
	}
	if err := s.RegisterSchedules(context.Background(), []store.ScheduleInfo{{Name: "every", Queue: testQueue, Spec: "@every 1m"}}); err != nil {
		t.Fatal(err)
	}
	scheds, err := s.ListSchedules(context.Background())
	if err != nil || len(scheds) != 1 || !scheds[0].LastTick.Equal(ms(2*time.Minute)) {
		t.Fatalf("schedules %+v %v, want LastTick %v", scheds, err, ms(2*time.Minute))
	}
}
