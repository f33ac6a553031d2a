package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// scriptReplies is a go-redis hook that keeps the replies of the FCALLs
// of functions whose names end with suffix, as Redis sent them.
type scriptReplies struct {
	suffix string
	mu     sync.Mutex
	got    []any
}

func (h *scriptReplies) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *scriptReplies) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		h.note(cmd)
		return err
	}
}

func (h *scriptReplies) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		err := next(ctx, cmds)
		for _, cmd := range cmds {
			h.note(cmd)
		}
		return err
	}
}

func (h *scriptReplies) note(cmd redis.Cmder) {
	if _, _, ok := fcallOf(cmd, h.suffix); !ok {
		return
	}
	// A *redis.Cmd, or the store's wrapper of one that goes once.
	c, ok := cmd.(interface {
		Val() any
		Err() error
	})
	if !ok || c.Err() != nil {
		return
	}
	h.mu.Lock()
	h.got = append(h.got, c.Val())
	h.mu.Unlock()
}

// take returns the replies kept since the last take.
func (h *scriptReplies) take() []any {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.got
	h.got = nil
	return out
}

// An enqueue of jobs due now that stores every one is answered with one
// string, not a result a job (Redis turns each element of a table into
// its reply at some thousand instructions); an enqueue with duplicates
// among its jobs, wherever they stand, still gets each job's result.
func TestEnqueueOfJobsAllStoredRepliesOnce(t *testing.T) {
	ctx := context.Background()
	s, rdb, _ := leanQueue(t, "q")
	replies := &scriptReplies{suffix: "_enqueue"}
	rdb.AddHook(replies)

	// 5 jobs take one HSETNX each, 12 one HMGET and one HSET
	// (adds/plain.lua: SMALL_ADDS).
	for _, n := range []int{5, 12} {
		var jobs []*store.NewJob
		for i := range n {
			jobs = append(jobs, job("q", fmt.Sprintf("new-%d-%d", n, i)))
		}
		res, err := s.Enqueue(ctx, jobs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if want := (store.EnqueueResult{ID: jobs[i].ID, State: store.StateReady}); r != want {
				t.Fatalf("job %d of %d new ones: %+v, want %+v", i, n, r, want)
			}
		}
		if got := replies.take(); len(got) != 1 || got[0] != "R" {
			t.Fatalf("replies of an enqueue of %d new jobs into a lean queue: %v, want one \"R\"", n, got)
		}

		// Duplicates second (the results before the first must be
		// kept), in the middle and last.
		var mixed []*store.NewJob
		var dup []bool
		for i := range n {
			if i == 1 || i == n/2+1 || i == n-1 {
				mixed = append(mixed, job("q", fmt.Sprintf("new-%d-%d", n, i)))
				dup = append(dup, true)
			} else {
				mixed = append(mixed, job("q", fmt.Sprintf("more-%d-%d", n, i)))
				dup = append(dup, false)
			}
		}
		res, err = s.Enqueue(ctx, mixed)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			want := store.EnqueueResult{ID: mixed[i].ID, State: store.StateReady}
			if dup[i] {
				want = store.EnqueueResult{ID: mixed[i].ID, Duplicate: true}
			}
			if r != want {
				t.Fatalf("job %d of %d, three of them held: %+v, want %+v", i, n, r, want)
			}
		}
		if got := replies.take(); len(got) != 1 {
			t.Fatalf("replies of the enqueue with duplicates: %v, want one", got)
		} else if l, ok := got[0].([]any); !ok || len(l) != n {
			t.Fatalf("reply of the enqueue with duplicates: %v, want a result for each of %d jobs", got[0], n)
		}
	}
	if got := len(claimAll(t, s, "q", 100)); got != 2+5+12+(5-3)+(12-3) {
		t.Fatalf("claimed %d jobs, want each job stored once: %d", got, 2+5+12+(5-3)+(12-3))
	}
}

// claimedLean returns a store whose queue "q" is lean (leanQueue's two
// jobs and n more, one Enqueue each), its jobs claimed, and a hook that
// keeps the replies of the finish calls from then on.
func claimedLean(t *testing.T, n int) (*redisstore.Store, []*store.JobRecord, *scriptReplies) {
	t.Helper()
	s, rdb, _ := leanQueue(t, "q")
	for i := range n {
		mustEnqueue(t, s, job("q", fmt.Sprintf("j%d", i)))
	}
	jobs := claimAll(t, s, "q", 10)
	if len(jobs) != n+2 {
		t.Fatalf("claimed %d jobs, want %d", len(jobs), n+2)
	}
	replies := &scriptReplies{suffix: "_finish"}
	rdb.AddHook(replies)
	return s, jobs, replies
}

// A lean finish that acks every request is answered with "L" alone; one
// whose requests are not all acked, wherever the others stand, with each
// request's status.
func TestLeanFinishOfAllAckedRepliesOnce(t *testing.T) {
	ctx := context.Background()
	s, jobs, replies := claimedLean(t, 7)

	errs, err := s.Finish(ctx, []store.AttemptEnd{ack(jobs[0]), ack(jobs[1]), ack(jobs[2])})
	if err != nil || errs[0] != nil || errs[1] != nil || errs[2] != nil {
		t.Fatalf("Finish of three claimed jobs: %v, %v", errs, err)
	}
	if got := replies.take(); len(got) != 1 || got[0] != "L" {
		t.Fatalf("replies of the lean finish of three acks: %v, want one \"L\"", got)
	}

	// The stale token first, then last.
	for _, reqs := range [][]store.AttemptEnd{
		{ack(jobs[3]), ack(jobs[4]), ack(jobs[5])},
		{ack(jobs[6]), ack(jobs[7]), ack(jobs[8])},
	} {
		stale := 0
		if reqs[0].ID == jobs[6].ID {
			stale = 2
		}
		reqs[stale].Token++
		errs, err := s.Finish(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range errs {
			if (i == stale) != (e != nil) || (i == stale && !errors.Is(e, store.ErrLeaseLost)) {
				t.Fatalf("Finish with request %d stale: %v, want ErrLeaseLost for it alone", stale, errs)
			}
		}
		if got := replies.take(); len(got) != 1 {
			t.Fatalf("replies of a finish with a stale request: %v, want one", got)
		} else if l, ok := got[0].([]any); !ok || len(l) != 4 || l[3] != "L" {
			t.Fatalf("reply of a lean finish with a stale request: %v, want three statuses and \"L\"", got[0])
		}
	}
	left := claimAll(t, s, "q", 10)
	if len(left) != 0 {
		t.Fatalf("claimed %d jobs after the acks, want none (the stale ones are still leased)", len(left))
	}
}

// A finish the lean way does not serve (here: acks that keep their job,
// a retry) that ends every request as asked is answered with 0 alone;
// one with a lost lease, with each request's status.
func TestFinishOfAllEndedRepliesOnce(t *testing.T) {
	ctx := context.Background()
	s, jobs, replies := claimedLean(t, 4)
	kept := func(j *store.JobRecord) store.AttemptEnd {
		e := ack(j)
		e.Retention = time.Hour
		return e
	}
	retried := func(j *store.JobRecord) store.AttemptEnd {
		return store.AttemptEnd{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: store.OutcomeRetry, Delay: time.Hour, Error: &store.AttemptError{Attempt: j.Attempt, Error: "failed"}}
	}

	errs, err := s.Finish(ctx, []store.AttemptEnd{kept(jobs[0]), retried(jobs[1]), ack(jobs[2])})
	if err != nil || errs[0] != nil || errs[1] != nil || errs[2] != nil {
		t.Fatalf("Finish of three claimed jobs: %v, %v", errs, err)
	}
	if got := replies.take(); len(got) != 1 || got[0] != int64(0) {
		t.Fatalf("replies of a finish that ended its three requests: %v, want one 0", got)
	}
	// The stale request a plain ack: the script takes those first.
	stale := ack(jobs[5])
	stale.Token++
	errs, err = s.Finish(ctx, []store.AttemptEnd{stale, kept(jobs[3]), retried(jobs[4])})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(errs[0], store.ErrLeaseLost) || errs[1] != nil || errs[2] != nil {
		t.Fatalf("Finish with the first request stale: %v, want ErrLeaseLost, nil, nil", errs)
	}
	if got := replies.take(); len(got) != 1 {
		t.Fatalf("replies of a finish with a stale request: %v, want one", got)
	} else if l, ok := got[0].([]any); !ok || len(l) != 4 {
		t.Fatalf("reply of a finish with a stale request: %v, want three statuses and the count", got[0])
	}
	for _, j := range []*store.JobRecord{jobs[0], jobs[3]} {
		if rec, err := s.GetJob(ctx, "q", j.ID); err != nil || rec.State != store.StateDone {
			t.Fatalf("GetJob(%s) after an ack that keeps it: %+v, %v; want it done", j.ID, rec, err)
		}
	}
	if rec, err := s.GetJob(ctx, "q", jobs[1].ID); err != nil || rec.State != store.StateRetry {
		t.Fatalf("GetJob(%s) after its retry: %+v, %v; want it waiting to retry", jobs[1].ID, rec, err)
	}
}
