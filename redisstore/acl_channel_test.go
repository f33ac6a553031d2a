package redisstore_test

import (
	"slices"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestRefusedChannelLosesNoJob: an ACL user whose channel rule does not
// cover the prefix's channels (the documented line written for another
// prefix with its key patterns changed and "&hopper:*" not) loses no job
// and gets no error for a step that was done: the wake-ups and event
// messages a step publishes go through pcall. The first enqueue into an
// empty queue stored its job and failed ("can't publish to the
// channel"), and a claim while someone read the queue's events took its
// jobs off the ready list and then failed: they were in no state, never
// to run.
func TestRefusedChannelLosesNoJob(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"&hopper:*"}, nil, srv.Client)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	ctx := t.Context()
	// Someone reads the queue's events: its steps write entries and
	// publish that they did.
	if _, _, _, err := s.ReadEvents(ctx, map[string]string{"q": store.FromNow}, 1, 0); err != nil {
		t.Fatal(err)
	}
	want := []string{"a", "b", "c", "d", "e"}
	for _, id := range want {
		if res, err := s.Enqueue(ctx, []*store.NewJob{job("q", id)}); err != nil || res[0].Duplicate {
			t.Fatalf("Enqueue(%s): %+v, %v; want stored", id, res, err)
		}
	}
	got := claimedByID(t, s, "q")
	var ids []string
	var ends []store.AttemptEnd
	for id, j := range got {
		ids = append(ids, id)
		ends = append(ends, ack(j))
	}
	slices.Sort(ids)
	if !slices.Equal(ids, want) {
		t.Fatalf("claimed %v, want %v", ids, want)
	}
	if errs, err := s.Finish(ctx, ends); err != nil || slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
		t.Fatalf("Finish: %v, %v", errs, err)
	}
	st, err := s.GetQueueStats(ctx, "q")
	if err != nil {
		t.Fatal(err)
	}
	if c := st.Counts; c.Ready+c.Unack+c.Pending+c.Retry+c.Garbage != 0 {
		t.Fatalf("after the acks: %+v, want nothing left", c)
	}
	if n, err := admin.HLen(ctx, "{"+prefix+":q}:j").Result(); err != nil || n != 0 {
		t.Fatalf("jobs hash holds %d jobs after every ack (%v): jobs in no state", n, err)
	}
}
