package redisstore_test

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// fastWorkflow stores, in a store of its own on a private server (whose
// command counts are the test's alone), workflow "wf": tasks a, b and c
// in queue fq, d in fq after a, e in queue other after b; and claims a, b
// and c.
func fastWorkflow(t *testing.T) (*redisstore.Store, *redis.Client, map[string]*store.JobRecord) {
	t.Helper()
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), NoCoalescing: true})
	_, err := s.EnqueueWorkflow(t.Context(), &store.NewWorkflow{ID: "wf", Tasks: []*store.NewTask{
		wfTask("wf", "a", "fq"), wfTask("wf", "b", "fq"), wfTask("wf", "c", "fq"),
		wfTask("wf", "d", "fq", "a"), wfTask("wf", "e", "other", "b"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := claimedByID(t, s, "fq")
	for _, task := range []string{"a", "b", "c"} {
		if jobs[store.TaskJobID("wf", task)] == nil {
			t.Fatalf("claimed %v from fq, want the jobs of tasks a, b and c", jobs)
		}
	}
	return s, rdb, jobs
}

// taskStates returns the states of workflow wf's tasks, by name.
func taskStates(t *testing.T, s *redisstore.Store, wf string) map[string]store.TaskState {
	t.Helper()
	rec, err := s.GetWorkflow(t.Context(), wf)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.TaskState{}
	for _, task := range rec.Tasks {
		out[task.Name] = task.State
	}
	return out
}

// Plain acks of workflow tasks' jobs, the usual end of a fan-out's task,
// take finish's fast way (ends_fast.lua), not the long way's reads of the
// rarer ends (SCARD of the cancelled jobs), and end what the long way
// ends: the acked tasks succeed, their jobs are deleted, the dependents
// they release are claimable in their queue and in another one, a stale
// token is told ErrLeaseLost (its task still running) and an unknown job
// ErrJobNotFound.
func TestFastFinishEndsTrackedAcks(t *testing.T) {
	ctx := t.Context()
	s, rdb, jobs := fastWorkflow(t)
	a, b, c := jobs[store.TaskJobID("wf", "a")], jobs[store.TaskJobID("wf", "b")], jobs[store.TaskJobID("wf", "c")]
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	stale := ack(c)
	stale.Token++
	unknown := ack(c)
	unknown.ID = store.TaskJobID("wf", "nope")
	errs, err := s.Finish(ctx, []store.AttemptEnd{ack(a), ack(b), stale, unknown})
	if err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil || errs[1] != nil || !errors.Is(errs[2], store.ErrLeaseLost) || !errors.Is(errs[3], store.ErrJobNotFound) {
		t.Fatalf("Finish: %v; want nil, nil, ErrLeaseLost, ErrJobNotFound", errs)
	}
	calls := commandCalls(t, rdb)
	if calls["fcall"] == 0 {
		t.Fatal("no FCALL counted: the counts do not show the finish")
	}
	if calls["scard"] != 0 {
		t.Fatalf("the finish ran SCARD %d times: it took the long way", calls["scard"])
	}
	states := taskStates(t, s, "wf")
	want := map[string]store.TaskState{"a": store.TaskSucceeded, "b": store.TaskSucceeded, "c": store.TaskEnqueued}
	for task, st := range want {
		if states[task] != st {
			t.Errorf("task %s is %q, want %q (all: %v)", task, states[task], st, states)
		}
	}
	for _, task := range []string{"a", "b"} {
		if _, err := s.GetJob(ctx, "fq", store.TaskJobID("wf", task)); !errors.Is(err, store.ErrJobNotFound) {
			t.Errorf("GetJob(task %s's job) after its ack: %v, want ErrJobNotFound", task, err)
		}
	}
	if got := slices.Sorted(maps.Keys(claimedByID(t, s, "fq"))); !slices.Equal(got, []string{store.TaskJobID("wf", "d")}) {
		t.Errorf("claimable in fq after the acks: %v, want d's job", got)
	}
	if got := slices.Sorted(maps.Keys(claimedByID(t, s, "other"))); !slices.Equal(got, []string{store.TaskJobID("wf", "e")}) {
		t.Errorf("claimable in other after the acks: %v, want e's job", got)
	}
}

// The fast way leaves to the long way the acks of tasks whose queue a
// reader's events or a retention concern: the reader is told of the
// task's success with its kind, the retained job is kept done, and each
// task's end still reaches its workflow.
func TestFastFinishLeavesEventsAndRetention(t *testing.T) {
	ctx := t.Context()
	t.Run("events", func(t *testing.T) {
		s, _, jobs := fastWorkflow(t)
		_, pos, _, err := s.ReadEvents(ctx, map[string]string{"fq": store.FromNow}, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		a := jobs[store.TaskJobID("wf", "a")]
		end := ack(a)
		end.Kind, end.Attempt = a.Kind, a.Attempt
		if errs, err := s.Finish(ctx, []store.AttemptEnd{end}); err != nil || errs[0] != nil {
			t.Fatalf("Finish: %v, %v", errs, err)
		}
		evs, _, _, err := s.ReadEvents(ctx, pos, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ok bool
		for _, e := range evs {
			ok = ok || (e.Type == store.EventSucceeded && e.ID == a.ID && e.Kind == "k")
		}
		if !ok {
			t.Errorf("events after task a's ack: %+v; want a's success, kind k", evs)
		}
		if st := taskStates(t, s, "wf")["a"]; st != store.TaskSucceeded {
			t.Errorf("task a is %q after its ack, want succeeded", st)
		}
	})
	t.Run("retention", func(t *testing.T) {
		s, _, jobs := fastWorkflow(t)
		if err := s.SetQueueConfig(ctx, "fq", store.QueueConfig{Retention: time.Hour}); err != nil {
			t.Fatal(err)
		}
		a := jobs[store.TaskJobID("wf", "a")]
		if errs, err := s.Finish(ctx, []store.AttemptEnd{ack(a)}); err != nil || errs[0] != nil {
			t.Fatalf("Finish: %v, %v", errs, err)
		}
		rec, err := s.GetJob(ctx, "fq", a.ID)
		if err != nil || rec.State != store.StateDone {
			t.Fatalf("GetJob(task a's job) after its ack with an hour's retention: %+v, %v; want it done", rec, err)
		}
		if st := taskStates(t, s, "wf")["a"]; st != store.TaskSucceeded {
			t.Errorf("task a is %q after its ack, want succeeded", st)
		}
	})
}
