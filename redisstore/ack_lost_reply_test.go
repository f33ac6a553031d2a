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
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			rdb := redistest.Start(t).Client(t)
			lose := &loseReplies{suffix: "_finish"}
			rdb.AddHook(lose)
			var logs logBuffer
			s := storeOn(t, rdb, &redisstore.Config{Logger: logs.logger()})
			if tc.queueRet > 0 {
				if err := hopper.NewInspector(s).SetQueueConfig(ctx, "q", hopper.QueueConfig{Retention: tc.queueRet}); err != nil {
					t.Fatal(err)
				}
			}
			client := hopper.NewClient(s, nil)
			const n = 3
			for i := range n {
				if _, err := hopper.Enqueue(ctx, client, oneShot{N: i}, &hopper.EnqueueOpts{Queue: "q", Retention: tc.jobRet}); err != nil {
					t.Fatal(err)
				}
			}
			lose.armed.Store(1)
			var succeeded [n]atomic.Int32
			var hooks atomic.Int32
			all := make(chan struct{})
			w := hopper.NewWorker(s, &hopper.WorkerConfig{
				Queues: map[string]int{"q": 1}, Concurrency: 1, Lease: time.Minute, Logger: logs.logger(),
				Hooks: hopper.Hooks{OnSuccess: func(_ context.Context, j *hopper.JobRecord, _ error) {
					a, err := hopper.DecodeArgs[oneShot](j)
					if err != nil {
						t.Errorf("decode: %v", err)
						return
					}
					succeeded[a.N].Add(1)
					if hooks.Add(1) == n {
						close(all)
					}
				}},
			})
			hopper.Handle(w, func(context.Context, *hopper.Job[oneShot]) error { return nil })
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx) }()
			select {
			case <-all:
			case <-time.After(20 * time.Second):
				t.Fatalf("%d of %d OnSuccess hooks ran in 20 s (%d finish replies lost); logs:\n%s", hooks.Load(), n, lose.lost.Load(), logs.String())
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
			if lose.lost.Load() != 1 {
				t.Fatalf("%d finish replies lost, want 1", lose.lost.Load())
			}
			for i := range succeeded {
				if k := succeeded[i].Load(); k != 1 {
					t.Errorf("OnSuccess ran %d times for job %d, want once", k, i)
				}
			}
			for _, bad := range []string{"lease lost", "refused", "already gone"} {
				if strings.Contains(logs.String(), bad) {
					t.Errorf("a line says %q of an ack that held:\n%s", bad, logs.String())
				}
			}
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
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			rdb := redistest.Start(t).Client(t)
			lose := &loseReplies{suffix: "_finish"}
			rdb.AddHook(lose)
			var logs logBuffer
			s := storeOn(t, rdb, &redisstore.Config{Logger: logs.logger()})
			client := hopper.NewClient(s, nil)
			const n = 3
			for i := range n {
				if _, err := hopper.Enqueue(ctx, client, oneShot{N: i}, &hopper.EnqueueOpts{Queue: "q", MaxRetries: tc.maxRetries}); err != nil {
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
				t.Errorf("a hook of the other outcome ran for job %s", j.ID)
			}
			hs := hopper.Hooks{OnRetry: hook, OnDead: wrong, OnSuccess: wrong}
			if tc.maxRetries == hopper.NoRetry {
				hs.OnRetry, hs.OnDead = wrong, hook
			}
			w := hopper.NewWorker(s, &hopper.WorkerConfig{
				Queues: map[string]int{"q": 1}, Concurrency: 1, Lease: time.Minute, Logger: logs.logger(), Hooks: hs,
				// The jobs wait in retry while the outcome is sent again.
				Backoff: func(int, error) time.Duration { return time.Hour },
			})
			hopper.Handle(w, func(context.Context, *hopper.Job[oneShot]) error { return errors.New("boom") })
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
			for _, bad := range []string{"lease lost", "refused"} {
				if strings.Contains(logs.String(), bad) {
					t.Errorf("a line says %q of an outcome that held:\n%s", bad, logs.String())
				}
			}
		})
	}
}
