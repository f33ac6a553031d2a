package hopper_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// claimDown is a Store whose Claim fails the first fails times.
type claimDown struct {
	hopper.Store
	fails atomic.Int32
}

func (s *claimDown) Claim(ctx context.Context, o store.ClaimOpts) (store.ClaimResult, error) {
	if s.fails.Add(-1) >= 0 {
		return store.ClaimResult{}, errors.New("LOADING Redis is loading the dataset in memory")
	}
	return s.Store.Claim(ctx, o)
}

// syncBuffer is a buffer safe for the worker's goroutines.
type syncBuffer = testutil.SyncBuffer

// TestWorkerLogsAnOutageOnce: a worker whose claims fail six times in a
// row (Redis restarting) logs the first failure and, once claims work
// again, one line saying so with the count; it logged every retry.
func TestWorkerLogsAnOutageOnce(t *testing.T) {
	ctx := t.Context()
	s := &claimDown{Store: newStore()}
	s.fails.Store(6)
	var logs syncBuffer
	cfg := testConfig("default")
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	w := hopper.NewWorker(s, cfg)
	var ran atomic.Int32
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		ran.Add(1)
		return nil
	})
	if _, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), Echo{Msg: "after the outage"}, nil); err != nil {
		t.Fatal(err)
	}
	startWorker(t, w)
	testutil.EventuallyTrue(t, 30*time.Second, "the job to run once claims work", func() bool { return ran.Load() == 1 })
	testutil.EventuallyTrue(t, 10*time.Second, "the line saying claims work again", func() bool {
		return strings.Contains(logs.String(), "claiming jobs works again")
	})
	out := logs.String()
	if n := strings.Count(out, "claiming jobs failed"); n != 1 {
		t.Fatalf("%d lines of failed claims for one outage of 6 failures, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "failures=6") {
		t.Fatalf("the recovery line does not count the 6 failures:\n%s", out)
	}
}

// extendDown is a Store whose Extend fails while down is set, and counts
// its calls.
type extendDown struct {
	hopper.Store
	down  atomic.Bool
	calls atomic.Int32
}

func (s *extendDown) Extend(ctx context.Context, refs []store.LeaseRef, lease time.Duration) ([]store.LeaseStatus, error) {
	s.calls.Add(1)
	if s.down.Load() {
		return nil, errors.New("NOREPLICAS Not enough good replicas to write.")
	}
	return s.Store.Extend(ctx, refs, lease)
}

// TestWorkerLogsALeaseOutageOnce: a worker whose lease renewals fail many
// times in a row while it runs a job logs the first failure and, once they
// work again, one line saying so; it logged every renewal (ten lines in
// 4.5 s from one worker in an outside trial).
func TestWorkerLogsALeaseOutageOnce(t *testing.T) {
	ctx := t.Context()
	s := &extendDown{Store: newStore()}
	var logs syncBuffer
	cfg := testConfig("default")
	cfg.Lease, cfg.RenewInterval = 10*time.Second, 10*time.Millisecond
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	w := hopper.NewWorker(s, cfg)
	started, release := make(chan struct{}), make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		close(started)
		<-release
		return nil
	})
	if _, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), Echo{Msg: "long"}, nil); err != nil {
		t.Fatal(err)
	}
	startWorker(t, w)
	testutil.Receive(t, started, 30*time.Second, "the job to start")
	s.down.Store(true)
	from := s.calls.Load()
	testutil.EventuallyTrue(t, 30*time.Second, "ten failed renewals", func() bool { return s.calls.Load() >= from+10 })
	s.down.Store(false)
	testutil.EventuallyTrue(t, 30*time.Second, "the line saying renewals work again", func() bool {
		return strings.Contains(logs.String(), "renewing leases works again")
	})
	close(release)
	if n := strings.Count(logs.String(), "renewing leases failed"); n != 1 {
		t.Fatalf("%d lines of failed renewals for one outage of ten or more, want 1:\n%s", n, logs.String())
	}
}

// waitDown is a Store whose first two waits for ready jobs fail and whose
// next ones block until their context ends, then return nothing and no
// error (as redisstore's do while it dials a server that does not
// answer), and that counts the waits.
type waitDown struct {
	hopper.Store
	waits atomic.Int32
}

func (s *waitDown) WaitReady(ctx context.Context, _ []string, _ time.Duration) ([]string, error) {
	if s.waits.Add(1) <= 2 {
		return nil, errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	}
	<-ctx.Done()
	return nil, nil
}

// TestWorkerStoppedInAnOutageSaysNoRecovery: a worker stopped while its
// waits for jobs fail does not log that they work again: the wait that
// returned because the worker stopped is no success. It logged "waiting
// for jobs works again" at every shutdown during an outage, against a
// server never reached (an outside trial).
func TestWorkerStoppedInAnOutageSaysNoRecovery(t *testing.T) {
	s := &waitDown{Store: newStore()}
	var logs syncBuffer
	cfg := testConfig("default")
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	w := hopper.NewWorker(s, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error { return nil })
	stop := startWorker(t, w)
	testutil.EventuallyTrue(t, 30*time.Second, "two failed waits and a third", func() bool { return s.waits.Load() >= 3 })
	stop()
	out := logs.String()
	if !strings.Contains(out, "waiting for jobs failed") {
		t.Fatalf("the outage was not logged:\n%s", out)
	}
	if strings.Contains(out, "works again") {
		t.Fatalf("a worker stopped in an outage logged a recovery:\n%s", out)
	}
}
