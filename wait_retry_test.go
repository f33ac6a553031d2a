package hopper_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// loadingErr is a store error that may clear by itself, as redisstore's
// errors of a Redis loading its data set say (StoreTemporary).
type loadingErr struct{}

func (loadingErr) Error() string        { return "LOADING Redis is loading the dataset in memory" }
func (loadingErr) StoreTemporary() bool { return true }

// flakyWaits is a memstore whose watches fail with err, the first
// jobFails (WatchJob) and wfFails (WatchWorkflow) times.
type flakyWaits struct {
	*memstore.Store
	err               error
	jobFails, wfFails atomic.Int32
}

func (f *flakyWaits) WatchJob(ctx context.Context, queue, id string) (<-chan store.JobEnd, error) {
	if f.jobFails.Add(-1) >= 0 {
		return nil, f.err
	}
	return f.Store.WatchJob(ctx, queue, id)
}

func (f *flakyWaits) WatchWorkflow(ctx context.Context, id string) (<-chan store.WorkflowEnd, error) {
	if f.wfFails.Add(-1) >= 0 {
		return nil, f.err
	}
	return f.Store.WatchWorkflow(ctx, id)
}

// TestWaitRetriesTemporaryStoreErrors: a wait whose store fails with an
// error that may clear by itself (Redis loading its data after a restart)
// watches again and returns the end; it returned the error.
func TestWaitRetriesTemporaryStoreErrors(t *testing.T) {
	s := &flakyWaits{Store: newStore(), err: loadingErr{}}
	s.jobFails.Store(3)
	s.wfFails.Store(3)
	c := hopper.NewClient(s, nil)
	squareWorker(t, s)

	got, _, err := hopper.EnqueueAndWait[int](t.Context(), c, Square{N: 3}, nil)
	if err != nil || got != 9 {
		t.Fatalf("EnqueueAndWait through 3 LOADING errors: %d, %v; want 9", got, err)
	}
	if left := s.jobFails.Load(); left >= 0 {
		t.Fatalf("the wait watched %d times, want the 3 failures and one more", 3-left)
	}

	wf := hopper.NewWorkflow("square", nil)
	hopper.AddTask(wf, "only", Square{N: 4}, nil)
	info, err := hopper.EnqueueWorkflow(t.Context(), c, wf)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := c.WaitWorkflow(t.Context(), info.ID)
	if err != nil || rec.State != hopper.WorkflowSucceeded {
		t.Fatalf("WaitWorkflow through 3 LOADING errors: %+v, %v; want it succeeded", rec, err)
	}
}

// TestWaitReturnsOtherStoreErrors: an error that does not say it may
// clear (an ACL refusal) ends the wait at once; a temporary one that
// lasts ends it with ctx's error when ctx ends.
func TestWaitReturnsOtherStoreErrors(t *testing.T) {
	acl := errors.New("NOPERM this user has no permissions to run the 'fcall' command")
	s := &flakyWaits{Store: newStore(), err: acl}
	s.jobFails.Store(5)
	s.wfFails.Store(5)
	c := hopper.NewClient(s, nil)
	if _, err := c.WaitJob(t.Context(), "default", "some-job"); !errors.Is(err, acl) {
		t.Fatalf("WaitJob: %v, want the ACL error", err)
	}
	if _, err := c.WaitWorkflow(t.Context(), "some-workflow"); !errors.Is(err, acl) {
		t.Fatalf("WaitWorkflow: %v, want the ACL error", err)
	}
	if left := s.jobFails.Load() + s.wfFails.Load(); left != 8 {
		t.Fatalf("the waits watched %d times, want once each", 10-left)
	}

	s.err = loadingErr{}
	s.jobFails.Store(1 << 30)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.WaitJob(ctx, "default", "some-job"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitJob while the store stays LOADING: %v, want ctx's deadline", err)
	}
}
