package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/middleware"
)

func TestRecoverTurnsPanicIntoPanicError(t *testing.T) {
	var hooked []*hopper.PanicError
	var hookedJob *hopper.JobRecord
	mw := middleware.Recover(&middleware.RecoverConfig{OnPanic: func(ctx context.Context, job *hopper.JobRecord, p *hopper.PanicError) {
		hookedJob = job
		hooked = append(hooked, p)
	}})
	cause := errors.New("boom")
	h := mw(hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error { panicInHandler(cause); return nil }))
	job := &hopper.JobRecord{ID: "j1", Queue: "default", Kind: "echo", Attempt: 1}

	err := h.Handle(t.Context(), job)

	var p *hopper.PanicError
	if !errors.As(err, &p) {
		t.Fatalf("Handle returned %v (%T), want a *hopper.PanicError", err, err)
	}
	if p.Value != cause || !errors.Is(err, cause) {
		t.Errorf("panic value %v, want the value passed to panic, reachable with errors.Is", p.Value)
	}
	if !strings.Contains(string(p.Stack), "panicInHandler") {
		t.Errorf("stack does not name the panicking function:\n%s", p.Stack)
	}
	if len(hooked) != 1 || hooked[0] != p || hookedJob != job {
		t.Errorf("OnPanic called %d times (job %v), want once with the returned error and the job", len(hooked), hookedJob)
	}
}

func panicInHandler(v any) { panic(v) }

func TestRecoverPassesResultsThrough(t *testing.T) {
	calls := 0
	mw := middleware.Recover(&middleware.RecoverConfig{OnPanic: func(context.Context, *hopper.JobRecord, *hopper.PanicError) { calls++ }})
	for _, want := range []error{nil, errors.New("plain"), hopper.Snooze(time.Second)} {
		h := mw(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { return want }))
		if got := h.Handle(t.Context(), &hopper.JobRecord{}); got != want {
			t.Errorf("Handle returned %v, want %v unchanged", got, want)
		}
	}
	if calls != 0 {
		t.Errorf("OnPanic called %d times without a panic", calls)
	}
}

func TestRecoverSurvivesPanickingHook(t *testing.T) {
	mw := middleware.Recover(&middleware.RecoverConfig{OnPanic: func(context.Context, *hopper.JobRecord, *hopper.PanicError) {
		panic("hook bug")
	}})
	h := mw(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { panic("handler bug") }))
	var p *hopper.PanicError
	if err := h.Handle(t.Context(), &hopper.JobRecord{}); !errors.As(err, &p) || p.Value != "handler bug" {
		t.Errorf("Handle returned %v, want the handler's panic", err)
	}
	// Nil options are defaults: no hook.
	h = middleware.Recover(nil)(hopper.HandlerFunc(func(context.Context, *hopper.JobRecord) error { panic(nil) }))
	if err := h.Handle(t.Context(), &hopper.JobRecord{}); !errors.As(err, &p) {
		t.Errorf("panic(nil) gave %v, want a *hopper.PanicError", err)
	}
}

// TestRecoverThousandPanics runs a handler that panics 1,000 times in a pool
// of 8: every job ends in retry or garbage with the stack in its error
// history, and afterwards 8 handlers still run at once.
func TestRecoverThousandPanics(t *testing.T) {
	forEachStore(t, func(t *testing.T, s hopper.Store) {
		const (
			jobs        = 1000
			concurrency = 8
		)
		ctx := t.Context()
		var panics atomic.Int64
		cfg := testConfig()
		cfg.Concurrency = concurrency
		// The first attempt of a job with retries left waits an hour in
		// retry; a job without retries goes to garbage.
		cfg.Backoff = func(int, error) time.Duration { return time.Hour }
		cfg.Recover = middleware.Recover(&middleware.RecoverConfig{OnPanic: func(ctx context.Context, job *hopper.JobRecord, p *hopper.PanicError) {
			panics.Add(1)
		}})
		w := hopper.NewWorker(s, cfg)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			var m map[string]int
			m[fmt.Sprint(j.Args.N)]++ // nil map write: a runtime panic
			return nil
		})
		var running atomic.Int32
		started := make(chan struct{}, concurrency)
		release := make(chan struct{})
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Block]) error {
			running.Add(1)
			defer running.Add(-1)
			started <- struct{}{}
			select {
			case <-release:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		startWorker(t, w)
		var releaseOnce sync.Once
		releaseAll := func() { releaseOnce.Do(func() { close(release) }) }
		t.Cleanup(releaseAll) // before the worker stops, should the test fail

		c := hopper.NewClient(s, nil)
		args := make([]Echo, jobs/2)
		for i := range args {
			args[i] = Echo{N: i}
		}
		if _, err := hopper.EnqueueMany(ctx, c, args, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry}); err != nil {
			t.Fatal(err)
		}
		if _, err := hopper.EnqueueMany(ctx, c, args, &hopper.EnqueueOpts{MaxRetries: 3}); err != nil {
			t.Fatal(err)
		}
		var st hopper.QueueStats
		testutil.EventuallyTrue(t, 60*time.Second, "500 jobs in garbage and 500 in retry", func() bool {
			var err error
			st, err = hopper.NewInspector(s).GetQueueStats(ctx, hopper.DefaultQueue)
			if err != nil {
				t.Fatal(err)
			}
			return st.Counts.Garbage+st.Counts.Retry == jobs
		})
		if st.Counts.Garbage != jobs/2 || st.Counts.Retry != jobs/2 || st.Counts.Total() != jobs {
			t.Errorf("counts %+v, want 500 garbage and 500 retry", st.Counts)
		}
		if n := panics.Load(); n != jobs {
			t.Errorf("OnPanic saw %d panics, want %d", n, jobs)
		}
		for _, state := range []hopper.JobState{hopper.StateGarbage, hopper.StateRetry} {
			seen := 0
			for off := 0; ; off += 200 {
				page, err := hopper.NewInspector(s).ListJobs(ctx, hopper.ListJobsOpts{Queue: hopper.DefaultQueue, State: state, Offset: off, Limit: 200})
				if err != nil {
					t.Fatal(err)
				}
				for _, j := range page.Jobs {
					seen++
					if len(j.Errors) == 0 {
						t.Fatalf("%s job %s has no error history", state, j.ID)
					}
					last := j.Errors[len(j.Errors)-1]
					if !strings.Contains(last.Error, "panic") || !strings.Contains(last.Stack, "recover_test.go") {
						t.Fatalf("%s job %s: last error %q with stack %q; want the panic and a stack through the handler", state, j.ID, last.Error, last.Stack)
					}
				}
				if len(page.Jobs) < 200 {
					break
				}
			}
			if seen != jobs/2 {
				t.Errorf("listed %d %s jobs, want %d", seen, state, jobs/2)
			}
		}

		// The pool is still full: as many blocking jobs as the concurrency
		// run at the same time.
		blocks := make([]Block, concurrency)
		if _, err := hopper.EnqueueMany(ctx, c, blocks, nil); err != nil {
			t.Fatal(err)
		}
		for i := range concurrency {
			testutil.Receive(t, started, 30*time.Second, fmt.Sprintf("blocking job %d of %d to start", i+1, concurrency))
		}
		if n := running.Load(); n != concurrency {
			t.Errorf("%d blocking handlers running at once, want %d", n, concurrency)
		}
		releaseAll()
		testutil.EventuallyTrue(t, 30*time.Second, "blocking jobs to finish", func() bool { return running.Load() == 0 })
	})
}
