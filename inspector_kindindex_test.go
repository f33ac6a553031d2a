package hopper_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// enqueueKinds enqueues n jobs "<prefix>-%05d" to queue, of kind "rare"
// where rare(i), "bulk" otherwise, an hour late where late(i).
func enqueueKinds(t *testing.T, s hopper.Store, queue, prefix string, n int, rare, late func(int) bool) {
	t.Helper()
	var jobs []*store.NewJob
	for i := range n {
		j := &store.NewJob{ID: fmt.Sprintf("%s-%05d", prefix, i), Queue: queue, Kind: "bulk", Args: []byte{0x80}}
		if rare(i) {
			j.Kind = "rare"
		}
		if late(i) {
			j.Delay = time.Hour
		}
		jobs = append(jobs, j)
		if len(jobs) == 1000 || i == n-1 {
			if _, err := s.Enqueue(t.Context(), jobs); err != nil {
				t.Fatal(err)
			}
			jobs = nil
		}
	}
}

// searchAll runs a search to its end and returns the IDs found and the
// pages' ByKind.
func searchAll(t *testing.T, ins *hopper.Inspector, req hopper.SearchJobsOpts) (found []string, byKind bool, total int) {
	t.Helper()
	for calls := 0; ; calls++ {
		p, err := ins.SearchJobs(t.Context(), req)
		if err != nil {
			t.Fatalf("SearchJobs(%s %s kind %q from %d): %v", req.Queue, req.State, req.Kind, req.From, err)
		}
		found = append(found, ids(p.Jobs)...)
		if p.Done() || calls > 1000 {
			return found, p.ByKind, p.Total
		}
		req.From, req.ByKind = p.Next, p.ByKind
	}
}

// With QueueConfig.KindIndex a search by kind walks the jobs of that kind
// (in every state) instead of the state, keeps those in the state asked,
// and follows the jobs as they are deleted or change kind.
func TestKindIndex(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		ins := hopper.NewInspector(s)
		const q = "kinds"
		if err := ins.SetQueueConfig(ctx, q, hopper.QueueConfig{KindIndex: true}); err != nil {
			t.Fatal(err)
		}
		// 20,000 jobs; ten rare ones, two of them an hour late.
		enqueueKinds(t, s, q, "job", 20_000, func(i int) bool { return i%2000 == 1000 },
			func(i int) bool { return i == 5000 || i == 11000 })
		search := func(st hopper.JobState, kind string, newest bool) ([]string, bool, int) {
			return searchAll(t, ins, hopper.SearchJobsOpts{Queue: q, State: st, Kind: kind, Newest: newest, Limit: 100})
		}
		check := func(st hopper.JobState, newest, wantByKind bool, wantTotal int, want ...string) {
			t.Helper()
			got, byKind, total := search(st, "rare", newest)
			if !slices.Equal(got, want) || byKind != wantByKind || total != wantTotal {
				t.Fatalf("rare jobs in %s (newest %v): %v, ByKind %v, Total %d; want %v, ByKind %v, Total %d",
					st, newest, got, byKind, total, want, wantByKind, wantTotal)
			}
		}
		check(hopper.StateReady, false, true, 10, "job-01000", "job-03000", "job-07000", "job-09000", "job-13000", "job-15000", "job-17000", "job-19000")
		check(hopper.StateReady, true, true, 10, "job-19000", "job-17000", "job-15000", "job-13000", "job-09000", "job-07000", "job-03000", "job-01000")
		// Two pending jobs are a shorter walk than ten of the kind.
		check(hopper.StatePending, false, false, 2, "job-05000", "job-11000")

		// Acked jobs (deleted) leave the index; a running one is found in
		// unack.
		claim := func(n int) []*store.JobRecord {
			res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: n, Lease: time.Hour, WorkerID: "w"})
			if err != nil || len(res.Jobs) != n {
				t.Fatalf("claim %d: %d jobs, %v", n, len(res.Jobs), err)
			}
			return res.Jobs
		}
		var acks []store.AttemptEnd
		for _, j := range claim(1500) {
			acks = append(acks, store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck})
		}
		if _, err := s.Finish(ctx, acks); err != nil {
			t.Fatal(err)
		}
		claim(2000)
		check(hopper.StateUnack, false, true, 9, "job-03000")
		check(hopper.StateReady, false, true, 9, "job-07000", "job-09000", "job-13000", "job-15000", "job-17000", "job-19000")
		if n, err := ins.DeleteJobs(ctx, q, hopper.StateReady, []string{"job-07000"}); err != nil || n != 1 {
			t.Fatalf("Delete: %d, %v", n, err)
		}
		check(hopper.StateReady, false, true, 8, "job-09000", "job-13000", "job-15000", "job-17000", "job-19000")

		// A replaced job that changes kind moves to its new kind.
		if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: "u1", Queue: q, Kind: "old", JobSpec: store.JobSpec{UniqueKey: "k"}, Args: []byte{0x80}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Enqueue(ctx, []*store.NewJob{{ID: "u2", Queue: q, Kind: "new", JobSpec: store.JobSpec{UniqueKey: "k"}, Args: []byte{0x80}, Replace: store.ReplaceArgs}}); err != nil {
			t.Fatal(err)
		}
		for kind, want := range map[string][]string{"old": nil, "new": {"u1"}} {
			if got, byKind, total := search(hopper.StateReady, kind, false); !slices.Equal(got, want) || !byKind || total != len(want) {
				t.Errorf("kind %s after the replace: %v, ByKind %v, Total %d; want %v through the index", kind, got, byKind, total, want)
			}
		}
	})
}

// Turning the kind index on indexes the jobs already there (Maintain, on
// Redis), searches scan the state meanwhile; turning it off drops it.
func TestKindIndexOnAndOff(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		ins := hopper.NewInspector(s)
		const q = "later"
		enqueueKinds(t, s, q, "job", 12_000, func(i int) bool { return i%2500 == 7 }, func(int) bool { return false })
		want := []string{"job-00007", "job-02507", "job-05007", "job-07507", "job-10007"}
		req := hopper.SearchJobsOpts{Queue: q, State: hopper.StateReady, Kind: "rare", Limit: 100}
		if err := ins.SetQueueConfig(ctx, q, hopper.QueueConfig{KindIndex: true}); err != nil {
			t.Fatal(err)
		}
		st, err := ins.GetQueueStats(ctx, q)
		if err != nil || !st.Config.KindIndex {
			t.Fatalf("QueueStats after turning the index on: %+v, %v", st, err)
		}
		if st.KindIndexBuilding {
			if got, byKind, _ := searchAll(t, ins, req); !slices.Equal(got, want) || byKind {
				t.Fatalf("while the index is built: %v, ByKind %v; want %v by a scan", got, byKind, want)
			}
			if _, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: q, State: hopper.StateReady, Kind: "rare", ByKind: true, From: 1}); !errors.Is(err, hopper.ErrNoKindIndex) {
				t.Fatalf("ByKind while the index is built: %v, want ErrNoKindIndex", err)
			}
			for passes := 0; st.KindIndexBuilding; passes++ {
				if passes == 100 {
					t.Fatal("the index is still being built after 100 maintenance passes")
				}
				if _, err := s.Maintain(ctx, q, store.MaintainOpts{}); err != nil {
					t.Fatal(err)
				}
				if st, err = ins.GetQueueStats(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
		}
		if got, byKind, total := searchAll(t, ins, req); !slices.Equal(got, want) || !byKind || total != len(want) {
			t.Fatalf("once built: %v, ByKind %v, Total %d; want %v through the index", got, byKind, total, want)
		}
		if err := ins.SetQueueConfig(ctx, q, hopper.QueueConfig{}); err != nil {
			t.Fatal(err)
		}
		if _, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: q, State: hopper.StateReady, Kind: "rare", ByKind: true, From: 1}); !errors.Is(err, hopper.ErrNoKindIndex) {
			t.Fatalf("ByKind after the index was turned off: %v, want ErrNoKindIndex", err)
		}
		if got, byKind, _ := searchAll(t, ins, req); !slices.Equal(got, want) || byKind {
			t.Fatalf("after the index was turned off: %v, ByKind %v; want %v by a scan", got, byKind, want)
		}
		if _, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: q, State: hopper.StateReady, ByKind: true}); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Fatalf("ByKind without a kind: %v, want ErrInvalidConfig", err)
		}
	})
}

// A workflow's tasks are indexed as they are released into a queue, and
// jobs deleted by Maintain (their retention over) leave the index.
func TestKindIndexWorkflowAndRetention(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		ins := hopper.NewInspector(s)
		const q = "wfkinds"
		if err := ins.SetQueueConfig(ctx, q, hopper.QueueConfig{KindIndex: true, Retention: time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		enqueueKinds(t, s, q, "job", 100, func(int) bool { return false }, func(int) bool { return false })
		wf := hopper.NewWorkflow("indexed", nil)
		wf.Chain(hopper.AddTask(wf, "extract", Extract{Source: "a.csv"}, &hopper.TaskOpts{Queue: q}),
			hopper.AddTask(wf, "load", Load{Table: "t"}, &hopper.TaskOpts{Queue: q}))
		if _, err := hopper.EnqueueWorkflow(ctx, hopper.NewClient(s, nil), wf); err != nil {
			t.Fatal(err)
		}
		p, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: q, State: hopper.StateReady, Kind: "etl.extract"})
		if err != nil || len(p.Jobs) != 1 || !p.ByKind || p.Total != 1 {
			t.Fatalf("the workflow's first task by kind: %v, ByKind %v, Total %d, %v; want one through the index", ids(p.Jobs), p.ByKind, p.Total, err)
		}
		// Ack the bulk jobs: they wait in done for a millisecond, then
		// Maintain deletes them and the index forgets them.
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: q, Max: 1000, Lease: time.Hour, WorkerID: "w"})
		if err != nil {
			t.Fatal(err)
		}
		var acks []store.AttemptEnd
		for _, j := range res.Jobs {
			if j.Kind == "bulk" {
				acks = append(acks, store.AttemptEnd{Queue: q, ID: j.ID, Token: j.Token, Outcome: store.OutcomeAck})
			}
		}
		if _, err := s.Finish(ctx, acks); err != nil || len(acks) != 100 {
			t.Fatalf("acked %d bulk jobs: %v", len(acks), err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			if _, err := s.Maintain(ctx, q, store.MaintainOpts{}); err != nil {
				t.Fatal(err)
			}
			p, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{Queue: q, State: hopper.StateDone, Kind: "bulk", ByKind: true})
			if err != nil {
				t.Fatal(err)
			}
			if p.Total == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the index still holds %d bulk jobs 10 s after their retention of 1 ms", p.Total)
			}
		}
	})
}
