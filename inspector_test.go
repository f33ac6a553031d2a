package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// addJobs enqueues n ready jobs j0000, j0001, ... into q, letting mutate
// change each before it is stored, and returns their IDs in order.
func addJobs(t *testing.T, s hopper.Store, q string, n int, mutate func(i int, j *store.NewJob)) []string {
	t.Helper()
	var ids []string
	var jobs []*store.NewJob
	for i := range n {
		j := &store.NewJob{ID: fmt.Sprintf("j%04d", i), Queue: q, Kind: "k", Args: []byte{0x80}}
		if mutate != nil {
			mutate(i, j)
		}
		ids = append(ids, j.ID)
		jobs = append(jobs, j)
	}
	if _, err := s.Enqueue(t.Context(), jobs); err != nil {
		t.Fatal(err)
	}
	return ids
}

func pageIDs(p hopper.JobPage) []string {
	var out []string
	for _, j := range p.Jobs {
		out = append(out, j.ID)
	}
	return out
}

// The Inspector checks every request before the store sees it: the store
// receives only valid ones, and both stores report bad input the same way.
func TestInspectorRefusesBadRequests(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		ins := hopper.NewInspector(s)
		addJobs(t, s, "q", 1, nil) // j0000, ready
		for _, c := range []struct {
			name string
			do   func() error
			want error
		}{
			{"Requeue from ready", func() error { _, err := ins.RequeueJobs(ctx, "q", hopper.StateReady, []string{"j0000"}); return err }, hopper.ErrInvalidState},
			{"Requeue all from unack", func() error { _, err := ins.RequeueJobs(ctx, "q", hopper.StateUnack, nil); return err }, hopper.ErrInvalidState},
			{"Requeue from a bogus state", func() error { _, err := ins.RequeueJobs(ctx, "q", "bogus", nil); return err }, hopper.ErrInvalidState},
			{"Delete from unack", func() error { _, err := ins.DeleteJobs(ctx, "q", hopper.StateUnack, []string{"j0000"}); return err }, hopper.ErrInvalidState},
			{"Delete from a bogus state", func() error { _, err := ins.DeleteJobs(ctx, "q", "READY", nil); return err }, hopper.ErrInvalidState},
			{"Delete in a bad queue", func() error { _, err := ins.DeleteJobs(ctx, "bad queue", hopper.StateReady, nil); return err }, hopper.ErrInvalidQueue},
			{"Cancel in a bad queue", func() error { _, err := ins.CancelJob(ctx, "{q}", "j0000"); return err }, hopper.ErrInvalidQueue},
			{"Cancel a bad ID", func() error { _, err := ins.CancelJob(ctx, "q", "a b"); return err }, hopper.ErrJobNotFound},
			{"GetJob in a bad queue", func() error { _, err := ins.GetJob(ctx, "", "j0000"); return err }, hopper.ErrInvalidQueue},
			{"GetJob of a bad ID", func() error { _, err := ins.GetJob(ctx, "q", ""); return err }, hopper.ErrJobNotFound},
			{"QueueStats of a bad queue", func() error { _, err := ins.GetQueueStats(ctx, "a:b"); return err }, hopper.ErrInvalidQueue},
			{"Throughput of a bad queue", func() error { _, err := ins.GetThroughput(ctx, "a b", time.Time{}); return err }, hopper.ErrInvalidQueue},
			{"SetQueueConfig of a bad queue", func() error { return ins.SetQueueConfig(ctx, "a b", hopper.QueueConfig{}) }, hopper.ErrInvalidQueue},
			{"SetQueueConfig with a negative cap", func() error { return ins.SetQueueConfig(ctx, "q", hopper.QueueConfig{MaxRunning: -1}) }, hopper.ErrInvalidConfig},
			{"SetQueueConfig with a negative retention", func() error {
				return ins.SetQueueConfig(ctx, "q", hopper.QueueConfig{Retention: -time.Second})
			}, hopper.ErrInvalidConfig},
			{"Pause a bad queue", func() error { return ins.PauseQueue(ctx, "") }, hopper.ErrInvalidQueue},
			{"ListJobs of a bogus state", func() error {
				_, err := ins.ListJobs(ctx, hopper.ListJobsOpts{Queue: "q", State: "dead"})
				return err
			}, hopper.ErrInvalidState},
			{"ListJobs with a negative offset", func() error {
				_, err := ins.ListJobs(ctx, hopper.ListJobsOpts{Queue: "q", State: hopper.StateReady, Offset: -1})
				return err
			}, hopper.ErrInvalidConfig},
			{"ListJobs with a negative scan limit", func() error {
				_, err := ins.ListJobs(ctx, hopper.ListJobsOpts{Queue: "q", State: hopper.StateReady, Kind: "k", ScanLimit: -5})
				return err
			}, hopper.ErrInvalidConfig},
		} {
			if err := c.do(); !errors.Is(err, c.want) {
				t.Errorf("%s: got %v, want an error wrapping %v", c.name, err, c.want)
			}
		}
		rec, err := ins.GetJob(ctx, "q", "j0000")
		if err != nil || rec.State != hopper.StateReady || rec.Attempt != 0 {
			t.Fatalf("after the refused requests the job is %+v (%v), want it ready and untouched", rec, err)
		}
		if st, _ := ins.GetQueueStats(ctx, "q"); st.Config != (hopper.QueueConfig{}) {
			t.Fatalf("refused SetQueueConfig changed the config to %+v", st.Config)
		}
	})
}

func TestInspectorListFilters(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		ins := hopper.NewInspector(s)
		list := func(req hopper.ListJobsOpts) hopper.JobPage {
			t.Helper()
			p, err := ins.ListJobs(ctx, req)
			if err != nil {
				t.Fatalf("ListJobs(%+v): %v", req, err)
			}
			return p
		}

		names := addJobs(t, s, "kinds", 10, func(i int, j *store.NewJob) { j.Kind = fmt.Sprint("kind", i%2) })
		var odd []string
		for i, id := range names {
			if i%2 == 1 {
				odd = append(odd, id)
			}
		}
		if p := list(hopper.ListJobsOpts{Queue: "kinds", State: hopper.StateReady, Kind: "kind1"}); !slices.Equal(pageIDs(p), odd) || p.Total != 5 {
			t.Fatalf("Kind kind1: %v, Total %d; want %v, Total 5", pageIDs(p), p.Total, odd)
		}
		if p := list(hopper.ListJobsOpts{Queue: "kinds", State: hopper.StateReady, Kind: "kind1", Offset: 2, Limit: 2}); !slices.Equal(pageIDs(p), odd[2:4]) || p.Total != 5 {
			t.Fatalf("Kind kind1, Offset 2, Limit 2: %v, Total %d; want %v (Offset counts matches)", pageIDs(p), p.Total, odd[2:4])
		}
		if p := list(hopper.ListJobsOpts{Queue: "kinds", State: hopper.StateReady, Kind: "nope"}); len(p.Jobs) != 0 || p.Total != 0 {
			t.Fatalf("Kind nope: %v, Total %d; want nothing", pageIDs(p), p.Total)
		}

		names = addJobs(t, s, "match", 12, func(i int, j *store.NewJob) {
			if i%3 == 0 {
				j.Args = []byte("needle")
			}
		})
		var want []string
		for i, id := range names {
			if i%3 == 0 {
				want = append(want, id)
			}
		}
		match := func(j *hopper.JobRecord) bool { return strings.Contains(string(j.Args), "needle") }
		if p := list(hopper.ListJobsOpts{Queue: "match", State: hopper.StateReady, Match: match}); !slices.Equal(pageIDs(p), want) || p.Total != 4 {
			t.Fatalf("Match: %v, Total %d; want %v, Total 4", pageIDs(p), p.Total, want)
		}
		if p := list(hopper.ListJobsOpts{Queue: "match", State: hopper.StateReady, Match: match, Offset: 1, Limit: 2, Newest: true}); !slices.Equal(pageIDs(p), []string{want[2], want[1]}) {
			t.Fatalf("Match, Offset 1, Limit 2, Newest: %v; want %v", pageIDs(p), []string{want[2], want[1]})
		}

		addJobs(t, s, "scan", 260, nil) // more than one chunk of the scan
		all := func(*hopper.JobRecord) bool { return true }
		if p := list(hopper.ListJobsOpts{Queue: "scan", State: hopper.StateReady, Match: all, ScanLimit: 5, Limit: 50}); !p.Truncated || p.Total != 5 || len(p.Jobs) != 5 {
			t.Fatalf("ScanLimit 5 over 260 jobs: %d jobs, Total %d, Truncated %v; want 5, 5, true", len(p.Jobs), p.Total, p.Truncated)
		}
		if p := list(hopper.ListJobsOpts{Queue: "scan", State: hopper.StateReady, Match: all, Offset: 250, Limit: 50}); p.Truncated || p.Total != 260 || len(p.Jobs) != 10 || p.Jobs[9].ID != "j0259" {
			t.Fatalf("Match all over 260 jobs from 250: %d jobs, Total %d, Truncated %v; want the last 10 of 260", len(p.Jobs), p.Total, p.Truncated)
		}
		if p := list(hopper.ListJobsOpts{Queue: "scan", State: hopper.StateReady}); len(p.Jobs) != hopper.DefaultListLimit || p.Total != 260 {
			t.Fatalf("Limit 0: %d jobs, Total %d; want %d (the default), Total 260", len(p.Jobs), p.Total, hopper.DefaultListLimit)
		}
	})
}

func TestInspectorPauseResumeKeepsLimits(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		ins := hopper.NewInspector(open())
		if err := ins.SetQueueConfig(ctx, "q", hopper.QueueConfig{MaxRunning: 3, RateLimit: 5}); err != nil {
			t.Fatal(err)
		}
		if err := ins.PauseQueue(ctx, "q"); err != nil {
			t.Fatal(err)
		}
		st, err := ins.GetQueueStats(ctx, "q")
		if err != nil || !st.Config.Paused || st.Config.MaxRunning != 3 || st.Config.RateLimit != 5 || st.Config.RatePeriod != time.Second {
			t.Fatalf("after Pause: %+v (%v), want paused with MaxRunning 3, RateLimit 5 per 1s", st.Config, err)
		}
		if err := ins.ResumeQueue(ctx, "q"); err != nil {
			t.Fatal(err)
		}
		if st, _ := ins.GetQueueStats(ctx, "q"); st.Config.Paused || st.Config.MaxRunning != 3 {
			t.Fatalf("after Resume: %+v, want running with MaxRunning 3", st.Config)
		}
	})
}

func TestInspectorFindJob(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		s := open()
		ins := hopper.NewInspector(s)
		addJobs(t, s, "a", 1, nil)
		addJobs(t, s, "b", 2, nil)
		rec, err := ins.FindJob(t.Context(), "j0001")
		if err != nil || rec.Queue != "b" {
			t.Fatalf("FindJob(j0001) = %+v, %v; want the job of queue b", rec, err)
		}
		if _, err := ins.FindJob(t.Context(), "nope"); !errors.Is(err, hopper.ErrJobNotFound) {
			t.Fatalf("FindJob(nope): %v, want ErrJobNotFound", err)
		}
	})
}

// engineOnly is a store with the engine's methods only, as a store written
// without store.Admin would be.
type engineOnly struct{ store.Store }

// A store without store.Admin still runs jobs; the Inspector says what it
// cannot do instead of failing in a confusing way.
func TestInspectorWithoutAdmin(t *testing.T) {
	s := engineOnly{newStore()}
	ins := hopper.NewInspector(s)
	if ins.Supported() {
		t.Fatal("Supported() = true for a store without store.Admin")
	}
	addJobs(t, s, "q", 1, nil)
	if qs, err := ins.ListQueues(t.Context()); err != nil || !slices.Equal(qs, []string{"q"}) {
		t.Fatalf("Queues = %v, %v; want [q] (an engine method)", qs, err)
	}
	_, err := ins.ListJobs(t.Context(), hopper.ListJobsOpts{Queue: "q", State: hopper.StateReady})
	if !errors.Is(err, hopper.ErrNotSupported) || !strings.Contains(err.Error(), "store.Admin") {
		t.Fatalf("ListJobs on an engine-only store: %v, want ErrNotSupported naming store.Admin", err)
	}
	if _, err := ins.CancelJob(t.Context(), "q", "j0000"); !errors.Is(err, hopper.ErrNotSupported) {
		t.Fatalf("Cancel on an engine-only store: %v, want ErrNotSupported", err)
	}

	done := make(chan struct{})
	w := hopper.NewWorker(s, testConfig("q"))
	hopper.Handle(w, func(context.Context, *hopper.Job[anyArgs]) error { close(done); return nil })
	startWorker(t, w)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a Worker on an engine-only store did not run the job")
	}
}

// anyArgs decodes any args of kind "k".
type anyArgs struct{}

func (anyArgs) Kind() string { return "k" }
