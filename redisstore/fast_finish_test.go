package redisstore_test

import (
	"errors"
	"fmt"
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
// and c. It returns the store's client too, and its key prefix.
func fastWorkflow(t *testing.T) (*redisstore.Store, *redis.Client, map[string]*store.JobRecord, string) {
	t.Helper()
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
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
	return s, rdb, jobs, prefix
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
	s, rdb, jobs, _ := fastWorkflow(t)
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
		s, _, jobs, _ := fastWorkflow(t)
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
		s, _, jobs, _ := fastWorkflow(t)
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

// An ack whose claim was lost ends nothing and writes nothing, on the
// fast way as on the long one: a reader whose interest lapsed while only
// such acks came is not told, when it reads again, that it lost events.
func TestFastFinishOfLostClaimsLosesNoEvents(t *testing.T) {
	ctx := t.Context()
	s, rdb, jobs, prefix := fastWorkflow(t)
	workerAck := func(j *store.JobRecord) store.AttemptEnd {
		e := ack(j)
		e.Kind, e.Attempt = j.Kind, j.Attempt
		return e
	}
	_, pos, _, err := s.ReadEvents(ctx, map[string]string{"fq": store.FromNow}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	b := jobs[store.TaskJobID("wf", "b")]
	if errs, err := s.Finish(ctx, []store.AttemptEnd{workerAck(b)}); err != nil || errs[0] != nil {
		t.Fatalf("Finish(ack b): %v, %v", errs, err)
	}
	evs, pos, lost, err := s.ReadEvents(ctx, pos, 10, 0)
	if err != nil || len(lost) != 0 || !slices.ContainsFunc(evs, func(e store.Event) bool { return e.ID == b.ID && e.Type == store.EventSucceeded }) {
		t.Fatalf("ReadEvents after b's ack: %+v, lost %v, %v; want b's success", evs, lost, err)
	}
	// A minute without a read: the time until which readers want fq's
	// events (the mark evr, events.lua) passes. The reader that comes
	// back is a process of its own, which knows nothing of the mark.
	if err := rdb.HSet(ctx, "{"+prefix+":fq}:m", "evr", "0").Err(); err != nil {
		t.Fatal(err)
	}
	reader := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	stale := ack(jobs[store.TaskJobID("wf", "c")])
	stale.Token++
	if errs, err := s.Finish(ctx, []store.AttemptEnd{stale}); err != nil || !errors.Is(errs[0], store.ErrLeaseLost) {
		t.Fatalf("Finish(stale ack of c): %v, %v; want ErrLeaseLost", errs, err)
	}
	evs, pos, lost, err = reader.ReadEvents(ctx, pos, 10, 0)
	if err != nil || len(evs) != 0 || len(lost) != 0 {
		t.Fatalf("ReadEvents after the lost ack: %+v, lost %v, %v; want nothing", evs, lost, err)
	}
	a := jobs[store.TaskJobID("wf", "a")]
	if errs, err := s.Finish(ctx, []store.AttemptEnd{workerAck(a)}); err != nil || errs[0] != nil {
		t.Fatalf("Finish(ack a): %v, %v", errs, err)
	}
	evs, _, lost, err = reader.ReadEvents(ctx, pos, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(lost) != 0 {
		t.Errorf("the reader was told it lost fq's events %v, though no event was skipped", lost)
	}
	var ok bool
	for _, e := range evs {
		ok = ok || (e.Type == store.EventSucceeded && e.ID == a.ID)
	}
	if !ok {
		t.Errorf("events after a's ack: %+v; want a's success", evs)
	}
}

// On a queue with the lean mark, tracked acks that leave nothing to
// deliver or release answer as the lean way does: a store that had not
// seen the mark sends its next acks as pairs, without the kinds and
// attempts only events use, and those end their tasks as well, the
// release into another queue they leave to the store included.
func TestFastFinishTellsTheLeanMark(t *testing.T) {
	ctx := t.Context()
	s, rdb, jobs, prefix := fastWorkflow(t)
	for _, id := range []string{"plain-1", "plain-2"} {
		mustEnqueue(t, s, job("fq", id))
	}
	if !hasLeanMark(t, rdb, "{"+prefix+":fq}:ln") {
		t.Fatal("after two lone enqueues into fq, a queue nobody reads, its lean mark is not set")
	}
	// Another process's store: it has seen no reply of fq's.
	acker := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	// The calls are kept and read once answered: a call the server
	// refused because it had not loaded the function yet (this test's
	// server is its own) is sent again, and only the answered one counts.
	sent := &kept[redis.Cmder]{}
	rdb.AddHook(eachCommand(func(cmd redis.Cmder) {
		if _, argv, ok := fcallOf(cmd, "_finish_local"); ok && len(argv) > 0 {
			sent.keep(cmd)
		}
	}))
	counts := struct{ take func() []string }{func() []string {
		var out []string
		for _, cmd := range sent.take() {
			if _, argv, _ := fcallOf(cmd, "_finish_local"); cmd.Err() == nil {
				out = append(out, fmt.Sprint(argv[0]))
			}
		}
		return out
	}}
	a, b := jobs[store.TaskJobID("wf", "a")], jobs[store.TaskJobID("wf", "b")]
	// a's end releases d into fq, in the same step: nothing is left.
	if errs, err := acker.Finish(ctx, []store.AttemptEnd{ack(a)}); err != nil || errs[0] != nil {
		t.Fatalf("Finish(ack a): %v, %v", errs, err)
	}
	if got := counts.take(); len(got) != 1 || got[0] != "1" {
		t.Fatalf("the first ack went with first argument %v; want [1], with its kind and attempt", got)
	}
	// b's end releases e into other, which the store enqueues.
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if errs, err := acker.Finish(ctx, []store.AttemptEnd{ack(b)}); err != nil || errs[0] != nil {
		t.Fatalf("Finish(ack b): %v, %v", errs, err)
	}
	if got := counts.take(); len(got) != 1 || got[0] != "-1" {
		t.Fatalf("the ack after one that found the lean mark went with first argument %v; want [-1], as a pair", got)
	}
	if n := commandCalls(t, rdb)["scard"]; n != 0 {
		t.Fatalf("the ack sent as a pair ran SCARD %d times: it took the long way", n)
	}
	states := taskStates(t, s, "wf")
	if states["a"] != store.TaskSucceeded || states["b"] != store.TaskSucceeded {
		t.Errorf("tasks after the acks: %v; want a and b succeeded", states)
	}
	if got := claimedByID(t, s, "other"); got[store.TaskJobID("wf", "e")] == nil || len(got) != 1 {
		t.Errorf("claimable in other after b's ack: %v, want e's job", slices.Sorted(maps.Keys(got)))
	}
	if got := claimedByID(t, s, "fq"); got[store.TaskJobID("wf", "d")] == nil {
		t.Errorf("claimable in fq after a's ack: %v, want d's job among them", slices.Sorted(maps.Keys(got)))
	}
}

// A queue's shape does not keep its plain acks from the fast way, and the
// fast way does for them what the long way does: an ack frees its group's
// place under GroupMaxRunning and the queue's under MaxRunning, so that
// the next job is claimable, and wakes the idle workers waiting for it;
// and it takes the job out of the kind index.
func TestFastFinishInShapedQueues(t *testing.T) {
	cases := []struct {
		name string
		conf store.QueueConfig
		// wakes says the ack makes a job claimable: WaitReady returns.
		wakes bool
		// group is the jobs' group, "" for none.
		group string
		// check runs after the ack of one of jobs one and two, claimed is
		// what the first claim took, by ID.
		check func(t *testing.T, s *redisstore.Store, claimed map[string]*store.JobRecord)
	}{{
		name:  "group cap",
		conf:  store.QueueConfig{GroupMaxRunning: 1},
		wakes: true,
		group: "g",
		check: func(t *testing.T, s *redisstore.Store, claimed map[string]*store.JobRecord) {
			if got := claimedByID(t, s, "sq"); len(got) != 1 {
				t.Errorf("claimable after the ack freed group g's place: %v, want the other job", slices.Sorted(maps.Keys(got)))
			}
		},
	}, {
		name:  "max running",
		conf:  store.QueueConfig{MaxRunning: 1},
		wakes: true,
		check: func(t *testing.T, s *redisstore.Store, claimed map[string]*store.JobRecord) {
			if got := claimedByID(t, s, "sq"); len(got) != 1 {
				t.Errorf("claimable after the ack freed the queue's place: %v, want the other job", slices.Sorted(maps.Keys(got)))
			}
		},
	}, {
		name: "kind index",
		conf: store.QueueConfig{KindIndex: true},
		check: func(t *testing.T, s *redisstore.Store, claimed map[string]*store.JobRecord) {
			page, err := s.SearchJobs(t.Context(), store.SearchJobsOpts{Queue: "sq", State: store.StateUnack, Kind: "test", Walk: store.SearchWalkKind, Examine: 10, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			if page.Total != 1 {
				t.Errorf("the kind index holds %d jobs of kind test after one of two was acked, want 1", page.Total)
			}
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			rdb := redistest.Start(t, redistest.Private()).Client(t)
			s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), NoCoalescing: true})
			if err := s.SetQueueConfig(ctx, "sq", tc.conf); err != nil {
				t.Fatal(err)
			}
			// A queue waited on for the first time is returned at once:
			// the store now listens for sq's wake-ups.
			if _, err := s.WaitReady(ctx, []string{"sq"}, time.Millisecond); err != nil {
				t.Fatal(err)
			}
			one, two := job("sq", "one"), job("sq", "two")
			one.Group, two.Group = tc.group, tc.group
			mustEnqueue(t, s, one, two)
			claimed := claimedByID(t, s, "sq")
			if len(claimed) == 0 {
				t.Fatal("nothing claimed")
			}
			// The wake-ups of the enqueue and the claim, kept once for the
			// next wait.
			if _, err := s.WaitReady(ctx, []string{"sq"}, time.Millisecond); err != nil {
				t.Fatal(err)
			}
			var first *store.JobRecord
			for _, id := range []string{"one", "two"} {
				if first == nil {
					first = claimed[id]
				}
			}
			if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			if errs, err := s.Finish(ctx, []store.AttemptEnd{ack(first)}); err != nil || errs[0] != nil {
				t.Fatalf("Finish(ack %s): %v, %v", first.ID, errs, err)
			}
			if n := commandCalls(t, rdb)["scard"]; n != 0 {
				t.Fatalf("the ack ran SCARD %d times: it took the long way", n)
			}
			if _, err := s.GetJob(ctx, "sq", first.ID); !errors.Is(err, store.ErrJobNotFound) {
				t.Errorf("GetJob(%s) after its ack: %v, want ErrJobNotFound", first.ID, err)
			}
			if tc.wakes {
				got, err := s.WaitReady(ctx, []string{"sq"}, 10*time.Second)
				if err != nil || !slices.Equal(got, []string{"sq"}) {
					t.Errorf("WaitReady after the ack that freed a place: %v, %v; want [sq]", got, err)
				}
			}
			tc.check(t, s, claimed)
		})
	}
}
