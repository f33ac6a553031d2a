package redisstore_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
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
	flowThrough(t, s, "q", "a", "b", "c", "d", "e")
	if n, err := admin.HLen(ctx, "{"+prefix+":q}:j").Result(); err != nil || n != 0 {
		t.Fatalf("jobs hash holds %d jobs after every ack (%v): jobs in no state", n, err)
	}
}

// TestWatchWithoutPublishOrChannels: a job's watch ends when the job does
// for an ACL user whose end messages never come, whether its PUBLISH is
// refused (the scripts' pcall drops the message: the watch waited an
// hour) or its subscription is (WatchJob failed at once): the watch looks
// at the job every watchPoll.
func TestWatchWithoutPublishOrChannels(t *testing.T) {
	defer redisstore.SetWatchPoll(50 * time.Millisecond)()
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	for _, tc := range []struct {
		name    string
		without []string
	}{
		{"no publish", []string{"+publish"}},
		{"no channels", []string{"&hopper:*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := redistest.Prefix(t)
			rdb := aclUser(t, admin, prefix, prefix, tc.without, nil, srv.Client)
			s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true, Logger: testutil.Logger()})
			ctx := t.Context()
			if _, err := s.Enqueue(ctx, []*store.NewJob{job("q", "a")}); err != nil {
				t.Fatal(err)
			}
			ch, err := s.WatchJob(ctx, "q", "a")
			if err != nil {
				t.Fatalf("WatchJob: %v, want a watch that polls", err)
			}
			wf, err := s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "w", Tasks: []*store.NewTask{wfTask("w", "t", "q")}})
			if err != nil || wf {
				t.Fatalf("EnqueueWorkflow: %v, %v", wf, err)
			}
			wch, err := s.WatchWorkflow(ctx, "w")
			if err != nil {
				t.Fatalf("WatchWorkflow: %v, want a watch that polls", err)
			}
			got := claimedByID(t, s, "q")
			end := ack(got["a"])
			end.Retention = time.Minute // the record the watch reads
			if errs, err := s.Finish(ctx, []store.AttemptEnd{end, ack(got["w~t"])}); err != nil || errs[0] != nil || errs[1] != nil {
				t.Fatalf("Finish: %v, %v", errs, err)
			}
			w := testutil.Receive(t, ch, testutil.Wait, "the watch to end")
			if w.Err != nil || w.Job == nil || w.Job.State != store.StateDone {
				t.Fatalf("watch ended with %+v, want the job done", w)
			}
			we := testutil.Receive(t, wch, testutil.Wait, "the workflow's watch to end")
			if we.Err != nil || we.Workflow == nil || we.Workflow.State != store.WorkflowSucceeded {
				t.Fatalf("workflow watch ended with %+v, want the workflow succeeded", we)
			}
		})
	}
}

// TestRefusedXaddFailsNoStep: an ACL user without +xadd, while someone
// reads the queue's events, enqueues, claims and acks with no error and
// leaves no job behind: the entries go through pcall. The enqueue stored
// its job and then failed at the entry (the caller told it was not
// stored), and a claim took its jobs to unack and failed, leaving them
// there for their lease.
func TestRefusedXaddFailsNoStep(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"+xadd"}, nil, srv.Client)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true, Logger: testutil.Logger()})
	ctx := t.Context()
	// Someone reads the queue's events (the admin: a reader may read).
	reader := redisstore.New(admin, &redisstore.Config{Prefix: prefix})
	if _, _, _, err := reader.ReadEvents(ctx, map[string]string{"q": store.FromNow}, 1, 0); err != nil {
		t.Fatal(err)
	}
	flowThrough(t, s, "q", "a", "b", "c")
}

// flowThrough enqueues jobs ids into queue q of s one call each, claims
// them, acks them, and fails t unless every call succeeded and the queue
// holds nothing after.
func flowThrough(t *testing.T, s *redisstore.Store, q string, ids ...string) {
	t.Helper()
	ctx := t.Context()
	for _, id := range ids {
		if res, err := s.Enqueue(ctx, []*store.NewJob{job(q, id)}); err != nil || res[0].Duplicate {
			t.Fatalf("Enqueue(%s): %+v, %v; want stored", id, res, err)
		}
	}
	got := claimedByID(t, s, q)
	var claimed []string
	var ends []store.AttemptEnd
	for id, j := range got {
		claimed = append(claimed, id)
		ends = append(ends, ack(j))
	}
	slices.Sort(claimed)
	if !slices.Equal(claimed, ids) {
		t.Fatalf("claimed %v, want %v", claimed, ids)
	}
	if errs, err := s.Finish(ctx, ends); err != nil || slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
		t.Fatalf("Finish: %v, %v", errs, err)
	}
	st, err := s.GetQueueStats(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if c := st.Counts; c.Ready+c.Unack+c.Pending+c.Retry+c.Garbage != 0 {
		t.Fatalf("after the acks: %+v, want nothing left", c)
	}
}
