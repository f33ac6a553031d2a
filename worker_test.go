package hopper_test

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
	"github.com/hopperq/hopper/store"
)

func TestWorkerRunsAndAcks(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	w := hopper.NewWorker(s, testConfig("default"))
	got := make(chan *hopper.Job[Echo], 1)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		got <- j
		return nil
	})
	startWorker(t, w)
	info, err := hopper.Enqueue(ctx, c, Echo{N: 7, Msg: "hi"}, &hopper.EnqueueOpts{Meta: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	j := <-got
	if j.Args.N != 7 || j.Args.Msg != "hi" || j.ID != info.ID || j.Queue != "default" || j.Attempt != 1 || j.Meta["k"] != "v" {
		t.Errorf("handler got %+v (args %+v), want the enqueued job on its first attempt", j.JobRecord, j.Args)
	}
	testutil.EventuallyTrue(t, 5*time.Second, "the acked job to be deleted", func() bool { return getJob(t, s, "default", info.ID) == nil })
}

// outcomeCase enqueues one job whose handler behaves as fn and waits for the
// job to reach want.
func runUntilState(t *testing.T, cfg *hopper.WorkerConfig, opts *hopper.EnqueueOpts, fn func(ctx context.Context, j *hopper.Job[Echo]) error, want hopper.JobState) *hopper.JobRecord {
	t.Helper()
	s := newStore()
	c := hopper.NewClient(s, nil)
	w := hopper.NewWorker(s, cfg)
	hopper.Handle(w, fn)
	startWorker(t, w)
	info, err := hopper.Enqueue(t.Context(), c, Echo{N: 1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var rec *hopper.JobRecord
	testutil.EventuallyTrue(t, 10*time.Second, "job in "+string(want), func() bool {
		rec = getJob(t, s, info.Queue, info.ID)
		return rec != nil && rec.State == want
	})
	return rec
}

func TestWorkerRetriesThenBuries(t *testing.T) {
	var calls atomic.Int32
	rec := runUntilState(t, testConfig("default"), &hopper.EnqueueOpts{MaxRetries: 2},
		func(ctx context.Context, j *hopper.Job[Echo]) error {
			calls.Add(1)
			return errors.New("boom")
		}, hopper.StateGarbage)
	if calls.Load() != 3 || rec.Attempt != 3 {
		t.Errorf("handler ran %d times, record says attempt %d; want 3 attempts for MaxRetries 2", calls.Load(), rec.Attempt)
	}
	if len(rec.Errors) != 3 || rec.Errors[2].Error != "boom" || rec.Errors[0].Attempt != 1 || rec.Errors[2].Attempt != 3 {
		t.Errorf("error history %+v, want three 'boom' errors for attempts 1..3", rec.Errors)
	}
}

func TestWorkerPermanentErrorSkipsRetries(t *testing.T) {
	var calls atomic.Int32
	rec := runUntilState(t, testConfig("default"), nil,
		func(ctx context.Context, j *hopper.Job[Echo]) error {
			calls.Add(1)
			return hopper.Permanent(errors.New("bad address"))
		}, hopper.StateGarbage)
	if calls.Load() != 1 || len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0].Error, "bad address") {
		t.Errorf("ran %d times with errors %+v; want one attempt recorded with its error", calls.Load(), rec.Errors)
	}
}

func TestWorkerSnoozeDoesNotCountAttempt(t *testing.T) {
	var calls atomic.Int32
	rec := runUntilState(t, testConfig("default"), &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry},
		func(ctx context.Context, j *hopper.Job[Echo]) error {
			if calls.Add(1) < 4 {
				return hopper.Snooze(time.Millisecond)
			}
			return hopper.Permanent(errors.New("stop"))
		}, hopper.StateGarbage)
	if calls.Load() != 4 || rec.Attempt != 1 || len(rec.Errors) != 1 {
		t.Errorf("ran %d times, attempt %d, %d errors; want 4 runs, 3 snoozes not counted, 1 attempt, 1 error", calls.Load(), rec.Attempt, len(rec.Errors))
	}
}

// RateLimited snoozes the job without counting the attempt and holds its
// queue for the delay, as the store shows.
func TestWorkerRateLimitedHoldsTheQueue(t *testing.T) {
	var calls atomic.Int32
	s := newStore()
	w := hopper.NewWorker(s, testConfig("default"))
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		calls.Add(1)
		return hopper.RateLimited(time.Hour)
	})
	startWorker(t, w)
	before := time.Now()
	info, err := hopper.Enqueue(t.Context(), hopper.NewClient(s, nil), Echo{N: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var rec *hopper.JobRecord
	testutil.EventuallyTrue(t, 10*time.Second, "the job snoozed", func() bool {
		rec = getJob(t, s, "default", info.ID)
		return rec.State == hopper.StatePending
	})
	st, err := hopper.NewInspector(s).GetQueueStats(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Attempt != 0 || len(rec.Errors) != 0 || calls.Load() != 1 {
		t.Errorf("after RateLimited: attempt %d, errors %v, %d runs; want the attempt not counted, no error, one run", rec.Attempt, rec.Errors, calls.Load())
	}
	// The store keeps whole milliseconds.
	if st.HeldUntil.Before(before.Add(time.Hour).Truncate(time.Millisecond)) || st.HeldUntil.After(time.Now().Add(time.Hour+time.Millisecond)) {
		t.Errorf("QueueStats.HeldUntil = %v, want an hour after the handler returned (%v)", st.HeldUntil, before)
	}
	if d := rec.RunAt.Sub(st.HeldUntil); d < -time.Second || d > time.Second {
		t.Errorf("job runs again at %v, the queue is held until %v; want the same time", rec.RunAt, st.HeldUntil)
	}
}

func TestWorkerRecoversPanicWithStack(t *testing.T) {
	rec := runUntilState(t, testConfig("default"), &hopper.EnqueueOpts{MaxRetries: 1},
		func(ctx context.Context, j *hopper.Job[Echo]) error {
			var m map[string]int
			m["x"]++
			return nil
		}, hopper.StateGarbage)
	if len(rec.Errors) != 2 {
		t.Fatalf("errors %+v, want 2 (one per attempt)", rec.Errors)
	}
	e := rec.Errors[0]
	if !strings.Contains(e.Error, "panic") || !strings.Contains(e.Error, "nil map") || !strings.Contains(e.Stack, "worker_test.go") {
		t.Errorf("recorded %q with stack %q; want the panic value and a stack through the handler", e.Error, e.Stack)
	}
}

func TestWorkerUnknownKindAndBadArgsGoToGarbage(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	w := hopper.NewWorker(s, testConfig("default"))
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error { return nil })
	startWorker(t, w)
	res, err := s.Enqueue(ctx, []*store.NewJob{
		{ID: "unknown", Queue: "default", Kind: "nobody_handles_this", Args: []byte{0x80}, JobSpec: store.JobSpec{MaxRetries: 5}},
		{ID: "garbled", Queue: "default", Kind: "echo", Args: []byte{0xc1, 0xff, 0x00}, JobSpec: store.JobSpec{MaxRetries: 5}},
		{ID: "wrongtype", Queue: "default", Kind: "echo", Args: []byte{0x81, 0xa1, 'n', 0xa3, 'a', 'b', 'c'}, JobSpec: store.JobSpec{MaxRetries: 5}},
	})
	if err != nil || len(res) != 3 {
		t.Fatal(res, err)
	}
	for id, want := range map[string]string{"unknown": "no handler for kind", "garbled": "cannot decode", "wrongtype": "cannot decode"} {
		var rec *hopper.JobRecord
		testutil.EventuallyTrue(t, 5*time.Second, id+" in garbage", func() bool {
			rec = getJob(t, s, "default", id)
			return rec != nil && rec.State == hopper.StateGarbage
		})
		if rec.Attempt != 1 || len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0].Error, want) {
			t.Errorf("%s: attempt %d errors %+v; want one attempt failing with %q", id, rec.Attempt, rec.Errors, want)
		}
	}
}

func TestWorkerTimeoutIsAnError(t *testing.T) {
	var deadlineSet atomic.Bool
	var cause atomic.Value
	rec := runUntilState(t, testConfig("default"), &hopper.EnqueueOpts{Timeout: 20 * time.Millisecond, MaxRetries: hopper.NoRetry},
		func(ctx context.Context, j *hopper.Job[Echo]) error {
			_, ok := ctx.Deadline()
			deadlineSet.Store(ok)
			<-ctx.Done()
			cause.Store(context.Cause(ctx).Error())
			return ctx.Err()
		}, hopper.StateGarbage)
	if !deadlineSet.Load() || !strings.Contains(rec.Errors[0].Error, "deadline exceeded") {
		t.Errorf("deadline set: %v, error %q; want a context deadline that fails the attempt", deadlineSet.Load(), rec.Errors[0].Error)
	}
	if got, want := cause.Load(), "hopper: job timeout 20ms reached"; got != want {
		t.Errorf("context.Cause of the attempt: %q, want %q", got, want)
	}
}

func TestWorkerConcurrencyBound(t *testing.T) {
	for _, tc := range []struct {
		prefetch, wantHeld int
	}{
		{prefetch: -1, wantHeld: 3}, // claims only for free slots
		{prefetch: 2, wantHeld: 5},  // 3 running, 2 waiting for a slot
	} {
		t.Run(fmt.Sprintf("prefetch=%d", tc.prefetch), func(t *testing.T) {
			ctx := t.Context()
			s := newStore()
			c := hopper.NewClient(s, nil)
			cfg := testConfig("default")
			cfg.Concurrency = 3
			cfg.Prefetch = tc.prefetch
			w := hopper.NewWorker(s, cfg)
			var running, peak, done atomic.Int32
			release := make(chan struct{})
			hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				<-release
				running.Add(-1)
				done.Add(1)
				return nil
			})
			if _, err := hopper.EnqueueMany(ctx, c, make([]Echo, 20), nil); err != nil {
				t.Fatal(err)
			}
			startWorker(t, w)
			testutil.EventuallyTrue(t, 5*time.Second, "3 jobs running", func() bool { return running.Load() == 3 })
			var st hopper.QueueStats
			testutil.EventuallyTrue(t, 5*time.Second, "the worker holding its jobs", func() bool {
				st, _ = hopper.NewInspector(s).GetQueueStats(ctx, "default")
				return st.Counts.Unack >= int64(tc.wantHeld)
			})
			if st.Counts.Unack != int64(tc.wantHeld) || st.Counts.Ready != int64(20-tc.wantHeld) {
				t.Errorf("with 3 slots busy the store has %d unack and %d ready; want %d and %d (the pool plus Prefetch, no more)",
					st.Counts.Unack, st.Counts.Ready, tc.wantHeld, 20-tc.wantHeld)
			}
			close(release)
			testutil.EventuallyTrue(t, 5*time.Second, "all 20 jobs done", func() bool { return done.Load() == 20 })
			if peak.Load() != 3 {
				t.Errorf("peak concurrency %d, want 3", peak.Load())
			}
		})
	}
}

func TestWorkerRenewsLeaseOfLongJob(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	var runs atomic.Int32
	release := make(chan struct{})
	handler := func(ctx context.Context, j *hopper.Job[Echo]) error {
		runs.Add(1)
		<-release
		return nil
	}
	// Two workers: if the lease of the running job ran out, the idle one
	// would claim it again.
	for range 2 {
		cfg := testConfig("default")
		cfg.Lease = 150 * time.Millisecond
		w := hopper.NewWorker(s, cfg)
		hopper.Handle(w, handler)
		startWorker(t, w)
	}
	info, err := hopper.Enqueue(ctx, c, Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var first *hopper.JobRecord
	testutil.EventuallyTrue(t, 5*time.Second, "job claimed", func() bool {
		first = getJob(t, s, "default", info.ID)
		return first != nil && first.State == hopper.StateUnack
	})
	// Wait until the lease was renewed past five original lease lengths.
	testutil.EventuallyTrue(t, 10*time.Second, "lease renewed far past its first deadline", func() bool {
		rec := getJob(t, s, "default", info.ID)
		return rec.Deadline.Sub(first.Deadline) > 5*150*time.Millisecond
	})
	close(release)
	testutil.EventuallyTrue(t, 5*time.Second, "job acked", func() bool { return getJob(t, s, "default", info.ID) == nil })
	if runs.Load() != 1 {
		t.Errorf("a job running for many lease lengths ran %d times, want 1", runs.Load())
	}
}

func TestWorkerShutdownWaitsForRunningJobs(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	w := hopper.NewWorker(s, testConfig("default"))
	started := make(chan struct{})
	release := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		close(started)
		<-release
		return nil
	})
	stop := startWorker(t, w)
	info, err := hopper.Enqueue(ctx, c, Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	select {
	case <-stopped:
		t.Fatal("Run returned while a job was still running within ShutdownTimeout")
	default:
	}
	close(release)
	<-stopped
	if rec := getJob(t, s, "default", info.ID); rec != nil {
		t.Errorf("job finished during shutdown is in %s, want acked", rec.State)
	}
}

func TestWorkerShutdownHandsBackUnfinishedJobs(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	cfg := testConfig("default")
	cfg.ShutdownTimeout = 10 * time.Millisecond
	cfg.Lease = time.Hour // a lease that would keep the job hidden for an hour if not handed back
	w := hopper.NewWorker(s, cfg)
	started := make(chan struct{}, 2)
	var cause atomic.Value
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		started <- struct{}{}
		<-ctx.Done()
		cause.Store(context.Cause(ctx))
		return ctx.Err()
	})
	stop := startWorker(t, w)
	infos, err := hopper.EnqueueMany(ctx, c, []Echo{{N: 1}, {N: 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	<-started
	stop()
	for _, in := range infos {
		rec := getJob(t, s, "default", in.ID)
		if rec == nil || rec.State != hopper.StateReady || rec.Attempt != 0 || len(rec.Errors) != 0 {
			t.Errorf("after shutdown the interrupted job is %+v; want ready again at once, attempt not counted, no error", rec)
		}
	}
	if err, _ := cause.Load().(error); err == nil || !strings.Contains(err.Error(), "shutting down") {
		t.Errorf("handler's context cause %v, want the shutdown", err)
	}
}

func TestWorkerStrictPriority(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	for i := range 5 {
		if _, err := hopper.Enqueue(ctx, c, Echo{N: 100 + i}, &hopper.EnqueueOpts{Queue: "low"}); err != nil {
			t.Fatal(err)
		}
		if _, err := hopper.Enqueue(ctx, c, Echo{N: i}, &hopper.EnqueueOpts{Queue: "high"}); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig()
	cfg.Queues = map[string]int{"high": 10, "low": 1}
	cfg.StrictPriority = true
	cfg.Concurrency = 1
	w := hopper.NewWorker(s, cfg)
	var mu sync.Mutex
	var order []string
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		mu.Lock()
		order = append(order, j.Queue)
		mu.Unlock()
		return nil
	})
	startWorker(t, w)
	testutil.EventuallyTrue(t, 5*time.Second, "10 jobs run", func() bool { mu.Lock(); defer mu.Unlock(); return len(order) == 10 })
	want := "high,high,high,high,high,low,low,low,low,low"
	if got := strings.Join(order, ","); got != want {
		t.Errorf("run order %s, want %s", got, want)
	}
}

func TestWorkerQueueConcurrency(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	cfg := testConfig("slow", "fast")
	cfg.Concurrency = 6
	cfg.QueueConcurrency = map[string]int{"slow": 2}
	w := hopper.NewWorker(s, cfg)
	var slow, fast atomic.Int32
	release := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		if j.Queue == "slow" {
			slow.Add(1)
		} else {
			fast.Add(1)
		}
		<-release
		return nil
	})
	if _, err := hopper.EnqueueMany(ctx, c, make([]Echo, 10), &hopper.EnqueueOpts{Queue: "slow"}); err != nil {
		t.Fatal(err)
	}
	if _, err := hopper.EnqueueMany(ctx, c, make([]Echo, 2), &hopper.EnqueueOpts{Queue: "fast"}); err != nil {
		t.Fatal(err)
	}
	startWorker(t, w)
	// 6 slots, 2 fast jobs, and slow capped at 2: 4 run, 2 slots stay free.
	testutil.EventuallyTrue(t, 5*time.Second, "4 jobs running", func() bool { return slow.Load()+fast.Load() == 4 })
	st, err := hopper.NewInspector(s).GetQueueStats(ctx, "slow")
	if err != nil {
		t.Fatal(err)
	}
	if slow.Load() != 2 || st.Counts.Unack != 2 || st.Counts.Ready != 8 {
		t.Errorf("slow queue: %d running, %d unack, %d ready; want the cap of 2 with free slots left (2, 2, 8)", slow.Load(), st.Counts.Unack, st.Counts.Ready)
	}
	close(release)
}

func TestWorkerCancelRunningJob(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	w := hopper.NewWorker(s, testConfig("default"))
	started := make(chan struct{})
	var calls atomic.Int32
	var cause atomic.Value
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		calls.Add(1)
		close(started)
		<-ctx.Done()
		cause.Store(context.Cause(ctx))
		return ctx.Err()
	})
	startWorker(t, w)
	info, err := hopper.Enqueue(ctx, c, Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if st, err := hopper.NewInspector(s).CancelJob(ctx, "default", info.ID); err != nil || st != hopper.StateUnack {
		t.Fatalf("Cancel: %v, %v; want it found running", st, err)
	}
	var rec *hopper.JobRecord
	testutil.EventuallyTrue(t, 5*time.Second, "cancelled job in garbage", func() bool {
		rec = getJob(t, s, "default", info.ID)
		return rec != nil && rec.State == hopper.StateGarbage
	})
	if !rec.Cancelled || calls.Load() != 1 {
		t.Errorf("cancelled=%v after %d runs; want cancelled and not retried", rec.Cancelled, calls.Load())
	}
	if err, _ := cause.Load().(error); !errors.Is(err, hopper.ErrCancelled) {
		t.Errorf("handler's context cause %v, want ErrCancelled", err)
	}
}

func TestWorkerAbandonsHandlerIgnoringContext(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	cfg := testConfig("default")
	cfg.AbandonAfter = 20 * time.Millisecond
	cfg.Lease = 300 * time.Millisecond
	w := hopper.NewWorker(s, cfg)
	release := make(chan struct{})
	defer close(release)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		<-release // ignores ctx
		return nil
	})
	startWorker(t, w)
	info, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Timeout: 10 * time.Millisecond, MaxRetries: hopper.NoRetry})
	if err != nil {
		t.Fatal(err)
	}
	var rec *hopper.JobRecord
	testutil.EventuallyTrue(t, 5*time.Second, "stuck job given up", func() bool {
		rec = getJob(t, s, "default", info.ID)
		return rec != nil && rec.State == hopper.StateGarbage
	})
	if len(rec.Errors) != 1 || !strings.Contains(rec.Errors[0].Error, "abandoned") {
		t.Errorf("errors %+v, want one saying the attempt was abandoned", rec.Errors)
	}
}

func TestWorkerRegistersItself(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	cfg := testConfig("default", "other")
	cfg.ID = "worker-under-test"
	w := hopper.NewWorker(s, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error { return nil })
	stop := startWorker(t, w)
	var ws []hopper.WorkerInfo
	testutil.EventuallyTrue(t, 5*time.Second, "worker registered", func() bool {
		var err error
		ws, err = hopper.NewInspector(s).ListWorkers(ctx)
		return err == nil && len(ws) == 1
	})
	if ws[0].ID != "worker-under-test" || ws[0].Concurrency != 4 || len(ws[0].Queues) != 2 || ws[0].PID == 0 {
		t.Errorf("registered %+v", ws[0])
	}
	stop()
	if ws, _ := hopper.NewInspector(s).ListWorkers(ctx); len(ws) != 0 {
		t.Errorf("after Run returned the registry still lists %+v", ws)
	}
}

// A job shows in the registry once it starts, not at the next heartbeat
// period, and the registry counts what the worker processed and failed.
func TestWorkerShowsJobsAsTheyStart(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	cfg := testConfig("default")
	cfg.HeartbeatInterval = time.Hour // only a job start can bring a heartbeat during the test
	w := hopper.NewWorker(s, cfg)
	release := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		switch j.Args.Msg {
		case "fail":
			return errors.New("no")
		case "hold":
			<-release
		}
		return nil
	})
	stop := startWorker(t, w)
	defer stop()
	defer close(release)
	ins := hopper.NewInspector(s)
	testutil.EventuallyTrue(t, 5*time.Second, "the worker's first heartbeat", func() bool {
		ws, err := ins.ListWorkers(ctx)
		return err == nil && len(ws) == 1
	})
	c := hopper.NewClient(s, nil)
	for _, msg := range []string{"ok", "fail"} {
		info, err := hopper.Enqueue(ctx, c, Echo{Msg: msg}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry})
		if err != nil {
			t.Fatal(err)
		}
		testutil.EventuallyTrue(t, 5*time.Second, msg+" job ended", func() bool {
			rec := getJob(t, s, "default", info.ID)
			return rec == nil || rec.State == hopper.StateGarbage
		})
	}
	held, err := hopper.Enqueue(ctx, c, Echo{Msg: "hold"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ws []hopper.WorkerInfo
	testutil.EventuallyTrue(t, 10*time.Second, "the running job in the registry", func() bool {
		ws, err = ins.ListWorkers(ctx)
		return err == nil && len(ws) == 1 && len(ws[0].Running) == 1
	})
	if ws[0].Running[0].ID != held.ID || ws[0].Processed != 2 || ws[0].Failed != 1 {
		t.Errorf("registry shows running %+v, processed %d, failed %d; want the held job, 2 processed, 1 failed",
			ws[0].Running, ws[0].Processed, ws[0].Failed)
	}
}

// A worker records how long its handlers ran (once a minute, and when it
// stops); the Inspector summarizes them per kind.
func TestWorkerRecordsDurations(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		w := hopper.NewWorker(s, testConfig("default"))
		var ran atomic.Int32
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			ran.Add(1)
			return nil
		})
		stop := startWorker(t, w)
		c := hopper.NewClient(s, nil)
		for i := range 20 {
			if _, err := hopper.Enqueue(ctx, c, Echo{N: i}, nil); err != nil {
				t.Fatal(err)
			}
		}
		testutil.EventuallyTrue(t, 10*time.Second, "20 jobs ran", func() bool { return ran.Load() == 20 })
		stop() // the last flush
		ks, err := hopper.NewInspector(s).GetKindDurations(ctx, "default", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ks) != 1 || ks[0].Kind != "echo" || ks[0].Count != 20 || ks[0].P50 <= 0 || ks[0].P50 > ks[0].P95 || ks[0].P95 > ks[0].P99 || ks[0].P99 > ks[0].Max {
			t.Errorf("GetKindDurations = %+v, want echo run 20 times with ordered percentiles", ks)
		}
	})
}

func TestWorkerRunsDelayedJobWhenDue(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	w := hopper.NewWorker(s, testConfig("default"))
	got := make(chan *hopper.Job[Echo], 1)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		got <- j
		return nil
	})
	startWorker(t, w)
	info, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Delay: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rec := getJob(t, s, "default", info.ID)
	j := <-got
	if j.AttemptedAt.Before(rec.RunAt) {
		t.Errorf("job claimed at %v, before it was due at %v", j.AttemptedAt, rec.RunAt)
	}
}

func TestWorkerConfigErrors(t *testing.T) {
	s := newStore()
	cases := map[string]*hopper.WorkerConfig{
		"bad queue":          {Queues: map[string]int{"a b": 1}},
		"zero weight":        {Queues: map[string]int{"a": 0}},
		"negative conc":      {Concurrency: -1},
		"tiny lease":         {Lease: time.Millisecond},
		"cap on other queue": {Queues: map[string]int{"a": 1}, QueueConcurrency: map[string]int{"b": 1}},
	}
	for name, cfg := range cases {
		if err := cfg.Validate(); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Errorf("%s: Validate returned %v, want ErrInvalidConfig", name, err)
		}
		if err := panicOf(func() { hopper.NewWorker(s, cfg) }); !errors.Is(err, hopper.ErrInvalidConfig) {
			t.Errorf("%s: NewWorker panicked with %v, want an error wrapping ErrInvalidConfig", name, err)
		}
	}
	w := hopper.NewWorker(s, nil)
	if err := w.Run(t.Context()); !errors.Is(err, hopper.ErrInvalidConfig) {
		t.Errorf("no handlers: Run returned %v, want ErrInvalidConfig", err)
	}
}

type ptrKind struct{ S string }

func (p *ptrKind) Kind() string { return "ptr_" + p.S }

func TestHandlePointerReceiverPanicsClearly(t *testing.T) {
	w := hopper.NewWorker(newStore(), nil)
	defer func() {
		r := recover()
		if s, _ := r.(string); !strings.Contains(s, "declare Kind on the value type") {
			t.Errorf("panic %v, want advice to declare Kind on the value type", r)
		}
	}()
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[*ptrKind]) error { return nil })
}

func TestWorkerShutdownHandsBackPrefetchedJobs(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	cfg := testConfig("default")
	cfg.Concurrency, cfg.Prefetch = 1, 3
	cfg.ShutdownTimeout = 10 * time.Millisecond
	cfg.Lease = time.Hour
	w := hopper.NewWorker(s, cfg)
	started := make(chan struct{}, 4)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})
	if _, err := hopper.EnqueueMany(ctx, c, make([]Echo, 4), nil); err != nil {
		t.Fatal(err)
	}
	stop := startWorker(t, w)
	<-started
	testutil.EventuallyTrue(t, 5*time.Second, "4 jobs held (1 running, 3 prefetched)", func() bool {
		st, _ := hopper.NewInspector(s).GetQueueStats(ctx, "default")
		return st.Counts.Unack == 4
	})
	stop()
	page, err := hopper.NewInspector(s).ListJobs(ctx, hopper.ListJobsOpts{Queue: "default", State: hopper.StateReady})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Jobs) != 4 {
		t.Fatalf("after shutdown %d jobs are ready, want all 4 handed back", len(page.Jobs))
	}
	for _, j := range page.Jobs {
		if j.Attempt != 0 {
			t.Errorf("job %s handed back with attempt %d, want 0 (not counted)", j.ID, j.Attempt)
		}
	}
	if n := len(started); n != 0 {
		t.Errorf("%d prefetched jobs were started after shutdown began", n)
	}
}

type Stuck struct{}

func (Stuck) Kind() string { return "stuck" }

func TestWorkerAbandonedHandlersDoNotShrinkThePool(t *testing.T) {
	ctx := t.Context()
	s := newStore()
	c := hopper.NewClient(s, nil)
	cfg := testConfig("default")
	cfg.Concurrency, cfg.Prefetch = 2, -1
	cfg.AbandonAfter = 10 * time.Millisecond
	cfg.Lease = 300 * time.Millisecond
	w := hopper.NewWorker(s, cfg)
	forever := make(chan struct{})
	defer close(forever)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Stuck]) error {
		<-forever // ignores its context
		return nil
	})
	var running atomic.Int32
	release := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		running.Add(1)
		<-release
		return nil
	})
	startWorker(t, w)
	stuck, err := hopper.EnqueueMany(ctx, c, make([]Stuck, 2), &hopper.EnqueueOpts{Timeout: 10 * time.Millisecond, MaxRetries: hopper.NoRetry})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range stuck {
		testutil.EventuallyTrue(t, 5*time.Second, "stuck job given up", func() bool {
			rec := getJob(t, s, "default", in.ID)
			return rec != nil && rec.State == hopper.StateGarbage
		})
	}
	// Both executors are still blocked in the stuck handlers; the pool must
	// still run two jobs at once.
	if _, err := hopper.EnqueueMany(ctx, c, make([]Echo, 2), nil); err != nil {
		t.Fatal(err)
	}
	testutil.EventuallyTrue(t, 5*time.Second, "two jobs running beside two abandoned handlers", func() bool { return running.Load() == 2 })
	close(release)
}
