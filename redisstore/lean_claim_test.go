package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// A claim on a lean queue takes the lean way (the mark's clock, not TIME)
// and claims as the long way does: the jobs ready, oldest first, under
// one new token, at their first attempt, with a lease from the store's
// clock.
func TestLeanClaimTakesTheReadyJobs(t *testing.T) {
	ctx := context.Background()
	s, rdb, mark := leanQueue(t, "q")
	before, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	const lease = time.Minute
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 10, Lease: lease, WorkerID: "w"})
	if err != nil {
		t.Fatal(err)
	}
	calls := commandCalls(t, rdb)
	if calls["time"] != 0 || calls["pttl"] == 0 {
		t.Fatalf("the claim ran TIME %d times and PTTL %d: not the lean way", calls["time"], calls["pttl"])
	}
	after, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 2 || res.Jobs[0].ID != "lean-1" || res.Jobs[1].ID != "lean-2" {
		t.Fatalf("claimed %v, want lean-1 then lean-2", res.Jobs)
	}
	for _, j := range res.Jobs {
		if j.Token == 0 || j.Token != res.Jobs[0].Token || j.Attempt != 1 || j.State != store.StateUnack {
			t.Fatalf("claimed %+v: want both under one token, running, at attempt 1", j)
		}
		earliest, latest := before.Add(lease).Truncate(time.Millisecond), after.Add(lease+time.Millisecond)
		if j.Deadline.Before(earliest) || j.Deadline.After(latest) {
			t.Fatalf("lease deadline %v, want the store's clock plus %v: within [%v, %v]", j.Deadline, lease, earliest, latest)
		}
	}
	if !hasLeanMark(t, rdb, mark) {
		t.Fatal("the claim took the lean mark away")
	}
}

// A paused queue and a held one claim nothing the lean way either, and
// say when to come back.
func TestLeanClaimHonoursPauseAndHold(t *testing.T) {
	ctx := context.Background()
	t.Run("paused", func(t *testing.T) {
		s, rdb, mark := leanQueue(t, "q")
		if err := s.SetQueueConfig(ctx, "q", store.QueueConfig{Paused: true}); err != nil {
			t.Fatal(err)
		}
		mustEnqueue(t, s, job("q", "after-pause")) // sets the mark again
		if !hasLeanMark(t, rdb, mark) {
			t.Fatal("the enqueue after the pause left the lean mark unset: the case does not reach the lean way")
		}
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 10, Lease: time.Minute, WorkerID: "w"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) != 0 || res.RetryIn <= 0 {
			t.Fatalf("a claim of the paused queue: %d jobs, RetryIn %v; want none and a time to come back", len(res.Jobs), res.RetryIn)
		}
	})
	t.Run("held", func(t *testing.T) {
		s, rdb, mark := leanQueue(t, "q")
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatalf("Claim: %v, %v", res.Jobs, err)
		}
		snooze := ack(res.Jobs[0])
		snooze.Outcome, snooze.Hold = store.OutcomeSnooze, time.Hour
		if errs, err := s.Finish(ctx, []store.AttemptEnd{snooze}); err != nil || errs[0] != nil {
			t.Fatalf("Finish(snooze with a hold): %v, %v", errs, err)
		}
		if !hasLeanMark(t, rdb, mark) {
			t.Fatal("the lean mark is not set after the snooze: the case does not reach the lean way")
		}
		res, err = s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 10, Lease: time.Minute, WorkerID: "w"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Jobs) != 0 || res.RetryIn < 59*time.Minute {
			t.Fatalf("a claim of the held queue: %d jobs, RetryIn %v; want none and the hour's rest", len(res.Jobs), res.RetryIn)
		}
	})
}

// The lean way's claim onto an empty unack tells the schedulers of its
// lease, and a claim that took all it asked for and left jobs ready wakes
// the idle workers, as the long way does.
func TestLeanClaimWakesSchedulersAndWorkers(t *testing.T) {
	s, rdb, mark := leanQueue(t, "q")
	count := wakeUps(t, s, rdb, markPrefix(mark, "q"), "q")
	if got := claimedByID(t, s, "q"); len(got) != 2 {
		t.Fatalf("claimed %v, want lean-1 and lean-2", got)
	}
	if sched, ready := count(); sched != 1 || ready != 0 {
		t.Fatalf("a claim of all the ready jobs onto an empty unack sent %d wake-ups to the schedulers and %d to the workers, want 1 and 0", sched, ready)
	}
	for _, id := range []string{"more-1", "more-2"} {
		mustEnqueue(t, s, job("q", id))
	}
	count() // the enqueues' own wake-up
	res, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("Claim of 1: %v, %v", res.Jobs, err)
	}
	if sched, ready := count(); sched != 0 || ready != 1 {
		t.Fatalf("a claim of one job that left one ready, with leases already held, sent %d wake-ups to the schedulers and %d to the workers, want 0 and 1", sched, ready)
	}
}

// claimCost claims up to max jobs of q and returns them with how many
// times the claim ran TIME and PTTL: the long way reads the clock with
// TIME, the lean way with the mark's PTTL.
func claimCost(t *testing.T, s *redisstore.Store, rdb *redis.Client, q string, max int) (jobs []*store.JobRecord, times, pttls int) {
	t.Helper()
	ctx := t.Context()
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: max, Lease: time.Minute, WorkerID: "w"})
	if err != nil {
		t.Fatal(err)
	}
	calls := commandCalls(t, rdb)
	return res.Jobs, calls["time"], calls["pttl"]
}

// A store asks for the lean way only for a queue whose lean mark it has
// seen set: a worker's store that never enqueued into the queue claims
// the long way, with no PTTL, until one of its acks takes the finish's
// lean way; and when the mark goes (a reader reads the queue's events),
// one claim pays for asking, and the next ask no more.
func TestLeanClaimAskedOnlyWhileTheMarkWasSeen(t *testing.T) {
	ctx := t.Context()
	producer, rdb, mark := leanQueue(t, "q")
	worker := redisstore.New(rdb, &redisstore.Config{Prefix: markPrefix(mark, "q"), NoCoalescing: true})

	jobs, tm, pt := claimCost(t, worker, rdb, "q", 1)
	if len(jobs) != 1 || tm == 0 || pt != 0 {
		t.Fatalf("a worker's first claim: %d jobs, TIME %d, PTTL %d; want one job the long way, no PTTL", len(jobs), tm, pt)
	}
	if errs, err := worker.Finish(ctx, []store.AttemptEnd{ack(jobs[0])}); err != nil || errs[0] != nil {
		t.Fatalf("Finish: %v, %v", errs, err)
	}
	jobs, tm, pt = claimCost(t, worker, rdb, "q", 1)
	if len(jobs) != 1 || tm != 0 || pt == 0 {
		t.Fatalf("the claim after a lean ack: %d jobs, TIME %d, PTTL %d; want one job the lean way", len(jobs), tm, pt)
	}

	readAll(t, worker, "q", store.FromNow) // a reader: the mark goes
	mustEnqueue(t, producer, job("q", "read"))
	jobs, tm, pt = claimCost(t, worker, rdb, "q", 1)
	if len(jobs) != 1 || jobs[0].ID != "read" || tm == 0 || pt != 1 {
		t.Fatalf("the claim after a reader came: %d jobs, TIME %d, PTTL %d; want read, the long way after one PTTL", len(jobs), tm, pt)
	}
	_, tm, pt = claimCost(t, worker, rdb, "q", 1)
	if tm == 0 || pt != 0 {
		t.Fatalf("the next claim: TIME %d, PTTL %d; want the long way, no PTTL", tm, pt)
	}
}
