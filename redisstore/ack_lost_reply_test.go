package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// A Worker whose ack's reply is lost (the link cut after the request went
// out) runs OnSuccess once for each job and logs no refusal, whether the
// jobs are kept in done by the queue's retention, by their own, or not at
// all. The retried ack was refused as "lease lost (stale token)" (kept in
// done) or logged as gone, and its hook never ran.
func TestWorkerConfirmsAnAckWhoseReplyWasLost(t *testing.T) {
	for _, tc := range []struct {
		name             string
		queueRet, jobRet time.Duration
	}{{"NoRetention", 0, 0}, {"QueueRetention", time.Hour, 0}, {"JobRetention", 0, time.Hour}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			runLosingAFinishReply(t, lostFinishRun{
				queueRet: tc.queueRet,
				opts:     hopper.EnqueueOpts{Queue: "q", Retention: tc.jobRet},
				hooks: func(h, wrong hopper.HookFunc) hopper.Hooks {
					return hopper.Hooks{OnSuccess: h, OnRetry: wrong, OnDead: wrong}
				},
				handle: func(context.Context, *hopper.Job[oneShot]) error { return nil },
				bad:    []string{"lease lost", "refused", "already gone"},
			})
		})
	}
}

// A Worker whose retry or death's reply is lost runs OnRetry or OnDead
// once for each job and logs no refusal: the outcome sent again finds the
// job in retry or garbage under its claim. The retried outcome was
// refused as "lease lost (stale token)" and its hook never ran.
func TestWorkerConfirmsAFailureWhoseReplyWasLost(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxRetries int
	}{{"Retry", 3}, {"Dead", hopper.NoRetry}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hooks := func(h, wrong hopper.HookFunc) hopper.Hooks {
				return hopper.Hooks{OnRetry: h, OnDead: wrong, OnSuccess: wrong}
			}
			if tc.maxRetries == hopper.NoRetry {
				hooks = func(h, wrong hopper.HookFunc) hopper.Hooks {
					return hopper.Hooks{OnDead: h, OnRetry: wrong, OnSuccess: wrong}
				}
			}
			runLosingAFinishReply(t, lostFinishRun{
				opts:   hopper.EnqueueOpts{Queue: "q", MaxRetries: tc.maxRetries},
				hooks:  hooks,
				handle: func(context.Context, *hopper.Job[oneShot]) error { return errors.New("boom") },
				bad:    []string{"lease lost", "refused"},
			})
		})
	}
}

// lostFinishRun is a run of runLosingAFinishReply.
type lostFinishRun struct {
	queueRet time.Duration      // queue q's retention
	opts     hopper.EnqueueOpts // of each job
	// hooks returns the worker's hooks: h where the outcome's hook
	// belongs, wrong elsewhere.
	hooks  func(h, wrong hopper.HookFunc) hopper.Hooks
	handle func(context.Context, *hopper.Job[oneShot]) error
	bad    []string // what no log line may say
}

// runLosingAFinishReply enqueues three jobs into queue q, loses the reply
// of the worker's first finish call, and fails unless the outcome's hook
// runs once a job, no other hook runs, and no log line says one of r.bad.
// The jobs wait an hour in retry (Backoff), where a retry puts them.
func runLosingAFinishReply(t *testing.T, r lostFinishRun) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rdb := redistest.Start(t).Client(t)
	lose := &loseReplies{suffix: "_finish"}
	rdb.AddHook(lose)
	var logs logBuffer
	s := storeOn(t, rdb, &redisstore.Config{Logger: logs.logger()})
	if r.queueRet > 0 {
		if err := hopper.NewInspector(s).SetQueueConfig(ctx, "q", hopper.QueueConfig{Retention: r.queueRet}); err != nil {
			t.Fatal(err)
		}
	}
	client := hopper.NewClient(s, nil)
	const n = 3
	for i := range n {
		if _, err := hopper.Enqueue(ctx, client, oneShot{N: i}, &r.opts); err != nil {
			t.Fatal(err)
		}
	}
	lose.armed.Store(1)
	var ran [n]atomic.Int32
	var hooks atomic.Int32
	all := make(chan struct{})
	hook := func(_ context.Context, j *hopper.JobRecord, _ error) {
		a, err := hopper.DecodeArgs[oneShot](j)
		if err != nil {
			t.Errorf("decode: %v", err)
			return
		}
		ran[a.N].Add(1)
		if hooks.Add(1) == n {
			close(all)
		}
	}
	wrong := func(_ context.Context, j *hopper.JobRecord, _ error) {
		t.Errorf("a hook of another outcome ran for job %s", j.ID)
	}
	w := hopper.NewWorker(s, &hopper.WorkerConfig{
		Queues: map[string]int{"q": 1}, Concurrency: 1, Lease: time.Minute, Logger: logs.logger(),
		Hooks:   r.hooks(hook, wrong),
		Backoff: func(int, error) time.Duration { return time.Hour },
	})
	hopper.Handle(w, r.handle)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	select {
	case <-all:
	case <-time.After(20 * time.Second):
		t.Fatalf("%d of %d hooks ran in 20 s (%d finish replies lost); logs:\n%s", hooks.Load(), n, lose.lost.Load(), logs.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if lose.lost.Load() != 1 {
		t.Fatalf("%d finish replies lost, want 1", lose.lost.Load())
	}
	for i := range ran {
		if k := ran[i].Load(); k != 1 {
			t.Errorf("the hook ran %d times for job %d, want once", k, i)
		}
	}
	for _, bad := range r.bad {
		if strings.Contains(logs.String(), bad) {
			t.Errorf("a line says %q of an outcome that held:\n%s", bad, logs.String())
		}
	}
}
