package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// One corrupt job in a claimed batch goes to garbage with the reason; the
// healthy jobs of the same batch are delivered, not held until their lease
// expires.
func TestClaimBuriesOnlyTheCorruptJob(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	var logs logBuffer
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
	mustEnqueue(t, s, job("q", "ok1"), job("q", "bad"), job("q", "ok2"))
	corrupt(t, rdb, "{"+prefix+":q}:j", "bad", "not a job value")

	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 3, Lease: time.Minute})
	if err != nil {
		t.Fatalf("Claim: %v, want the healthy jobs", err)
	}
	var got []string
	for _, j := range res.Jobs {
		got = append(got, j.ID)
	}
	if strings.Join(got, ",") != "ok1,ok2" {
		t.Errorf("claimed %v, want [ok1 ok2]", got)
	}
	st, err := hopper.NewInspector(s).GetQueueStats(ctx, "q")
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts.Garbage != 1 || st.Counts.Unack != 2 || st.Counts.Ready != 0 {
		t.Errorf("counts %+v, want 1 in garbage and 2 in unack", st.Counts)
	}
	if !strings.Contains(logs.String(), "bad") || !strings.Contains(logs.String(), "garbage") {
		t.Errorf("no warning names the buried job; logs:\n%s", logs.String())
	}
}

// A job whose error history is corrupt is still delivered, with a history
// entry that says the history could not be read.
func TestClaimDeliversJobWithCorruptHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	mustEnqueue(t, s, job("q", "h"))
	res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("first claim: %v, %d jobs", err, len(res.Jobs))
	}
	j := res.Jobs[0]
	errs, err := s.Finish(ctx, []store.AttemptEnd{{Queue: "q", ID: "h", Token: j.Token, Outcome: store.OutcomeRetry,
		Error: &store.AttemptError{Error: "boom"}}})
	if err != nil || errs[0] != nil {
		t.Fatalf("retry: %v %v", err, errs)
	}
	corrupt(t, rdb, "{"+prefix+":q}:e", "h", "\xc6\xff\xff\xff\xff\x94")
	if n, err := hopper.NewInspector(s).RequeueJobs(ctx, "q", store.StateRetry, nil); err != nil || n != 1 {
		t.Fatalf("requeue: %d, %v", n, err)
	}
	res, err = s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Minute})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("second claim: %v, %d jobs", err, len(res.Jobs))
	}
	j = res.Jobs[0]
	if j.Attempt != 2 {
		t.Errorf("attempt %d, want 2", j.Attempt)
	}
	if len(j.Errors) != 1 || !strings.Contains(j.Errors[0].Error, "history cannot be decoded") {
		t.Errorf("errors %+v, want one entry saying the history is unreadable", j.Errors)
	}
}

// A corrupt error history does not make Maintain fail halfway: a job whose
// lease expired is reclaimed into retry with a fresh history, not dropped
// from every state.
func TestMaintainReclaimsJobWithCorruptHistory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	j := job("q", "h")
	j.MaxRetries = 3
	mustEnqueue(t, s, j)
	if res, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 1, Lease: time.Millisecond}); err != nil || len(res.Jobs) != 1 {
		t.Fatalf("claim: %v, %d jobs", err, len(res.Jobs))
	}
	corrupt(t, rdb, "{"+prefix+":q}:e", "h", "\xc6\x00\x00\x00\x32")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := s.Maintain(ctx, "q", store.MaintainOpts{}); err != nil {
			t.Fatalf("Maintain with a corrupt history: %v", err)
		}
		st, err := hopper.NewInspector(s).GetQueueStats(ctx, "q")
		if err != nil {
			t.Fatal(err)
		}
		if st.Counts.Unack == 0 {
			if n := st.Counts.Retry + st.Counts.Ready; n != 1 {
				t.Fatalf("counts %+v after the reclaim: the job is in %d of retry and ready, want 1", st.Counts, n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job's 1ms lease never expired")
		}
		time.Sleep(2 * time.Millisecond)
	}
	rec, err := hopper.NewInspector(s).GetJob(ctx, "q", "h")
	if err != nil {
		t.Fatalf("GetJob after the reclaim: %v", err)
	}
	if len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0].Error, "lease") {
		t.Errorf("history after the reclaim: %+v, want one entry for the expired lease", rec.Errors)
	}
}
