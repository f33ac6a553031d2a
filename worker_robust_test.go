package hopper_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// After more handlers ignore their context than the pool has room to
// replace, and they all return at last, the pool is back at its size: a
// new job still runs.
func TestWorkerPoolRecoversFromMoreAbandonsThanRoom(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	cfg := testConfig("default")
	cfg.Concurrency = 1 // room for one replacement
	cfg.JobTimeout = 20 * time.Millisecond
	cfg.AbandonAfter = 20 * time.Millisecond
	w := hopper.NewWorker(s, cfg)
	unstick := make(chan struct{})
	var quick atomic.Int32
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		if j.Args.Msg == "stuck" && j.Attempt == 1 {
			<-unstick // ignores its context
			return nil
		}
		quick.Add(1)
		return nil
	})
	infos, err := hopper.EnqueueMany(ctx, c, []Echo{{Msg: "stuck"}, {Msg: "stuck"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	startWorker(t, w)
	defer func() {
		select {
		case <-unstick:
		default:
			close(unstick)
		}
	}()
	// Both first attempts abandoned: the second found no room for a
	// replacement, so the worker has no free executor left.
	testutil.EventuallyTrue(t, 10*time.Second, "both stuck attempts abandoned", func() bool {
		for _, in := range infos {
			if rec := getJob(t, s, "default", in.ID); rec == nil || len(rec.Errors) == 0 {
				return false
			}
		}
		return true
	})
	close(unstick)
	if _, err := hopper.Enqueue(ctx, c, Echo{Msg: "quick"}, nil); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyTrue(t, 10*time.Second, "a job to run after the stuck handlers returned", func() bool { return quick.Load() >= 1 })
}

// finishDown is a Store whose Finish fails while down is set.
type finishDown struct {
	hopper.Store
	down atomic.Bool
}

func (s *finishDown) Finish(ctx context.Context, reqs []store.AttemptEnd) ([]error, error) {
	if s.down.Load() {
		return nil, errors.New("store unreachable")
	}
	return s.Store.Finish(ctx, reqs)
}

// A worker stopping while its store refuses every outcome, with more jobs
// prefetched than the finisher's queue holds, still returns: it gives up on
// the outcomes (their jobs come back when their leases expire).
func TestWorkerStopsWhileStoreRefusesOutcomes(t *testing.T) {
	ctx := t.Context()
	ms := newStore()
	s := &finishDown{Store: ms}
	cfg := testConfig("default")
	cfg.Concurrency = 1
	cfg.Prefetch = 20
	cfg.ClaimBatch = 21
	cfg.ShutdownTimeout = 100 * time.Millisecond
	w := hopper.NewWorker(s, cfg)
	release := make(chan struct{})
	var started atomic.Int32
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		started.Add(1)
		<-release
		return nil
	})
	if _, err := hopper.EnqueueMany(ctx, hopper.NewClient(s, nil), make([]Echo, 21), nil); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	testutil.EventuallyTrue(t, 10*time.Second, "one job running, twenty prefetched", func() bool {
		st, err := hopper.NewInspector(ms).GetQueueStats(ctx, "default")
		return err == nil && started.Load() == 1 && st.Counts.Unack == 21
	})
	s.down.Store(true)
	cancel()
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Run still running a minute after cancel while the store refuses outcomes")
	}
}

// A queue at its QueueConcurrency cap, next to an empty queue, claims its
// next job as soon as a slot frees, not after the idle wait (5 s).
func TestWorkerCappedQueueClaimsWhenSlotFrees(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	cfg := testConfig("a", "b")
	cfg.QueueConcurrency = map[string]int{"a": 1}
	w := hopper.NewWorker(s, cfg)
	var done atomic.Int32
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		done.Add(1)
		return nil
	})
	if _, err := hopper.EnqueueMany(ctx, hopper.NewClient(s, nil), make([]Echo, 5), &hopper.EnqueueOpts{Queue: "a"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	startWorker(t, w)
	testutil.EventuallyTrue(t, 30*time.Second, "5 jobs done", func() bool { return done.Load() == 5 })
	// With the bug each job after the first waited out the 5 s idle wait.
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("5 jobs on a queue capped at 1 took %v: each waited for the idle wait instead of the freed slot", d)
	}
}
