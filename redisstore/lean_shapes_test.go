package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// leanGroupedJobs enqueues into q, in one interleaved order, 6 jobs of group
// a, 3 of b, 1 of c and 2 without a group: "<q>-<n>", n from 1.
func leanGroupedJobs(t *testing.T, s store.Store, q string) {
	t.Helper()
	groups := []string{"a", "b", "a", "", "c", "a", "b", "a", "", "a", "b", "a"}
	for i, g := range groups {
		mustEnqueue(t, s, &store.NewJob{ID: fmt.Sprintf("%s-%d", q, i+1), Queue: q, Kind: "test", JobSpec: store.JobSpec{Group: g}})
	}
}

// claimAcked claims up to max jobs of q, acks them, and returns their IDs
// in claim order, without the queue's prefix.
func claimAcked(t *testing.T, s store.Store, q string, max int) []string {
	t.Helper()
	ctx := context.Background()
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: max, Lease: time.Minute, WorkerID: "w"})
	if err != nil {
		t.Fatalf("Claim(%s): %v", q, err)
	}
	ids := make([]string, len(res.Jobs))
	ends := make([]store.AttemptEnd, len(res.Jobs))
	for i, j := range res.Jobs {
		ids[i] = strings.TrimPrefix(j.ID, q+"-")
		ends[i] = store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck}
	}
	if len(ends) > 0 {
		errs, err := s.Finish(ctx, ends)
		if err != nil {
			t.Fatalf("Finish(%s): %v", q, err)
		}
		for i, e := range errs {
			if e != nil {
				t.Fatalf("ack of %s: %v", res.Jobs[i].ID, e)
			}
		}
	}
	return ids
}

// claimsAlike claims and acks, for each of maxes, that many jobs of queue
// "lean" and of its twin "long" (long: what keeps the twin on the long
// way), and fails unless both give the same jobs in the same order, the
// first by the lean way and the twin by the long one.
func claimsAlike(t *testing.T, s *redisstore.Store, long string, maxes ...int) {
	t.Helper()
	for _, max := range maxes {
		got, want := claimAcked(t, s, "lean", max), claimAcked(t, s, "long", max)
		if !slices.Equal(got, want) {
			t.Fatalf("claims of %d: %v the lean way, %v the long way", max, got, want)
		}
		if !redisstore.LeanAsked(s, "lean") {
			t.Fatalf("a claim of %d went the long way", max)
		}
		if redisstore.LeanAsked(s, "long") {
			t.Fatal(long + " was asked for the lean way")
		}
	}
}

// leanGroupsStore returns a store on a server of the test's own.
func leanGroupsStore(t *testing.T) *redisstore.Store {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	return redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), NoCoalescing: true})
}

// A queue of groups without caps or rate limits per group takes the lean
// ways once an ack has said they serve it, and claims in the order the
// long way does: the same jobs, claimed alike from a twin queue whose cap
// per group (too high to hold anything back) keeps it on the long way,
// come out in the same order, a claim at a time.
func TestLeanWaysServeAQueueOfGroups(t *testing.T) {
	ctx := context.Background()
	s := leanGroupsStore(t)
	if err := s.SetQueueConfig(ctx, "long", store.QueueConfig{GroupMaxRunning: 1000}); err != nil {
		t.Fatal(err)
	}
	leanGroupedJobs(t, s, "lean")
	leanGroupedJobs(t, s, "long")
	if got, want := claimAcked(t, s, "lean", 1), claimAcked(t, s, "long", 1); !slices.Equal(got, want) {
		t.Fatalf("first claims: %v the lean way, %v the long way", got, want)
	}
	if !redisstore.LeanAsked(s, "lean") {
		t.Fatal("after an ack of a queue of groups without caps, the store does not ask for the lean way")
	}
	claimsAlike(t, s, "the queue with a cap per group", 3, 1, 4, 2, 5)
	if left := claimAcked(t, s, "lean", 10); len(left) != 0 {
		t.Fatalf("left after 12 claimed: %v", left)
	}
}

// Caps and rate limits per group, set while the lean ways serve a queue,
// hold from its next claim: the lean way leaves those queues to the long
// one.
func TestLeanWaysLeaveGroupLimitsToTheLongWay(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		limit func(s *redisstore.Store) error
		most  int // jobs of group a the claim may take
	}{
		{"GroupMaxRunning", func(s *redisstore.Store) error {
			return s.SetQueueConfig(ctx, "q", store.QueueConfig{GroupMaxRunning: 1})
		}, 1},
		{"SetGroupLimit", func(s *redisstore.Store) error { return s.SetGroupLimit(ctx, "q", "a", 1) }, 1},
		{"GroupRateLimit", func(s *redisstore.Store) error {
			return s.SetQueueConfig(ctx, "q", store.QueueConfig{GroupRateLimit: 2, GroupRatePeriod: time.Hour})
		}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := leanGroupsStore(t)
			leanGroupedJobs(t, s, "q")
			claimAcked(t, s, "q", 1) // a-1: the ack says the lean ways serve
			if !redisstore.LeanAsked(s, "q") {
				t.Fatal("the case does not reach the lean way")
			}
			if err := c.limit(s); err != nil {
				t.Fatal(err)
			}
			res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 10, Lease: time.Minute, WorkerID: "w"})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, j := range res.Jobs {
				if j.Group == "a" {
					n++
				}
			}
			if n > c.most || len(res.Jobs) == 0 {
				t.Fatalf("claimed %d jobs, %d of group a; want some, at most %d of a", len(res.Jobs), n, c.most)
			}
			if redisstore.LeanAsked(s, "q") {
				t.Fatal("the store still asks for the lean way")
			}
		})
	}
}

// A group held by a snooze (a handler's RateLimited) sits out of the
// lean way's claims until its hold ends, and the claim's RetryIn says
// when that is.
func TestLeanClaimHonoursAGroupsHold(t *testing.T) {
	ctx := context.Background()
	s := leanGroupsStore(t)
	leanGroupedJobs(t, s, "q")
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 || res.Jobs[0].Group != "a" {
		t.Fatalf("first claim: %+v, %v; want a job of group a", res.Jobs, err)
	}
	errs, err := s.Finish(ctx, []store.AttemptEnd{{Queue: "q", ID: res.Jobs[0].ID, Token: res.Jobs[0].Token,
		Outcome: store.OutcomeSnooze, Hold: time.Hour}})
	if err != nil || errs[0] != nil {
		t.Fatalf("snooze with a hold: %v %v", err, errs)
	}
	claimAcked(t, s, "q", 1) // b-2: an ack says the lean ways serve again
	if !redisstore.LeanAsked(s, "q") {
		t.Fatal("the case does not reach the lean way")
	}
	var got []string
	for range 4 {
		got = append(got, claimAcked(t, s, "q", 2)...)
	}
	if !redisstore.LeanAsked(s, "q") {
		t.Fatal("the claims went the long way")
	}
	want := []string{"4", "5", "7", "9", "11"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("claimed %v while group a is held; want the other groups' jobs and the ungrouped, %v", got, want)
	}
	res, err = s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 2, Lease: time.Minute, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 0 || res.RetryIn <= 0 || res.RetryIn > time.Hour {
		t.Fatalf("claim with only group a's held jobs left: %d jobs, RetryIn %v, %v; want none, and the hold's end", len(res.Jobs), res.RetryIn, err)
	}
}

// A reader of a queue's events, come while the lean ways serve it, is
// told of the claims and acks from then on: the lean way leaves a queue
// whose events are read to the long one.
func TestLeanWaysOfGroupsLeaveEventsToTheLongWay(t *testing.T) {
	s := leanGroupsStore(t)
	leanGroupedJobs(t, s, "q")
	claimAcked(t, s, "q", 1)
	if !redisstore.LeanAsked(s, "q") {
		t.Fatal("the case does not reach the lean way")
	}
	_, pos, _ := readAll(t, s, "q", store.FromNow)
	ids := claimAcked(t, s, "q", 2)
	got, _, lost := readAll(t, s, "q", pos)
	if len(lost) != 0 || len(got) != 4 {
		t.Fatalf("events after the reader came: %v (lost %v); want a claim and an ack of each of %v", got, lost, ids)
	}
	for _, id := range ids {
		if n := strings.Count(strings.Join(got, " "), "q-"+id); n != 2 {
			t.Fatalf("events %v name q-%s %d times, want twice (claimed, acked)", got, id, n)
		}
	}
}

// leanPriorityJobs enqueues into q, in one order, 9 jobs at priorities
// 0, 2, -1 and 1: "<q>-<n>", n from 1.
func leanPriorityJobs(t *testing.T, s store.Store, q string) {
	t.Helper()
	for i, p := range []int{0, 2, -1, 1, 2, 0, -1, 1, 2} {
		mustEnqueue(t, s, &store.NewJob{ID: fmt.Sprintf("%s-%d", q, i+1), Queue: q, Kind: "test", JobSpec: store.JobSpec{Priority: p}})
	}
}

// A queue of priority levels takes the lean ways once an ack has said
// they serve it, and claims in the long way's order: highest priority
// first, first in first out within one, as a twin queue whose events a
// reader reads (which keeps it on the long way) claims the same jobs.
func TestLeanWaysServeAQueueOfPriorities(t *testing.T) {
	s := leanGroupsStore(t)
	leanPriorityJobs(t, s, "lean")
	leanPriorityJobs(t, s, "long")
	readAll(t, s, "long", store.FromNow)
	if got, want := claimAcked(t, s, "lean", 1), claimAcked(t, s, "long", 1); !slices.Equal(got, want) || !slices.Equal(got, []string{"2"}) {
		t.Fatalf("first claims: %v the lean way, %v the long way; want [2], the first of priority 2", got, want)
	}
	if !redisstore.LeanAsked(s, "lean") {
		t.Fatal("after an ack of a queue of priorities, the store does not ask for the lean way")
	}
	claimsAlike(t, s, "the queue whose events are read", 3, 1, 2)
	if got := claimAcked(t, s, "lean", 10); !slices.Equal(got, []string{"3", "7"}) {
		t.Fatalf("the last claim: %v, want the two of priority -1, [3 7]", got)
	}
}

// A grouped job that comes to a queue the lean ways serve for its
// priorities changes its shape: the next claim goes the long way, in the
// variant that serves both, and gives the grouped job its turn.
func TestLeanWaysLeaveANewShapeToTheLongWay(t *testing.T) {
	s := leanGroupsStore(t)
	leanPriorityJobs(t, s, "q")
	claimAcked(t, s, "q", 1)
	if !redisstore.LeanAsked(s, "q") {
		t.Fatal("the case does not reach the lean way")
	}
	mustEnqueue(t, s, &store.NewJob{ID: "q-g", Queue: "q", Kind: "test", JobSpec: store.JobSpec{Group: "a"}})
	got := claimAcked(t, s, "q", 20)
	if len(got) != 9 || !slices.Contains(got, "g") {
		t.Fatalf("claimed %v, want the 8 jobs left and the grouped one", got)
	}
	if redisstore.LeanAsked(s, "q") {
		t.Fatal("the store still asks for the lean way of a queue of groups and priorities")
	}
}

// leanCostQueue enqueues into q 8 jobs over groups a, b, c, d and
// returns a store on a server of the test's own (its command statistics
// are the test's alone) and that server's client.
func leanCostQueue(t *testing.T, q string) (*redisstore.Store, *redis.Client) {
	t.Helper()
	rdb := redistest.Start(t, redistest.Private()).Client(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), NoCoalescing: true})
	for i := range 8 {
		mustEnqueue(t, s, &store.NewJob{ID: fmt.Sprintf("%s-%d", q, i), Queue: q, Kind: "test",
			JobSpec: store.JobSpec{Group: string(rune('a' + i%4))}})
	}
	return s, rdb
}

// leanAckCommands claims one job of q, acks it, and returns the commands
// the server ran for the ack alone (INFO commandstats, scripts' commands
// counted).
func leanAckCommands(t *testing.T, s *redisstore.Store, rdb *redis.Client, q string) map[string]int {
	t.Helper()
	ctx := context.Background()
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1, Lease: time.Minute, WorkerID: "w"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("claim: %v, %v", res.Jobs, err)
	}
	if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	mustFinish(t, s, ack(res.Jobs[0]))
	calls := commandCalls(t, rdb)
	delete(calls, "info")
	delete(calls, "config|resetstat")
	return calls
}

// A queue of groups that keeps the long way (a cap of a group's own, a
// retention, a reader of its events) pays nothing for the lean one: an
// ack of one of its jobs runs the commands it ran before the lean ways
// served groups (a review found each such ack trying the lean way first:
// an HMGET of ten marks, an EXISTS and, with a reader, a TIME more).
func TestLongWayAcksOfGroupsPayNothingForTheLeanWay(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		set  func(t *testing.T, s *redisstore.Store) error
		want map[string]int // commands of one ack, as before
	}{
		{"SetGroupLimit", func(_ *testing.T, s *redisstore.Store) error { return s.SetGroupLimit(ctx, "q", "z", 5) },
			map[string]int{"hmget": 3, "exists": 1, "time": 1}},
		{"Retention", func(_ *testing.T, s *redisstore.Store) error {
			return s.SetQueueConfig(ctx, "q", store.QueueConfig{Retention: time.Hour})
		}, map[string]int{"hmget": 1, "exists": 1, "time": 1}},
		{"EventsRead", func(t *testing.T, s *redisstore.Store) error {
			readAll(t, s, "q", store.FromNow)
			return nil
		}, map[string]int{"hmget": 1, "exists": 1, "time": 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, rdb := leanCostQueue(t, "q")
			if err := c.set(t, s); err != nil {
				t.Fatal(err)
			}
			leanAckCommands(t, s, rdb, "q") // loads the scripts, learns the shape
			calls := leanAckCommands(t, s, rdb, "q")
			for cmd, n := range c.want {
				if calls[cmd] != n {
					t.Errorf("an ack ran %s %d times, want %d (all: %v)", cmd, calls[cmd], n, calls)
				}
			}
		})
	}
}

// A plain queue whose kind index another process turned off is served,
// in a process that turned it on, by the finish variant of the shape K,
// which it keeps (shape.go: "a process that did not make that change
// keeps the larger variant, which serves the smaller shape too"). While
// the queue's lean mark is set, that variant's fast way (ends_fast.lua)
// says so ("L"), and the process's acks go as pairs and its claims the
// lean way, as they did before the lean ways served shaped variants (a
// review found them lost).
func TestKeptKindIndexVariantKeepsTheLeanWays(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	a := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	b := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	if err := a.SetQueueConfig(ctx, "q", store.QueueConfig{KindIndex: true}); err != nil {
		t.Fatal(err)
	}
	if err := b.SetQueueConfig(ctx, "q", store.QueueConfig{}); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		mustEnqueue(t, b, job("q", fmt.Sprintf("j%d", i)))
	}
	if !hasLeanMark(t, rdb, "{"+prefix+":q}:ln") {
		t.Fatal("the case does not reach the lean mark")
	}
	for i := range 3 {
		res, err := a.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatalf("claim %d: %v, %v", i, res.Jobs, err)
		}
		mustFinish(t, a, ack(res.Jobs[0]))
	}
	if !redisstore.LeanAsked(a, "q") {
		t.Fatal("a plain queue with its lean mark set, acked by a process that keeps the variant of its kind index, never takes the lean ways")
	}
}
