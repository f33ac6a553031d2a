package redisstore_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// leanQueue returns a store without coalescing (every Enqueue of one job
// is one call) and the key of queue q's lean mark, once lone enqueues
// have set it: the state every later enqueue of q starts from.
func leanQueue(t *testing.T, q string) (*redisstore.Store, *redis.Client, string) {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	mark := "{" + prefix + ":" + q + "}:ln"
	for _, id := range []string{"lean-1", "lean-2"} {
		mustEnqueue(t, s, job(q, id))
	}
	if !hasLeanMark(t, rdb, mark) {
		t.Fatalf("after two lone enqueues into a plain queue nobody reads, %s is not set", mark)
	}
	return s, rdb, mark
}

// hasLeanMark reports whether the lean mark exists.
func hasLeanMark(t *testing.T, rdb *redis.Client, mark string) bool {
	t.Helper()
	n, err := rdb.Exists(context.Background(), mark).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

// claimedSorted claims up to max jobs of q and returns their IDs, sorted.
func claimedSorted(t *testing.T, s *redisstore.Store, q string, max int) []string {
	t.Helper()
	res, err := s.Claim(context.Background(), store.ClaimOpts{Queue: q, Max: max, Lease: time.Minute, WorkerID: "w"})
	if err != nil {
		t.Fatalf("Claim(%s): %v", q, err)
	}
	var ids []string
	for _, j := range res.Jobs {
		ids = append(ids, j.ID)
	}
	slices.Sort(ids)
	return ids
}

// A job enqueued the lean way records the store's time as its enqueue
// time, read from the mark's expiry; a mark whose expiry something else
// set is not trusted: the enqueue reads TIME and sets the mark again.
func TestLeanEnqueueKeepsTheStoreClock(t *testing.T) {
	ctx := context.Background()
	s, rdb, mark := leanQueue(t, "q")
	for _, foreign := range []bool{false, true} {
		if foreign {
			if err := rdb.Set(ctx, mark, "", time.Hour).Err(); err != nil {
				t.Fatal(err)
			}
		}
		before, err := rdb.Time(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		id := "clock"
		if foreign {
			id = "clock-foreign"
		}
		mustEnqueue(t, s, job("q", id))
		after, err := rdb.Time(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		rec, err := s.GetJob(ctx, "q", id)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := before.Truncate(time.Millisecond), after
		if rec.EnqueuedAt.Before(lo) || rec.EnqueuedAt.After(hi) {
			t.Errorf("job %s (foreign expiry %v): enqueued at %v, want within the store's %v .. %v", id, foreign, rec.EnqueuedAt, lo, hi)
		}
		// PEXPIRETIME in ms (go-redis's Duration of it overflows).
		exp, err := rdb.Do(ctx, "PEXPIRETIME", mark).Int64()
		if err != nil {
			t.Fatal(err)
		}
		if exp != redisstore.LeanUntilMs {
			t.Errorf("after enqueueing %s the mark expires at %d ms, want %d", id, exp, int64(redisstore.LeanUntilMs))
		}
	}
}

// A change of the queue's shape takes the lean mark away, so the next
// lone enqueue goes where the new shape says: an ungrouped job of a
// queue that now has groups takes its turn in the rotation, and a job of
// a queue that now keeps a kind index is indexed.
func TestLeanMarkGoesWithTheShape(t *testing.T) {
	ctx := context.Background()
	s, rdb, mark := leanQueue(t, "q")
	grouped := job("q", "grouped")
	grouped.Group = "tenant-1"
	mustEnqueue(t, s, grouped)
	if hasLeanMark(t, rdb, mark) {
		t.Fatal("the lean mark outlived the queue's first grouped job")
	}
	mustEnqueue(t, s, job("q", "after-groups"))
	mustEnqueue(t, s, job("q", "after-groups-2"))
	want := []string{"after-groups", "after-groups-2", "grouped", "lean-1", "lean-2"}
	if got := claimedSorted(t, s, "q", 10); !slices.Equal(got, want) {
		t.Fatalf("claim after the queue got groups: %v, want %v", got, want)
	}

	s2, rdb2, mark2 := leanQueue(t, "k")
	if err := s2.SetQueueConfig(ctx, "k", store.QueueConfig{KindIndex: true}); err != nil {
		t.Fatal(err)
	}
	if hasLeanMark(t, rdb2, mark2) {
		t.Fatal("the lean mark outlived SetQueueConfig")
	}
	indexed := &store.NewJob{ID: "indexed", Queue: "k", Kind: "rare"}
	mustEnqueue(t, s2, indexed)
	mustEnqueue(t, s2, &store.NewJob{ID: "indexed-2", Queue: "k", Kind: "rare"})
	page, err := s2.SearchJobs(ctx, store.SearchJobsOpts{Queue: "k", State: store.StateReady, Kind: "rare", Walk: store.SearchWalkKind, Examine: 100, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, j := range page.Jobs {
		got = append(got, j.ID)
	}
	slices.Sort(got)
	if want := []string{"indexed", "indexed-2"}; !slices.Equal(got, want) {
		t.Fatalf("kind index search for rare: %v, want %v", got, want)
	}
}

// A reader takes the lean mark away: what is enqueued next is written to
// the queue's events.
func TestLeanMarkGoesWhenAReaderReads(t *testing.T) {
	s, _, _ := leanQueue(t, "q")
	_, pos, _ := readAll(t, s, "q", store.FromNow)
	mustEnqueue(t, s, job("q", "seen"))
	if ids, _, lost := readAll(t, s, "q", pos); !slices.Equal(ids, []string{"seen"}) || len(lost) != 0 {
		t.Fatalf("events after the reader started: %v, lost %v; want seen, none lost", ids, lost)
	}
}

// A release before the mark gives a queue groups without taking the mark
// away, so jobs enqueued the lean way wait in the ready list without a
// turn: the scheduler's pass of that minute takes the mark away and gives
// them their turn.
func TestMaintainDropsTheMarkOfAShapedQueue(t *testing.T) {
	ctx := context.Background()
	s, rdb, mark := leanQueue(t, "q")
	marks := strings.TrimSuffix(mark, "ln") + "m"
	if err := rdb.HSet(ctx, marks, "sh", "G").Err(); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("q", "lean-3"))
	if _, err := s.Maintain(ctx, "q", store.MaintainOpts{}); err != nil {
		t.Fatal(err)
	}
	if hasLeanMark(t, rdb, mark) {
		t.Fatal("the lean mark of a queue with a shape outlived the scheduler's pass")
	}
	if got, want := claimedSorted(t, s, "q", 10), []string{"lean-1", "lean-2", "lean-3"}; !slices.Equal(got, want) {
		t.Fatalf("claimed %v after the scheduler's pass, want %v", got, want)
	}
}

// New settings take the lean mark away, whatever they change: the next
// enqueue reads them (a queue whose events come back on must mark the
// steps that skip their entries again, lean.lua).
func TestLeanMarkGoesWithNewSettings(t *testing.T) {
	ctx := context.Background()
	s, rdb, mark := leanQueue(t, "q")
	if err := s.SetQueueConfig(ctx, "q", store.QueueConfig{EventsMaxLen: 10}); err != nil {
		t.Fatal(err)
	}
	if hasLeanMark(t, rdb, mark) {
		t.Fatal("the lean mark outlived SetQueueConfig")
	}
	mustEnqueue(t, s, job("q", "after"))
	mustEnqueue(t, s, job("q", "after-2"))
	if !hasLeanMark(t, rdb, mark) {
		t.Fatal("lone enqueues after SetQueueConfig set no lean mark again")
	}
}

// Without the right to PTTL (an ACL written before the lean way) every
// enqueue still stores its jobs: the store warns once and takes the
// longer way from then on; an ack, whose lean way reads the mark's PTTL
// too, takes the long way.
func TestLeanWayRefusedByTheACL(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"+pttl"}, nil, srv.Client)
	var logs logBuffer
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true, Logger: logs.logger()})
	for _, id := range []string{"a", "b", "c"} {
		mustEnqueue(t, s, job("q", id))
	}
	mustEnqueue(t, s, job("q", "d"), job("q", "e"))
	if got, want := claimedSorted(t, s, "q", 10), []string{"a", "b", "c", "d", "e"}; !slices.Equal(got, want) {
		t.Fatalf("claimed %v, want %v", got, want)
	}
	if !hasLeanMark(t, admin, "{"+prefix+":q}:ln") {
		t.Fatal("the lean mark is not set: the ack below would not try the lean way")
	}
	mustEnqueue(t, s, job("q", "f"))
	f := claimedByID(t, s, "q")["f"]
	if f == nil {
		t.Fatal("f was not claimed")
	}
	if errs, err := s.Finish(t.Context(), []store.AttemptEnd{ack(f)}); err != nil || errs[0] != nil {
		t.Fatalf("Finish(ack f) without the right to PTTL: %v, %v", errs, err)
	}
	if n := strings.Count(logs.String(), "+pttl"); n != 1 {
		t.Errorf("logged %d warnings naming +pttl, want 1:\n%s", n, logs.String())
	}
}

// Without the right to EVALSHA and EVAL, a lone enqueue into a lean queue,
// which goes to a plain script (lua/enqueue_lean.lua), is still stored,
// once: the store warns once and sends such calls to the enqueue
// function from then on, the lean way still (three keys a call).
func TestLeanWayWithoutEvalsha(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"+evalsha", "+eval"}, nil, srv.Client)
	var logs logBuffer
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true, Logger: logs.logger()})
	var calls enqueueCalls
	rdb.AddHook(eachCommand(calls.note))
	ids := []string{"a", "b", "c", "d"}
	for _, id := range ids[:3] {
		mustEnqueue(t, s, job("q", id))
	}
	if !hasLeanMark(t, admin, "{"+prefix+":q}:ln") {
		t.Fatal("the lean mark is not set: the enqueues did not take the lean way")
	}
	calls.take()
	mustEnqueue(t, s, job("q", "d"))
	if got := calls.take(); !slices.Equal(got, []int64{3}) {
		t.Errorf("keys of the calls of the enqueue after the refusal: %v, want one lean call (3 keys)", got)
	}
	if got := claimedSorted(t, s, "q", 10); !slices.Equal(got, ids) {
		t.Fatalf("claimed %v, want %v", got, ids)
	}
	if n := strings.Count(logs.String(), "+evalsha"); n != 1 {
		t.Errorf("logged %d warnings naming +evalsha, want 1:\n%s", n, logs.String())
	}
	if strings.Contains(logs.String(), "+pttl") {
		t.Errorf("warned of PTTL, which the user may run:\n%s", logs.String())
	}
}

// Without the right to EVALSHA, a lone enqueue into a lean queue of an ID
// the queue holds is a duplicate, as it is with the right: the refused
// script ran nothing.
func TestLeanDuplicateWithoutEvalsha(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"+evalsha", "+eval"}, nil, srv.Client)
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	mustEnqueue(t, s, job("q", "a"))
	mustEnqueue(t, s, job("q", "b"))
	if !hasLeanMark(t, admin, "{"+prefix+":q}:ln") {
		t.Fatal("the lean mark is not set: the enqueue below would not take the lean way")
	}
	for range 2 {
		res, err := s.Enqueue(t.Context(), []*store.NewJob{job("q", "a")})
		if want := (store.EnqueueResult{ID: "a", Duplicate: true}); err != nil || len(res) != 1 || res[0] != want {
			t.Fatalf("Enqueue of an ID held, without +evalsha: %+v, %v; want %+v", res, err, want)
		}
	}
}

// On a server whose EVALSHA and EVAL were renamed away, lone enqueues into
// a lean queue are stored, once each, through the enqueue function.
func TestLeanWayOnAServerWithoutEval(t *testing.T) {
	srv := redistest.Start(t, redistest.Private(), redistest.Args("--rename-command", "EVALSHA", "", "--rename-command", "EVAL", ""))
	var logs logBuffer
	s := redisstore.New(srv.Client(t), &redisstore.Config{Prefix: redistest.Prefix(t), NoCoalescing: true, Logger: logs.logger()})
	ids := []string{"a", "b", "c", "d", "e"}
	for _, id := range ids {
		mustEnqueue(t, s, job("q", id))
	}
	if got := claimedSorted(t, s, "q", 10); !slices.Equal(got, ids) {
		t.Fatalf("claimed %v, want %v", got, ids)
	}
	if n := strings.Count(logs.String(), "refused EVALSHA"); n != 1 {
		t.Errorf("logged %d warnings of EVALSHA refused, want 1:\n%s", n, logs.String())
	}
}

// enqueueCalls records, for each call of an enqueue function or of the
// plain script enqueue_lean.lua a client sends (its hook is note;
// pipelined ones included), how many keys it was
// given (take returns those recorded since the last take).
type enqueueCalls struct{ kept[int64] }

func (c *enqueueCalls) note(cmd redis.Cmder) {
	if keys, _, ok := fcallOf(cmd, "_enqueue"); ok {
		c.keep(int64(keys))
	} else if keys, _, ok := fcallOf(cmd, "_enqueue_lean"); ok {
		c.keep(int64(keys))
	}
}

// While the lean mark is set, an enqueue of jobs due now goes with the
// three keys its path touches (jobs, ready, lean: enqueue_lean.lua for
// one job, adds/plain.lua for several); without the mark (a reader reads the queue's events),
// the script refuses that call having done nothing, and the store sends
// it again with every key: the job is stored once, and its event written.
// The queue's next calls go with every key until one takes the lean way
// again.
func TestLeanEnqueueSendsTheLeadKeysAlone(t *testing.T) {
	s, rdb, mark := leanQueue(t, "q")
	var calls enqueueCalls
	rdb.AddHook(eachCommand(calls.note))

	mustEnqueue(t, s, job("q", "one"))
	mustEnqueue(t, s, job("q", "two"), job("q", "three"))
	if got := calls.take(); !slices.Equal(got, []int64{3, 3}) {
		t.Fatalf("keys of the enqueue calls into a lean queue: %v, want [3 3]", got)
	}

	_, pos, _ := readAll(t, s, "q", store.FromNow)
	if hasLeanMark(t, rdb, mark) {
		t.Fatal("the lean mark outlived a reader")
	}
	mustEnqueue(t, s, job("q", "read"))
	got := calls.take()
	if len(got) != 2 || got[0] != 3 || got[1] <= 3 {
		t.Fatalf("keys of the calls of an enqueue into a queue being read: %v, want 3, then every key", got)
	}
	mustEnqueue(t, s, job("q", "read-2"))
	if got := calls.take(); len(got) != 1 || got[0] <= 3 {
		t.Fatalf("keys of the calls of the next enqueue: %v, want one call with every key", got)
	}
	if ids, _, lost := readAll(t, s, "q", pos); !slices.Equal(ids, []string{"read", "read-2"}) || len(lost) != 0 {
		t.Fatalf("events after the reader started: %v, lost %v; want read, read-2, none lost", ids, lost)
	}
	want := []string{"lean-1", "lean-2", "one", "read", "read-2", "three", "two"}
	if got := claimedSorted(t, s, "q", 10); !slices.Equal(got, want) {
		t.Fatalf("claimed %v, want %v", got, want)
	}
}

// A lone enqueue into a lean queue of an ID the queue holds is a
// duplicate: the stored job keeps its arguments and is claimed once.
func TestLeanEnqueueRefusesAnIDHeld(t *testing.T) {
	ctx := context.Background()
	s, _, _ := leanQueue(t, "q")
	again := job("q", "lean-1")
	again.Args = []byte("other args")
	res, err := s.Enqueue(ctx, []*store.NewJob{again})
	if err != nil {
		t.Fatal(err)
	}
	if want := (store.EnqueueResult{ID: "lean-1", Duplicate: true}); len(res) != 1 || res[0] != want {
		t.Fatalf("Enqueue of an ID the lean queue holds: %+v, want %+v", res, want)
	}
	rec, err := s.GetJob(ctx, "q", "lean-1")
	if err != nil {
		t.Fatal(err)
	}
	if string(rec.Args) == "other args" {
		t.Fatalf("the duplicate's arguments replaced the stored job's")
	}
	if got := claimedSorted(t, s, "q", 10); !slices.Equal(got, []string{"lean-1", "lean-2"}) {
		t.Fatalf("claimed %v, want lean-1 and lean-2 once each", got)
	}
}

// A right refused after the lean way's first write (here RPUSH, which an
// ACL user should hold) fails the enqueue with ErrNoPerm: the call is not
// taken for one refused PTTL and sent again the longer way, which found
// its job stored and reported it a duplicate of itself, with no error.
func TestLeanWayRefusalAfterAWriteIsNotSentAgain(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	prefix := redistest.Prefix(t)
	rdb := aclUser(t, admin, prefix, prefix, []string{"+rpush"}, nil, srv.Client)
	var logs logBuffer
	s := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, NoCoalescing: true, Logger: logs.logger()})
	// The lean mark, set by a store that may push (the admin's).
	full := redisstore.New(admin, &redisstore.Config{Prefix: prefix, NoCoalescing: true})
	mustEnqueue(t, full, job("q", "first"))
	mustEnqueue(t, full, job("q", "second"))
	if !hasLeanMark(t, admin, "{"+prefix+":q}:ln") {
		t.Fatal("no lean mark: the enqueue below would not take the lean way")
	}
	res, err := s.Enqueue(t.Context(), []*store.NewJob{job("q", "x")})
	if err == nil && len(res) == 1 && res[0].Duplicate {
		t.Fatalf("Enqueue without the right to RPUSH: reported a duplicate of itself (%+v)", res[0])
	}
	if !errors.Is(err, redisstore.ErrNoPerm) {
		t.Fatalf("Enqueue without the right to RPUSH: %+v, %v; want an error wrapping ErrNoPerm", res, err)
	}
	if strings.Contains(logs.String(), "+pttl") {
		t.Errorf("warned about PTTL, which the user may run:\n%s", logs.String())
	}
}
