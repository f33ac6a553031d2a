package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// finishFails is a Store whose Finish always fails, as a store that went
// away for good would.
type finishFails struct {
	store.Store
	mu    sync.Mutex
	calls int
}

func (s *finishFails) Finish(context.Context, []store.AttemptEnd) ([]error, error) {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
	return nil, errors.New("store unreachable")
}

// A stopping worker whose store keeps refusing outcomes gives up on them
// and returns, even when more outcomes wait than the finisher's queue holds
// (an add blocked on the full queue used to deadlock close against flush).
func TestFinisherCloseGivesUpOnFailingStore(t *testing.T) {
	shortFinalFlush(t)

	cfg := testConfig(slog.New(slog.DiscardHandler))
	fs := &finishFails{}
	r := newWorker(fs, cfg, nil)
	go r.fin.loop()

	var added sync.WaitGroup
	add := func(id string) {
		a, req := running(r, "q", id)
		added.Go(func() { r.fin.add(a, req) })
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		testutil.EventuallyTrue(t, testutil.Wait, what, cond)
	}
	calls := func() int {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return fs.calls
	}
	// One outcome in a flush that keeps failing, then more than the queue
	// holds (2×Concurrency = 2).
	add("first")
	waitFor("a failing flush", func() bool { return calls() >= 1 })
	for _, id := range []string{"b", "c", "d", "e", "f"} {
		add(id)
	}

	closed := make(chan struct{})
	go func() { r.fin.close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(30 * time.Second):
		t.Fatal("close did not return: the finisher deadlocked with a failing store")
	}
	added.Wait()
	if n := len(r.snapshot()); n != 0 {
		t.Errorf("%d attempts still held after close gave up on them", n)
	}
}

// An ack whose first try finds its job gone (another worker acked it after
// this one's lease ran out, it was deleted, or Redis lost it) is not
// reported as a refusal.
func TestFinisherAckOfGoneJobIsNotAWarning(t *testing.T) {
	var logs strings.Builder
	cfg := testConfig(slog.New(slog.NewTextHandler(&logs, nil)))
	r := newWorker(&finishFails{}, cfg, nil)
	a := &attempt{rec: &store.JobRecord{Queue: "q", ID: "a"}}
	r.fin.report(finishItem{a: a, req: &store.AttemptEnd{Queue: "q", ID: "a", Outcome: store.OutcomeAck}}, store.ErrJobNotFound)
	r.fin.report(finishItem{a: a, req: &store.AttemptEnd{Queue: "q", ID: "a", Outcome: store.OutcomeRetry}}, store.ErrJobNotFound)
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "level=INFO") || !strings.Contains(lines[0], "already gone") {
		t.Errorf("the ack of a gone job logged %q, want an INFO saying it is already gone", lines[0])
	}
	if !strings.Contains(lines[0], "or lost by Redis (a restart without persistence, a failover to a replica behind)") {
		t.Errorf("the ack of a gone job logged %q, want Redis losing its data among the causes", lines[0])
	}
	if len(lines) != 2 || !strings.Contains(lines[1], "level=WARN") {
		t.Errorf("a retry of a gone job logged %q, want a WARN", lines[len(lines)-1])
	}
}

// testConfig is a resolved Config of one executor on queue "q".
// shortFinalFlush makes a closing finisher give up after 50 ms, for the
// test.
func shortFinalFlush(t *testing.T) {
	old := finalFlushTimeout
	finalFlushTimeout = 50 * time.Millisecond
	t.Cleanup(func() { finalFlushTimeout = old })
}

// running registers an attempt at job q/id (token 1) as running in r, and
// returns it with the ack that finishes it.
func running(r *worker, q, id string) (*attempt, *store.AttemptEnd) {
	a := &attempt{rec: &store.JobRecord{Queue: q, ID: id, Token: 1}}
	r.mu.Lock()
	r.active[a] = struct{}{}
	r.mu.Unlock()
	return a, &store.AttemptEnd{Queue: q, ID: id, Token: 1, Outcome: store.OutcomeAck}
}

func testConfig(log *slog.Logger) Config {
	return Config{
		Queues:            []Queue{{Name: "q", Weight: 1}},
		Concurrency:       1,
		ClaimBatch:        1,
		Prefetch:          1,
		Lease:             time.Second,
		RenewEvery:        300 * time.Millisecond,
		IdleWait:          time.Second,
		AbandonAfter:      time.Second,
		ShutdownTimeout:   time.Second,
		HeartbeatInterval: time.Second,
		Backoff:           func(int, error) time.Duration { return 0 },
		Classify:          func(error) Verdict { return Verdict{} },
		Recovered:         func(v any, _ []byte) error { return fmt.Errorf("panic: %v", v) },
		Logger:            log,
		ID:                "test",
	}
}

// finishSplit is a store whose Finish fails the requests of queue "bad"
// (its shard unreachable) and applies the others, recording them.
type finishSplit struct {
	store.Store
	mu      sync.Mutex
	applied []string
	badSeen int
}

func (s *finishSplit) Finish(_ context.Context, reqs []store.AttemptEnd) ([]error, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	errs := make([]error, len(reqs))
	for i, r := range reqs {
		if r.Queue == "bad" {
			s.badSeen++
			errs[i] = errors.New("dial tcp: connection refused")
			continue
		}
		s.applied = append(s.applied, r.ID)
	}
	return errs, nil
}

// The outcome of a job whose queue's shard fails is tried again on its
// own: the outcomes of healthy queues that come after it are reported at
// once, not after it succeeds.
func TestFinisherRetriesAFailingQueueAlone(t *testing.T) {
	shortFinalFlush(t)
	fs := &finishSplit{}
	r := newWorker(fs, testConfig(slog.New(slog.DiscardHandler)), nil)
	go r.fin.loop()
	t.Cleanup(r.fin.close)
	add := func(q, id string) {
		r.fin.add(running(r, q, id))
	}
	add("bad", "stuck")
	testutil.EventuallyTrue(t, testutil.Wait, "the failing ack to be tried twice", func() bool {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return fs.badSeen >= 2
	})
	for i := range 5 {
		add("good", fmt.Sprint("ok", i))
	}
	// The store records an ack inside Finish; the finisher lets go of its
	// attempt only after Finish returns, so the held set is awaited too.
	testutil.EventuallyTrue(t, testutil.Wait, "the healthy acks applied and let go while the failing one is still held", func() bool {
		fs.mu.Lock()
		applied := len(fs.applied)
		fs.mu.Unlock()
		held := r.snapshot()
		return applied == 5 && len(held) == 1 && held[0].rec.ID == "stuck"
	})
}

// finishRefuses is a Store whose Finish refuses every request but the
// acks of job "ok": the other leases were lost.
type finishRefuses struct{ store.Store }

func (finishRefuses) Finish(_ context.Context, reqs []store.AttemptEnd) ([]error, error) {
	errs := make([]error, len(reqs))
	for i, r := range reqs {
		if r.ID != "ok" {
			errs[i] = fmt.Errorf("%w: %s", store.ErrLeaseLost, r.ID)
		}
	}
	return errs, nil
}

// The hook runs for an outcome the store confirmed, never for one it
// refused.
func TestHookOnlyForConfirmedOutcomes(t *testing.T) {
	r, done := finishWatched(finishRefuses{}, testConfig(slog.New(slog.DiscardHandler)))
	for _, id := range []string{"lost", "ok"} {
		a := &attempt{rec: &store.JobRecord{Queue: "q", ID: id, Token: 1}}
		r.mu.Lock()
		r.active[a] = struct{}{}
		r.mu.Unlock()
		r.fin.add(a, &store.AttemptEnd{Queue: "q", ID: id, Token: 1, Outcome: store.OutcomeAck})
	}
	got := done() // every outcome reported
	if strings.Join(got, ",") != "ok ack" {
		t.Fatalf("hooks ran for %q, want only the confirmed ack of job ok", got)
	}
}

// finishWatched returns a worker on st whose finisher and hooks run, and
// done, which closes both and returns the outcomes its Finished hook
// reported, each as "id outcome", in order.
func finishWatched(st store.Store, cfg Config) (r *worker, done func() []string) {
	var mu sync.Mutex
	var got []string
	cfg.Finished = func(_ context.Context, rec *store.JobRecord, o store.Outcome, _ error) {
		mu.Lock()
		got = append(got, rec.ID+" "+o.String())
		mu.Unlock()
	}
	r = newWorker(st, cfg, nil)
	r.jobBase = context.Background()
	go r.fin.loop()
	hooked := make(chan struct{})
	go func() {
		r.hookLoop(r.hooks)
		close(hooked)
	}()
	return r, func() []string {
		r.fin.close()
		close(r.hooks)
		<-hooked
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// finishHangs is a store whose Finish of a call with a request of queue
// "hang" blocks until release is closed or the call's context ends (a
// node that does not answer); entered receives once when such a call
// began. The requests of other queues are applied.
type finishHangs struct {
	store.Store
	release chan struct{}
	entered chan struct{}
	mu      sync.Mutex
	applied []string
	hung    int // calls of queue "hang" that returned
}

func (s *finishHangs) Finish(ctx context.Context, reqs []store.AttemptEnd) ([]error, error) {
	errs := make([]error, len(reqs))
	if slices.ContainsFunc(reqs, func(r store.AttemptEnd) bool { return r.Queue == "hang" }) {
		select {
		case s.entered <- struct{}{}:
		default:
		}
		select {
		case <-s.release:
		case <-ctx.Done():
		}
		s.mu.Lock()
		s.hung++
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range reqs {
		if r.Queue == "hang" {
			errs[i] = errors.New("i/o timeout")
			continue
		}
		s.applied = append(s.applied, r.ID)
	}
	return errs, nil
}

// A Finish call held up by a node that does not answer does not hold up
// the outcomes of other queues: they go in other calls meanwhile.
func TestFinisherOutcomesPassAHangingCall(t *testing.T) {
	shortFinalFlush(t)
	fs := &finishHangs{release: make(chan struct{}), entered: make(chan struct{}, 1)}
	r := newWorker(fs, testConfig(slog.New(slog.DiscardHandler)), nil)
	go r.fin.loop()
	t.Cleanup(func() {
		close(fs.release)
		r.fin.close()
	})
	add := func(q, id string) {
		r.fin.add(running(r, q, id))
	}
	add("hang", "stuck")
	<-fs.entered
	for i := range 5 {
		add("good", fmt.Sprint("ok", i))
	}
	testutil.EventuallyTrue(t, testutil.Wait, "the healthy acks applied", func() bool {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		return len(fs.applied) == 5
	})
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.hung > 0 {
		t.Fatal("the healthy acks were applied only after the hanging call gave up")
	}
}
