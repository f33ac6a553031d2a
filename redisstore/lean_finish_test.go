package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// claimedByID claims every ready job of q and returns them by ID.
func claimedByID(t *testing.T, s *redisstore.Store, q string) map[string]*store.JobRecord {
	t.Helper()
	got := map[string]*store.JobRecord{}
	for _, j := range claimAll(t, s, q, 10) {
		got[j.ID] = j
	}
	return got
}

// ack returns the plain ack of claimed job j: no retention or result of
// its own, as a worker sends most.
func ack(j *store.JobRecord) store.AttemptEnd {
	return store.AttemptEnd{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck}
}

// commandCalls returns how many times the server ran each command since
// its statistics were last reset, by name in lower case.
func commandCalls(t *testing.T, rdb *redis.Client) map[string]int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	for line := range strings.Lines(info) {
		name, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		c, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("INFO commandstats: %q: %v", line, err)
		}
		calls[name] = c
	}
	return calls
}

// Plain acks on a lean queue take the lean way (the mark's clock, not
// TIME) and end what they end as the long way does: each job deleted, a
// stale token told ErrLeaseLost, an unknown job ErrJobNotFound, the acks
// counted in the queue's throughput.
func TestLeanFinishEndsPlainAcks(t *testing.T) {
	ctx := context.Background()
	s, rdb, mark := leanQueue(t, "q")
	jobs := claimedByID(t, s, "q")
	one, two := jobs["lean-1"], jobs["lean-2"]
	if one == nil || two == nil {
		t.Fatalf("claimed %v, want lean-1 and lean-2", jobs)
	}
	if !hasLeanMark(t, rdb, mark) {
		t.Fatal("the claim took the lean mark away")
	}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	stale := ack(two)
	stale.Token++
	unknown := ack(one)
	unknown.ID = "never-enqueued"
	errs, err := s.Finish(ctx, []store.AttemptEnd{ack(one), stale, unknown})
	if err != nil {
		t.Fatal(err)
	}
	if errs[0] != nil || !errors.Is(errs[1], store.ErrLeaseLost) || !errors.Is(errs[2], store.ErrJobNotFound) {
		t.Fatalf("Finish: %v, want nil, ErrLeaseLost, ErrJobNotFound", errs)
	}
	errs, err = s.Finish(ctx, []store.AttemptEnd{ack(two)})
	if err != nil || errs[0] != nil {
		t.Fatalf("Finish of lean-2 with its token: %v, %v", errs, err)
	}
	calls := commandCalls(t, rdb)
	if calls["time"] != 0 || calls["pttl"] == 0 {
		t.Fatalf("the acks ran TIME %d times and PTTL %d: not the lean way", calls["time"], calls["pttl"])
	}
	for _, id := range []string{"lean-1", "lean-2"} {
		if _, err := s.GetJob(ctx, "q", id); !errors.Is(err, store.ErrJobNotFound) {
			t.Fatalf("GetJob(%s) after its ack: %v, want ErrJobNotFound", id, err)
		}
	}
	points, err := s.GetThroughput(ctx, "q", time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	done := 0
	for _, p := range points {
		done += int(p.Done)
	}
	if done != 2 {
		t.Fatalf("throughput counts %d acks, want 2", done)
	}
}

// The ends the lean way leaves to the rest of the finish, each on a queue
// whose lean mark is set when the ack comes: what the user would miss if
// the lean way took them.
func TestLeanFinishLeavesTheRareEnds(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// prepare runs on the lean queue q, whose jobs lean-1 and lean-2
		// are ready, and enqueues the job "x" that is then claimed.
		prepare func(t *testing.T, s *redisstore.Store)
		// during runs while x is claimed.
		during func(t *testing.T, s *redisstore.Store, x *store.JobRecord)
		// check runs after x's plain ack.
		check func(t *testing.T, s *redisstore.Store)
		// watch makes the case watch x (WatchJob) before its claim and
		// expect the watch told of the ack.
		watch bool
	}{{
		name: "retention",
		prepare: func(t *testing.T, s *redisstore.Store) {
			if err := s.SetQueueConfig(ctx, "q", store.QueueConfig{Retention: time.Hour}); err != nil {
				t.Fatal(err)
			}
			mustEnqueue(t, s, job("q", "x"))
		},
		check: func(t *testing.T, s *redisstore.Store) {
			rec, err := s.GetJob(ctx, "q", "x")
			if err != nil || rec.State != store.StateDone {
				t.Fatalf("GetJob(x) after its ack with an hour's retention: %+v, %v; want it done", rec, err)
			}
		},
	}, {
		name: "unique",
		prepare: func(t *testing.T, s *redisstore.Store) {
			x := job("q", "x")
			x.UniqueKey = "u"
			mustEnqueue(t, s, x)
		},
		check: func(t *testing.T, s *redisstore.Store) {
			y := job("q", "y")
			y.UniqueKey = "u"
			res, err := s.Enqueue(ctx, []*store.NewJob{y})
			if err != nil || res[0].Duplicate {
				t.Fatalf("Enqueue of unique key u after x, which held it, was acked: %+v, %v", res, err)
			}
		},
	}, {
		name: "cancelled while running",
		prepare: func(t *testing.T, s *redisstore.Store) {
			mustEnqueue(t, s, job("q", "x"))
		},
		during: func(t *testing.T, s *redisstore.Store, _ *store.JobRecord) {
			if _, err := s.CancelJob(ctx, "q", "x"); err != nil {
				t.Fatal(err)
			}
		},
		check: func(t *testing.T, s *redisstore.Store) {
			// A new job under the same ID is not the cancelled one: its
			// failure is retried.
			mustEnqueue(t, s, job("q", "x"))
			j := claimedByID(t, s, "q")["x"]
			if j == nil {
				t.Fatal("x, enqueued again, was not claimed")
			}
			retry := ack(j)
			retry.Outcome, retry.Delay = store.OutcomeRetry, time.Hour
			if errs, err := s.Finish(ctx, []store.AttemptEnd{retry}); err != nil || errs[0] != nil {
				t.Fatalf("Finish(retry x): %v, %v", errs, err)
			}
			rec, err := s.GetJob(ctx, "q", "x")
			if err != nil || rec.State != store.StateRetry {
				t.Fatalf("the new x after its retry: %+v, %v; want it waiting to retry", rec, err)
			}
		},
	}, {
		name: "progress reported",
		prepare: func(t *testing.T, s *redisstore.Store) {
			mustEnqueue(t, s, job("q", "x"))
		},
		during: func(t *testing.T, s *redisstore.Store, x *store.JobRecord) {
			ref := store.LeaseRef{Queue: "q", ID: "x", Token: x.Token, Progress: &store.Progress{Percent: 50}}
			if _, err := s.Extend(ctx, []store.LeaseRef{ref}, time.Minute); err != nil {
				t.Fatal(err)
			}
		},
		check: func(t *testing.T, s *redisstore.Store) {
			// A new job under the same ID has made no progress.
			mustEnqueue(t, s, job("q", "x"))
			rec, err := s.GetJob(ctx, "q", "x")
			if err != nil || rec.Progress != nil {
				t.Fatalf("the new x: %+v, %v; want it without the acked one's progress", rec, err)
			}
		},
	}, {
		name: "waited for",
		prepare: func(t *testing.T, s *redisstore.Store) {
			mustEnqueue(t, s, job("q", "x"))
		},
		check: func(t *testing.T, s *redisstore.Store) {},
		watch: true,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, rdb, mark := leanQueue(t, "q")
			claimedByID(t, s, "q") // lean-1 and lean-2, out of the way
			c.prepare(t, s)
			var ends <-chan store.JobEnd
			if c.watch {
				var err error
				if ends, err = s.WatchJob(ctx, "q", "x"); err != nil {
					t.Fatal(err)
				}
			}
			x := claimedByID(t, s, "q")["x"]
			if x == nil {
				t.Fatal("x was not claimed")
			}
			if c.during != nil {
				c.during(t, s, x)
			}
			if !hasLeanMark(t, rdb, mark) {
				t.Fatal("the lean mark is not set when x's ack comes: the case does not reach the lean way")
			}
			if errs, err := s.Finish(ctx, []store.AttemptEnd{ack(x)}); err != nil || errs[0] != nil {
				t.Fatalf("Finish(ack x): %v, %v", errs, err)
			}
			if ends != nil {
				select {
				case end := <-ends:
					if end.Err != nil || end.Job == nil || end.Job.State != store.StateDone {
						t.Fatalf("the watch of x ended with %+v, want x done", end)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the watch of x was not told of its ack within 10 s")
				}
			}
			c.check(t, s)
		})
	}
}

// markPrefix returns the store prefix of the lean mark of queue q.
func markPrefix(mark, q string) string {
	return strings.TrimSuffix(strings.TrimPrefix(mark, "{"), ":"+q+"}:ln")
}

// wakeUps subscribes to the wake-up channels of the store with prefix
// (those of the schedulers and of idle workers, on a server without
// shard channels) and returns a function that, once called after some
// steps, counts the wake-ups those steps sent for queue q on each: it
// enqueues a job into a queue of its own and reads up to the wake-up that
// job sends, which comes after theirs.
func wakeUps(t *testing.T, s *redisstore.Store, rdb *redis.Client, prefix, q string) func() (sched, ready int) {
	t.Helper()
	ctx := t.Context()
	sub := rdb.Subscribe(ctx, prefix+":sched", prefix+":ready")
	t.Cleanup(func() { sub.Close() })
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	marks := 0
	return func() (sched, ready int) {
		t.Helper()
		marks++
		marker := fmt.Sprint("marker-", marks)
		mustEnqueue(t, s, job(marker, marker))
		for {
			msg, err := sub.ReceiveMessage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case msg.Payload == marker:
				return sched, ready
			case msg.Payload == q && msg.Channel == prefix+":sched":
				sched++
			case msg.Payload == q:
				ready++
			}
		}
	}
}

// The lean way's last ack of a queue with nothing ready tells the
// schedulers the leases are gone, as the long way does
// (TestLastAckWakesTheSchedulerOnceASecond); an ack that leaves a lease
// does not.
func TestLeanFinishWakesTheSchedulerWhenIdle(t *testing.T) {
	ctx := t.Context()
	s, rdb, mark := leanQueue(t, "q")
	jobs := claimedByID(t, s, "q")
	count := wakeUps(t, s, rdb, markPrefix(mark, "q"), "q")
	for i, id := range []string{"lean-1", "lean-2"} {
		if errs, err := s.Finish(ctx, []store.AttemptEnd{ack(jobs[id])}); err != nil || errs[0] != nil {
			t.Fatalf("Finish(ack %s): %v, %v", id, errs, err)
		}
		sched, _ := count()
		if want := i; sched != want {
			t.Fatalf("the ack of %s sent %d wake-ups to the schedulers, want %d", id, sched, want)
		}
	}
}

// In a trickle nearly every ack empties unack. An ack that comes within
// the second after one that woke the schedulers (the mark sa) does not
// count the queue's leases and ready jobs: whatever it found, it would
// not wake them again, and the two counts were a fifth of what a lone
// ack cost Redis in commands.
func TestTrickleAckLeavesLeasesUncountedWithinTheSecond(t *testing.T) {
	ctx := t.Context()
	s, rdb, mark := leanQueue(t, "q")
	jobs := claimedByID(t, s, "q")
	count := wakeUps(t, s, rdb, markPrefix(mark, "q"), "q")
	finish := func(j *store.JobRecord) {
		t.Helper()
		if errs, err := s.Finish(ctx, []store.AttemptEnd{ack(j)}); err != nil || errs[0] != nil {
			t.Fatalf("Finish(ack %s): %v, %v", j.ID, errs, err)
		}
	}
	for _, j := range jobs {
		finish(j)
	}
	if sched, _ := count(); sched != 1 {
		t.Fatalf("the acks that emptied unack sent %d wake-ups to the schedulers, want 1", sched)
	}
	// A machine that stalls past the second makes the next ack count and
	// wake again, rightly: then it tries again, a few times.
	for try := 0; ; try++ {
		id := fmt.Sprint("x-", try)
		mustEnqueue(t, s, job("q", id))
		x := claimedByID(t, s, "q")[id]
		count() // the claim's own
		if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		finish(x)
		calls := commandCalls(t, rdb)
		if sched, _ := count(); sched > 0 {
			if try == 4 {
				t.Fatal("each of five acks came more than a second after the last wake-up")
			}
			continue
		}
		if calls["zcount"] != 0 || calls["llen"] != 0 {
			t.Fatalf("the ack within the second ran ZCOUNT %d times and LLEN %d times, want neither", calls["zcount"], calls["llen"])
		}
		return
	}
}

// finishCounts keeps the first argument (ARGV[1]) of each finish FCALL
// its note sees (added with eachCommand): the count of its plain acks,
// negative when they went as pairs, without their kinds and attempts
// (finish.go).
type finishCounts struct{ kept[string] }

func (h *finishCounts) note(cmd redis.Cmder) {
	if _, argv, ok := fcallOf(cmd, "_finish"); ok && len(argv) > 0 {
		h.keep(fmt.Sprint(argv[0]))
	}
}

// A store that saw a queue's lean mark sends its plain acks without the
// kinds and attempts only events use. When a reader of the queue's events
// took the mark away meanwhile, the acks still end their jobs, and their
// events still name each job's kind and attempt, which the script reads;
// the store's next acks carry them again.
func TestLeanAcksAsPairsStillNameKindsForAReader(t *testing.T) {
	ctx := context.Background()
	s, rdb, mark := leanQueue(t, "q")
	counts := &finishCounts{}
	rdb.AddHook(eachCommand(counts.note))
	mustEnqueue(t, s, job("q", "x"))
	jobs := claimedByID(t, s, "q")
	one, two, x := jobs["lean-1"], jobs["lean-2"], jobs["x"]
	if one == nil || two == nil || x == nil {
		t.Fatalf("claimed %v, want lean-1, lean-2 and x", jobs)
	}
	workerAck := func(j *store.JobRecord) store.AttemptEnd {
		a := ack(j)
		a.Kind, a.Attempt = j.Kind, j.Attempt
		return a
	}
	if errs, err := s.Finish(ctx, []store.AttemptEnd{workerAck(one)}); err != nil || errs[0] != nil {
		t.Fatalf("Finish(ack lean-1): %v, %v", errs, err)
	}
	if got := counts.take(); len(got) != 1 || got[0] != "-1" {
		t.Fatalf("the ack of lean-1 on a lean queue went with first argument %v; want [-1], as a pair", got)
	}

	reader := redisstore.New(rdb, &redisstore.Config{Prefix: markPrefix(mark, "q"), NoCoalescing: true})
	_, pos, _, err := reader.ReadEvents(ctx, map[string]string{"q": store.FromNow}, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if hasLeanMark(t, rdb, mark) {
		t.Fatal("a reader of q's events left its lean mark: the case does not reach the long way")
	}
	if errs, err := s.Finish(ctx, []store.AttemptEnd{workerAck(two)}); err != nil || errs[0] != nil {
		t.Fatalf("Finish(ack lean-2): %v, %v", errs, err)
	}
	if got := counts.take(); len(got) != 1 || got[0] != "-1" {
		t.Fatalf("the ack of lean-2, the store not knowing of the reader, went with first argument %v; want [-1]", got)
	}
	if _, err := s.GetJob(ctx, "q", "lean-2"); !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("GetJob(lean-2) after its ack: %v, want ErrJobNotFound", err)
	}
	evs, _, _, err := reader.ReadEvents(ctx, pos, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || evs[0].Type != store.EventSucceeded || evs[0].ID != "lean-2" || evs[0].Kind != "test" || evs[0].Attempt != 1 {
		t.Fatalf("events after lean-2's ack: %+v; want lean-2 succeeded, kind test, attempt 1", evs)
	}

	if errs, err := s.Finish(ctx, []store.AttemptEnd{workerAck(x)}); err != nil || errs[0] != nil {
		t.Fatalf("Finish(ack x): %v, %v", errs, err)
	}
	if got := counts.take(); len(got) != 1 || got[0] != "1" {
		t.Fatalf("the ack of x, after the ack of lean-2 went the long way, went with first argument %v; want [1], with its kind and attempt", got)
	}
	evs, _, _, err = reader.ReadEvents(ctx, pos, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 2 || evs[1].ID != "x" || evs[1].Kind != "test" || evs[1].Attempt != 1 {
		t.Fatalf("events after x's ack: %+v; want lean-2's, then x succeeded, kind test, attempt 1", evs)
	}
}
