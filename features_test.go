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
)

// A global cap of 3 running jobs holds across 4 workers of 5 slots each.
func TestGlobalConcurrencyLimitAcrossWorkers(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		admin := open()
		if err := hopper.NewInspector(admin).SetQueueConfig(ctx, "capped", hopper.QueueConfig{MaxRunning: 3}); err != nil {
			t.Fatal(err)
		}
		var running, peak, done atomic.Int32
		gate := make(chan struct{})
		for range 4 {
			cfg := testConfig("capped")
			cfg.Concurrency = 5
			w := hopper.NewWorker(open(), cfg)
			hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				<-gate
				running.Add(-1)
				done.Add(1)
				return nil
			})
			startWorker(t, w)
		}
		if _, err := hopper.EnqueueMany(ctx, hopper.NewClient(admin, nil), make([]Echo, 15), &hopper.EnqueueOpts{Queue: "capped"}); err != nil {
			t.Fatal(err)
		}
		for round := range 5 {
			testutil.EventuallyTrue(t, 10*time.Second, "3 jobs running", func() bool { return running.Load() == 3 })
			if p := peak.Load(); p != 3 {
				t.Fatalf("round %d: %d jobs ran at once across the workers, cap is 3", round, p)
			}
			for range 3 {
				gate <- struct{}{}
			}
			testutil.EventuallyTrue(t, 10*time.Second, "the round's jobs done", func() bool { return done.Load() == int32(3*(round+1)) })
		}
		if p := peak.Load(); p != 3 {
			t.Errorf("peak %d running, want the cap of 3", p)
		}
	})
}

// A rate limit of 50 per second holds across two workers: no second of the
// store's clock sees more than 50 jobs start. (How much of the limit a
// backlog uses is a timing figure: TestProcRateLimit asserts it over 20 s
// with separate processes.)
func TestRateLimitAcrossWorkers(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		admin := open()
		if err := hopper.NewInspector(admin).SetQueueConfig(ctx, "limited", hopper.QueueConfig{RateLimit: 50, RatePeriod: time.Second}); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		perSecond := map[int64]int{}
		var total atomic.Int32
		for range 2 {
			cfg := testConfig("limited")
			cfg.Concurrency = 20
			w := hopper.NewWorker(open(), cfg)
			hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
				mu.Lock()
				perSecond[j.AttemptedAt.Unix()]++
				mu.Unlock()
				total.Add(1)
				return nil
			})
			startWorker(t, w)
		}
		if _, err := hopper.EnqueueMany(ctx, hopper.NewClient(admin, nil), make([]Echo, 400), &hopper.EnqueueOpts{Queue: "limited"}); err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, 30*time.Second, "7 seconds of limited work", func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(perSecond) >= 8
		})
		mu.Lock()
		defer mu.Unlock()
		first := int64(1 << 62)
		for s, n := range perSecond {
			first = min(first, s)
			if n > 50 {
				t.Errorf("second %d of the store's clock started %d jobs, limit 50", s, n)
			}
		}
		// The first second is partial; the 5 full seconds after it hold at
		// most 250.
		sum := 0
		for s := first + 1; s <= first+5; s++ {
			sum += perSecond[s]
		}
		t.Logf("jobs started per second of the store clock: %v", perSecond)
		if sum > 250 {
			t.Errorf("5 full seconds started %d jobs, limit 250", sum)
		}
	})
}

// A unique job enqueued 100 times at once exists once; it can be enqueued
// again once it is done, and once it died.
func TestUniqueJobUnderConcurrency(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		c := hopper.NewClient(s, nil)
		opts := &hopper.EnqueueOpts{Queue: "uniq", Unique: &hopper.UniqueOpts{}}
		enqueue100 := func(args Echo) *hopper.JobInfo {
			var wg sync.WaitGroup
			var mu sync.Mutex
			var holder *hopper.JobInfo
			ids := map[string]bool{}
			for range 100 {
				wg.Go(func() {
					info, err := hopper.Enqueue(ctx, hopper.NewClient(open(), nil), args, opts)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					ids[info.ID] = true
					if !info.Duplicate {
						if holder != nil {
							t.Errorf("two enqueues of one unique job both added: %s and %s", holder.ID, info.ID)
						}
						holder = info
					}
				})
			}
			wg.Wait()
			if holder == nil || len(ids) != 1 {
				t.Fatalf("100 enqueues of a unique job: holder %v, IDs reported %v; want one job named by every result", holder, ids)
			}
			return holder
		}
		w := hopper.NewWorker(open(), testConfig("uniq"))
		outcome := make(chan error, 1)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error { return <-outcome })
		startWorker(t, w)

		first := enqueue100(Echo{Msg: "digest"})
		outcome <- nil // acked
		testutil.EventuallyTrue(t, 10*time.Second, "first job acked", func() bool { return getJob(t, s, "uniq", first.ID) == nil })
		second := enqueue100(Echo{Msg: "digest"})
		if second.ID == first.ID {
			t.Fatal("after the job finished, the unique key still named it")
		}
		outcome <- hopper.Permanent(errors.New("dead"))
		testutil.EventuallyTrue(t, 10*time.Second, "second job dead", func() bool {
			rec := getJob(t, s, "uniq", second.ID)
			return rec != nil && rec.State == hopper.StateGarbage
		})
		third := enqueue100(Echo{Msg: "digest"})
		if third.ID == second.ID {
			t.Fatal("after the job died, the unique key still named it")
		}
		outcome <- nil
		_ = c
	})
}

// A running job cancelled through another store handle (another process)
// stops, goes to garbage marked cancelled, and is not retried.
func TestCancelRunningJobFromAnotherProcess(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		w := hopper.NewWorker(open(), testConfig("jobs"))
		started := make(chan struct{}, 1)
		stopped := make(chan time.Time, 1)
		var runs atomic.Int32
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			runs.Add(1)
			started <- struct{}{}
			<-ctx.Done()
			stopped <- time.Now()
			return ctx.Err()
		})
		startWorker(t, w)
		other := open()
		info, err := hopper.Enqueue(ctx, hopper.NewClient(other, nil), Echo{}, &hopper.EnqueueOpts{Queue: "jobs"})
		if err != nil {
			t.Fatal(err)
		}
		<-started
		at := time.Now()
		if st, err := hopper.NewInspector(other).CancelJob(ctx, "jobs", info.ID); err != nil || st != hopper.StateUnack {
			t.Fatalf("Cancel = %v, %v; want the job found running", st, err)
		}
		t.Logf("handler's context cancelled %v after Store.CancelJob", (<-stopped).Sub(at))
		var rec *hopper.JobRecord
		testutil.EventuallyTrue(t, 10*time.Second, "job in garbage", func() bool {
			rec = getJob(t, other, "jobs", info.ID)
			return rec != nil && rec.State == hopper.StateGarbage
		})
		if !rec.Cancelled || runs.Load() != 1 || rec.Attempt != 1 {
			t.Errorf("cancelled job: Cancelled=%v, ran %d times, attempt %d; want cancelled after one run", rec.Cancelled, runs.Load(), rec.Attempt)
		}
	})
}

// Five workers running the same schedule enqueue each tick once.
func TestPeriodicOnceAcrossWorkersOnEveryStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		var mu sync.Mutex
		ran := map[time.Time]int{}
		for range 5 {
			cfg := testConfig("ticks")
			cfg.Scheduler = &hopper.SchedulerConfig{Schedules: []hopper.Schedule{{
				Name: "every-200ms", Spec: hopper.Every(200 * time.Millisecond), Args: Tick{}, Opts: &hopper.ScheduleOpts{Queue: "ticks"},
			}}}
			w := hopper.NewWorker(open(), cfg)
			hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Tick]) error {
				mu.Lock()
				ran[j.RunAt]++
				mu.Unlock()
				return nil
			})
			startWorker(t, w)
		}
		testutil.EventuallyTrue(t, 20*time.Second, "10 ticks", func() bool { mu.Lock(); defer mu.Unlock(); return len(ran) >= 10 })
		mu.Lock()
		defer mu.Unlock()
		for tick, n := range ran {
			if n != 1 {
				t.Errorf("tick %v ran %d times across 5 workers, want once", tick, n)
			}
		}
	})
}
