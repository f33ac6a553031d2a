package hopper_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// renewalsFail is a Store whose lease renewals fail while fail is set, as
// they do for a worker cut off from its store.
type renewalsFail struct {
	hopper.Store
	fail atomic.Bool
}

func (s *renewalsFail) Extend(ctx context.Context, refs []store.LeaseRef, lease time.Duration) ([]store.LeaseStatus, error) {
	if s.fail.Load() {
		return nil, errors.New("store unreachable")
	}
	return s.Store.Extend(ctx, refs, lease)
}

// A job that waited in a worker's prefetch buffer past its lease (the
// worker could not renew it) and was meanwhile reclaimed and run by another
// worker is not run again by the first one when an executor frees up.
func TestWorkerDoesNotStartJobWhoseLeaseRanOut(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	cut := &renewalsFail{Store: s}

	var mu sync.Mutex
	runs := map[int][]string{} // job N -> workers that ran it
	release := make(chan struct{})
	handler := func(name string) func(context.Context, *hopper.Job[Echo]) error {
		return func(ctx context.Context, j *hopper.Job[Echo]) error {
			mu.Lock()
			runs[j.Args.N] = append(runs[j.Args.N], name)
			mu.Unlock()
			if name == "a" && j.Args.N == 1 {
				<-release // keeps a's only executor busy; ignores its context
			}
			return nil
		}
	}
	ranBy := func(n int) []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), runs[n]...)
	}

	// Worker a: one executor, one job prefetched behind it.
	cfgA := testConfig("default")
	cfgA.Concurrency = 1
	cfgA.Prefetch = 1
	cfgA.Lease = 300 * time.Millisecond
	cfgA.AbandonAfter = time.Hour
	a := hopper.NewWorker(cut, cfgA)
	hopper.Handle(a, handler("a"))
	if _, err := hopper.EnqueueMany(ctx, hopper.NewClient(s, nil), []Echo{{N: 1}, {N: 2}}, nil); err != nil {
		t.Fatal(err)
	}
	stopA := startWorker(t, a)
	testutil.EventuallyTrue(t, 10*time.Second, "a runs job 1 with job 2 prefetched", func() bool {
		st, err := hopper.NewInspector(s).GetQueueStats(ctx, hopper.DefaultQueue)
		return err == nil && len(ranBy(1)) == 1 && st.Counts.Ready == 0 && st.Counts.Unack == 2
	})

	// a is cut off: its leases run out, and worker b takes job 2 over.
	cut.fail.Store(true)
	b := hopper.NewWorker(s, testConfig("default"))
	hopper.Handle(b, handler("b"))
	stopB := startWorker(t, b)
	testutil.EventuallyTrue(t, 10*time.Second, "b runs job 2", func() bool { return len(ranBy(2)) == 1 })
	stopB()

	// a reaches its store again and its executor frees up: job 2, whose
	// lease a lost, must not start there.
	cut.fail.Store(false)
	close(release)
	if _, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), Echo{N: 3}, nil); err != nil {
		t.Fatal(err)
	}
	// Job 3 is claimed after job 2 was dispatched, and a has one executor:
	// once job 3 ran, a has decided about job 2.
	testutil.EventuallyTrue(t, 10*time.Second, "a runs job 3", func() bool { return len(ranBy(3)) == 1 })
	stopA()
	if got := ranBy(2); len(got) != 1 || got[0] != "b" {
		t.Errorf("job 2 ran on %v, want only on b, which took it over", got)
	}
}
