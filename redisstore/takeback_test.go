package redisstore_test

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// claimSome claims up to max jobs of q and returns them.
func claimSome(t *testing.T, s store.Store, q string, max int) []*store.JobRecord {
	t.Helper()
	res, err := s.Claim(context.Background(), store.ClaimOpts{Queue: q, Max: max, Lease: time.Minute, WorkerID: "w"})
	if err != nil {
		t.Fatalf("Claim: %v", err)
	}
	return res.Jobs
}

// ackAll acks jobs and fails the test unless each ack held its lease.
func ackAll(t *testing.T, s store.Store, jobs []*store.JobRecord) {
	t.Helper()
	ends := make([]store.AttemptEnd, len(jobs))
	for i, j := range jobs {
		ends[i] = ack(j)
	}
	mustFinish(t, s, ends...)
}

// idsOf returns the IDs of jobs, sorted.
func idsOf(jobs []*store.JobRecord) []string {
	out := ids(jobs)
	slices.Sort(out)
	return out
}

// A claim whose reply was lost on the way left its jobs in unack with no
// handler: they waited out their lease and ran again with an attempt
// counted, and a job with no retry left went to garbage without ever
// running. The Store's next claim on the queue now takes them back, on
// the attempt the lost claim counted, with their leases renewed, and
// their acks hold; another Store cannot take them.
func TestClaimWhoseReplyWasLostIsTakenBack(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	var logs logBuffer
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
	other := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	lose := &loseReplies{}
	rdb.AddHook(lose)
	for _, id := range []string{"a", "b", "c"} {
		j := job("q", id)
		j.MaxRetries = 0
		mustEnqueue(t, s, j)
	}
	lose.armed.Store(1)
	before := time.Now()
	if _, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 10, Lease: time.Minute, WorkerID: "w"}); err == nil || lose.lost.Load() != 1 {
		t.Fatalf("Claim with its reply lost: err %v, %d lost; want the loss's error", err, lose.lost.Load())
	}
	if got := claimSome(t, other, "q", 10); len(got) != 0 {
		t.Fatalf("another Store claimed %v: the lost claim's jobs are not its to take", idsOf(got))
	}
	got := claimSome(t, s, "q", 10)
	if ids := idsOf(got); !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Fatalf("the claim after the lost one returned %v, want a, b, c taken back", ids)
	}
	for _, j := range got {
		if j.Attempt != 1 || j.State != store.StateUnack {
			t.Errorf("job %s taken back at attempt %d, state %v; want attempt 1 (the lost claim's), unack", j.ID, j.Attempt, j.State)
		}
		if j.Deadline.Before(before.Add(time.Minute - time.Second)) {
			t.Errorf("job %s taken back with its lease until %v, want it renewed to a minute from now", j.ID, j.Deadline)
		}
	}
	if !strings.Contains(logs.String(), "reply was lost") {
		t.Errorf("no warning says that a claim's jobs were taken back; logs:\n%s", logs.String())
	}
	if again := claimSome(t, s, "q", 10); len(again) != 0 {
		t.Fatalf("a later claim returned %v again", idsOf(again))
	}
	ackAll(t, s, got)
	st, err := s.GetQueueStats(ctx, "q")
	if err != nil {
		t.Fatal(err)
	}
	if c := st.Counts; c.Unack != 0 || c.Ready != 0 || c.Garbage != 0 || c.Retry != 0 {
		t.Fatalf("after the acks: %+v, want every job gone", c)
	}
}

// A lost claim is taken back a claim's Max at a time, oldest first, ahead
// of jobs claimed anew; a claim that never reached the server leaves
// nothing to take back.
func TestTakeBackKeepsToMax(t *testing.T) {
	var logs logBuffer
	s, rdb := newStore(t, &redisstore.Config{Logger: logs.logger()})
	lose := &loseReplies{}
	rdb.AddHook(lose)
	mustEnqueue(t, s, job("q", "a"), job("q", "b"), job("q", "c"))
	lose.armed.Store(1)
	if _, err := s.Claim(context.Background(), store.ClaimOpts{Queue: "q", Max: 10, Lease: time.Minute}); err == nil {
		t.Fatal("Claim with its reply lost succeeded")
	}
	mustEnqueue(t, s, job("q", "d"), job("q", "e"))
	var seen []string
	for range 3 {
		got := claimSome(t, s, "q", 1)
		if len(got) != 1 {
			t.Fatalf("a claim of one returned %v", idsOf(got))
		}
		seen = append(seen, got[0].ID)
	}
	slices.Sort(seen)
	if !slices.Equal(seen, []string{"a", "b", "c"}) {
		t.Fatalf("three claims of one returned %v, want the lost claim's a, b, c", seen)
	}
	if got := idsOf(claimSome(t, s, "q", 10)); !slices.Equal(got, []string{"d", "e"}) {
		t.Fatalf("then a claim returned %v, want d and e", got)
	}
}

// A claim that failed before it reached the server (no connection) leaves
// nothing to take back: the next claims send no take-back and claim as
// usual, however many such failures came after a claim whose reply was
// lost, which is still taken back. (Each failure was kept as a lost claim,
// and the last eight pushed out the one that mattered.)
func TestClaimNeverSentLeavesNothingToTakeBack(t *testing.T) {
	var logs logBuffer
	s, rdb := newStore(t, &redisstore.Config{Logger: logs.logger()})
	lose := &loseReplies{}
	rdb.AddHook(lose)
	refuse := &loseReplies{unsent: true}
	rdb.AddHook(refuse)
	refuseBack := &loseReplies{suffix: "_takeback", unsent: true}
	rdb.AddHook(refuseBack)
	var takeBacks atomic.Int32
	rdb.AddHook(eachCommand(func(cmd redis.Cmder) {
		if _, _, ok := fcallOf(cmd, "_takeback"); ok {
			takeBacks.Add(1)
		}
	}))
	mustEnqueue(t, s, job("q", "a"), job("q", "b"))
	ctx := context.Background()
	refuse.armed.Store(1)
	if _, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute}); !errors.Is(err, errNoConn) {
		t.Fatalf("Claim: %v, want the dial's error", err)
	}
	got := claimSome(t, s, "q", 1)
	if len(got) != 1 || got[0].ID != "a" || got[0].Attempt != 1 || takeBacks.Load() != 0 {
		t.Fatalf("the next claim returned %v after %d take-backs, want a at attempt 1 and none", idsOf(got), takeBacks.Load())
	}

	lose.armed.Store(1)
	if _, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute}); !errors.Is(err, errReplyLost) {
		t.Fatalf("Claim with its reply lost: %v", err)
	}
	refuse.armed.Store(40)
	refuseBack.armed.Store(40) // the link is down for the take-backs too
	for range 40 {
		if _, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute}); err == nil {
			t.Fatal("a claim with no connection succeeded")
		}
	}
	if got := idsOf(claimSome(t, s, "q", 1)); !slices.Equal(got, []string{"b"}) {
		t.Fatalf("after 40 claims that never reached the server, the next returned %v, want b taken back", got)
	}
}

// A lost claim may reach the server after the next claim looked for it
// (held up on a link that heals, sent again by TCP): it was forgotten, and
// its jobs waited out their lease with no handler. The Store now asks
// again at each claim until it finds the claim's note or twice its lease
// has passed.
func TestLostClaimThatArrivesLateIsTakenBack(t *testing.T) {
	var logs logBuffer
	s, rdb := newStore(t, &redisstore.Config{Logger: logs.logger()})
	lose := &loseReplies{hold: true}
	rdb.AddHook(lose)
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		mustEnqueue(t, s, job("q", id))
	}
	lose.armed.Store(1)
	if _, err := s.Claim(context.Background(), store.ClaimOpts{Queue: "q", Max: 4, Lease: time.Minute}); err == nil {
		t.Fatal("Claim with its request held up succeeded")
	}
	if got := idsOf(claimSome(t, s, "q", 2)); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("the claim while the first was held up returned %v, want a and b", got)
	}
	lose.deliver(t) // the held claim runs now: c, d, e, f
	if got := idsOf(claimSome(t, s, "q", 10)); !slices.Equal(got, []string{"c", "d", "e", "f", "g", "h"}) {
		t.Fatalf("the claim after the held one arrived returned %v, want c to f taken back, then g and h", got)
	}
}

type oneShot struct{ N int }

func (oneShot) Kind() string { return "one-shot" }

// A Worker whose claim's reply is lost runs the claim's jobs once, on
// their first attempt, long before their lease ends: jobs with no retry
// went to garbage without ever running, a minute later (the lease).
func TestWorkerRunsTheJobsOfALostClaim(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rdb := redistest.Start(t).Client(t)
	lose := &loseReplies{}
	rdb.AddHook(lose)
	var logs logBuffer
	s := storeOn(t, rdb, &redisstore.Config{Logger: logs.logger()})
	client := hopper.NewClient(s, nil)
	const n = 5
	for i := range n {
		if _, err := hopper.Enqueue(ctx, client, oneShot{N: i}, &hopper.EnqueueOpts{Queue: "q", MaxRetries: hopper.NoRetry}); err != nil {
			t.Fatal(err)
		}
	}
	lose.armed.Store(1)
	w := hopper.NewWorker(s, &hopper.WorkerConfig{Queues: map[string]int{"q": 1}, Lease: time.Minute, Logger: logs.logger()})
	var runs [n]atomic.Int32
	all := make(chan struct{})
	var ran atomic.Int32
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[oneShot]) error {
		if runs[j.Args.N].Add(1) == 1 && ran.Add(1) == n {
			close(all)
		}
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	select {
	case <-all:
	case <-time.After(20 * time.Second):
		st, _ := s.GetQueueStats(ctx, "q")
		t.Fatalf("%d of %d jobs ran in 20 s (%d claim replies lost); counts %+v", ran.Load(), n, lose.lost.Load(), st.Counts)
	}
	if lose.lost.Load() != 1 {
		t.Fatalf("%d claim replies lost, want 1", lose.lost.Load())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	for i := range runs {
		if r := runs[i].Load(); r != 1 {
			t.Errorf("job %d ran %d times, want once", i, r)
		}
	}
}

// A lost claim on one partition of a partitioned queue is taken back by
// the next Claim of the queue, whichever partition that one would ask.
func TestTakeBackOfAPartition(t *testing.T) {
	var logs logBuffer
	s, rdb := newStore(t, &redisstore.Config{Partitions: map[string]int{"p": 4}, Logger: logs.logger()})
	lose := &loseReplies{}
	rdb.AddHook(lose)
	var want []string
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		mustEnqueue(t, s, job("p", id))
		want = append(want, id)
	}
	lose.armed.Store(1)
	res, err := s.Claim(context.Background(), store.ClaimOpts{Queue: "p", Max: 10, Lease: time.Minute})
	if lose.lost.Load() != 1 {
		t.Fatalf("no claim reply lost (Claim: %d jobs, %v)", len(res.Jobs), err)
	}
	got := res.Jobs // the partitions asked after the lost one
	for range 4 {
		got = append(got, claimSome(t, s, "p", 10)...)
	}
	if ids := idsOf(got); !slices.Equal(ids, want) {
		t.Fatalf("claimed %v in all, want every job once: %v", ids, want)
	}
	ackAll(t, s, got)
}

// A take-back whose own reply is lost renewed the leases of what it took:
// the next take-back still finds every job of the claim.
func TestTakeBackWhoseReplyIsLostToo(t *testing.T) {
	var logs logBuffer
	s, rdb := newStore(t, &redisstore.Config{Logger: logs.logger()})
	lose := &loseReplies{}
	rdb.AddHook(lose)
	back := &loseReplies{suffix: "_takeback"}
	rdb.AddHook(back)
	mustEnqueue(t, s, job("q", "a"), job("q", "b"), job("q", "c"))
	lose.armed.Store(1)
	if _, err := s.Claim(context.Background(), store.ClaimOpts{Queue: "q", Max: 10, Lease: time.Minute}); err == nil {
		t.Fatal("Claim with its reply lost succeeded")
	}
	back.armed.Store(1)
	if got := claimSome(t, s, "q", 1); len(got) != 0 || back.lost.Load() != 1 {
		t.Fatalf("the claim whose take-back's reply was lost returned %v (%d take-back replies lost)", idsOf(got), back.lost.Load())
	}
	if ids := idsOf(claimSome(t, s, "q", 10)); !slices.Equal(ids, []string{"a", "b", "c"}) {
		t.Fatalf("the next claim returned %v, want a, b, c taken back", ids)
	}
}

// go-redis sends a command again by itself after a read timeout or a
// dropped connection (up to its MaxRetries, 3 by default): a claim whose
// reply came late ran twice, and the first run's jobs waited out their
// lease with no handler. A claim now goes once; its error comes back, and
// the next claim takes the first run's jobs back. Here through a proxy
// that holds the claim's reply past the client's read timeout.
func TestClaimTimedOutIsNotSentAgain(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  redisstore.Config
		cmd  string // the claim's command
	}{
		{"functions", redisstore.Config{}, "fcall"},
		{"scripts", redisstore.Config{NoFunctions: true}, "evalsha"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t, redistest.Private())
			late := startLateReplies(t, srv.Addr, 400*time.Millisecond)
			rdb := redis.NewClient(&redis.Options{Addr: late.ln.Addr().String(), ReadTimeout: 200 * time.Millisecond})
			t.Cleanup(func() { _ = rdb.Close() })
			admin := srv.Client(t)
			calls := func() int {
				t.Helper()
				info, err := admin.Info(t.Context(), "commandstats").Result()
				if err != nil {
					t.Fatal(err)
				}
				_, rest, _ := strings.Cut(info, "cmdstat_"+tc.cmd+":calls=")
				n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
				return n
			}
			// The libraries loaded with the tests' timeouts first: a
			// FUNCTION LOAD on a busy machine can outlast 200 ms.
			if err := storeOn(t, admin, &tc.cfg).Check(t.Context()); err != nil {
				t.Fatal(err)
			}
			s := storeOn(t, rdb, &tc.cfg)
			mustEnqueue(t, s, job("q", "a"), job("q", "b"), job("q", "c"), job("q", "d"))
			claimSome(t, s, "q", 1) // takes a, and loads what the claim needs
			before := calls()
			late.armed.Store(true)
			_, err := s.Claim(t.Context(), store.ClaimOpts{Queue: "q", Max: 2, Lease: time.Minute})
			if ne, ok := errors.AsType[net.Error](err); !ok || !ne.Timeout() {
				t.Fatalf("the claim whose reply came late returned %v, want its read timeout", err)
			}
			if n := calls() - before; n != 1 {
				t.Fatalf("the claim ran %d times on the server, want once", n)
			}
			if ids := idsOf(claimSome(t, s, "q", 10)); !slices.Equal(ids, []string{"b", "c", "d"}) {
				t.Fatalf("the next claim returned %v, want b and c taken back, then d", ids)
			}
		})
	}
}
