package engine

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// claimHangs is a store whose claims on queue "hang" block until their
// context ends (a node that does not answer).
type claimHangs struct {
	store.Store
	entered  chan struct{} // receives when a claim on "hang" began
	returned atomic.Int32  // claims on "hang" that returned
}

func (s *claimHangs) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	if req.Queue == "hang" {
		select {
		case s.entered <- struct{}{}:
		default:
		}
		<-ctx.Done()
		s.returned.Add(1)
		return store.ClaimResult{}, ctx.Err()
	}
	return s.Store.Claim(ctx, req)
}

// A claim held up by a node that does not answer holds up no claim on
// another queue: the healthy queue's jobs run meanwhile.
func TestClaimOnAHangingQueueDelaysNoOther(t *testing.T) {
	mem := memstore.New(nil)
	st := &claimHangs{Store: mem, entered: make(chan struct{}, 1)}
	if _, err := mem.Enqueue(t.Context(), []*store.NewJob{{ID: "h", Queue: "hang", Kind: "k"}}); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Queues = []Queue{{Name: "good", Weight: 1}, {Name: "hang", Weight: 1}}
	cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = 4, 4, 4
	cfg.Lease = 30 * time.Second // a hanging claim lasts claimTimeout: 5 s
	var mu sync.Mutex
	var ran []string
	startRun(t, st, cfg, func(ctx context.Context, rec *store.JobRecord) error {
		mu.Lock()
		ran = append(ran, rec.ID)
		mu.Unlock()
		return nil
	})
	<-st.entered // a claim on "hang" is in flight, and stays so
	for _, id := range []string{"a", "b", "c"} {
		if _, err := mem.Enqueue(t.Context(), []*store.NewJob{{ID: id, Queue: "good", Kind: "k"}}); err != nil {
			t.Fatal(err)
		}
	}
	testutil.EventuallyTrue(t, testutil.Wait, "the healthy jobs to run", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(ran) == 3
	})
	if st.returned.Load() > 0 {
		t.Fatal("the healthy jobs ran only after the hanging claim gave up")
	}
}

// claimsGated is a store whose claims after the first wait for open to be
// closed, counting how many wait at once.
type claimsGated struct {
	store.Store
	open    chan struct{}
	calls   atomic.Int32
	waiting atomic.Int32
	most    atomic.Int32
}

func (s *claimsGated) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	if s.calls.Add(1) > 1 {
		n := s.waiting.Add(1)
		for {
			m := s.most.Load()
			if n <= m || s.most.CompareAndSwap(m, n) {
				break
			}
		}
		select {
		case <-s.open:
		case <-ctx.Done():
		}
		s.waiting.Add(-1)
	}
	return s.Store.Claim(ctx, req)
}

// A queue with a backlog (its last claim came back full) gets a second
// claim in flight while the first is out, so that a drain is not one round
// trip after another; never a third.
func TestBacklogGetsTwoClaimsInFlight(t *testing.T) {
	mem := memstore.New(nil)
	st := &claimsGated{Store: mem, open: make(chan struct{})}
	var jobs []*store.NewJob
	for i := range 100 {
		jobs = append(jobs, &store.NewJob{ID: "j" + string(rune('A'+i/26)) + string(rune('a'+i%26)), Queue: "q", Kind: "k"})
	}
	if _, err := mem.Enqueue(t.Context(), jobs); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Queues = []Queue{{Name: "q", Weight: 1}}
	cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = 4, 4, 12 // room for four claims
	var ran atomic.Int32
	startRun(t, st, cfg, func(ctx context.Context, rec *store.JobRecord) error {
		ran.Add(1)
		return nil
	})
	testutil.EventuallyTrue(t, testutil.Wait, "two claims in flight on the queue", func() bool {
		return st.waiting.Load() == 2
	})
	close(st.open)
	testutil.EventuallyTrue(t, testutil.Wait, "every job to run", func() bool { return ran.Load() == 100 })
	if m := st.most.Load(); m != 2 {
		t.Fatalf("at most %d claims were in flight on one queue at once, want 2", m)
	}
}

// claimsHeld is a store whose claims after the first run at once and then
// hold their result until release is closed (a slow reply), and that counts
// the waits for ready jobs that began.
type claimsHeld struct {
	store.Store
	release chan struct{}
	calls   atomic.Int32
	held    atomic.Int32
	waits   atomic.Int32 // WaitReady calls made
	inWait  atomic.Int32 // WaitReady calls not returned yet
}

func (s *claimsHeld) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	res, err := s.Store.Claim(ctx, req)
	if s.calls.Add(1) > 1 {
		s.held.Add(1)
		select {
		case <-s.release:
		case <-ctx.Done():
		}
	}
	return res, err
}

func (s *claimsHeld) WaitReady(ctx context.Context, queues []string, timeout time.Duration) ([]string, error) {
	s.waits.Add(1)
	s.inWait.Add(1)
	defer s.inWait.Add(-1)
	return s.Store.WaitReady(ctx, queues, timeout)
}

// A job that becomes ready while two claims on its queue are out, both of
// which looked before it came, is claimed once they return: the signal is
// not lost to the first of them clearing it (the idle wait, which would
// find it eventually, is an hour here).
func TestSignalDuringTwoClaimsIsNotLost(t *testing.T) {
	mem := memstore.New(nil)
	st := &claimsHeld{Store: mem, release: make(chan struct{})}
	var first []*store.NewJob
	for _, id := range []string{"a", "b", "c", "d"} {
		first = append(first, &store.NewJob{ID: id, Queue: "q", Kind: "k"})
	}
	if _, err := mem.Enqueue(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Queues = []Queue{{Name: "q", Weight: 1}}
	cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = 4, 4, 12
	cfg.IdleWait = time.Hour
	var ran sync.Map
	startRun(t, st, cfg, func(ctx context.Context, rec *store.JobRecord) error {
		ran.Store(rec.ID, true)
		return nil
	})
	// The first claim took the four jobs, whole: two more are out, both
	// having found the queue empty. The signal loop's first wait returned
	// at once with the queue's first signal; its second waits for the next.
	var waits int32
	testutil.EventuallyTrue(t, testutil.Wait, "two claims held and the signal loop waiting", func() bool {
		waits = st.waits.Load()
		return st.held.Load() == 2 && waits >= 2 && st.inWait.Load() == 1
	})
	if _, err := mem.Enqueue(t.Context(), []*store.NewJob{{ID: "late", Queue: "q", Kind: "k"}}); err != nil {
		t.Fatal(err)
	}
	// The worker took the signal once it waits again.
	testutil.EventuallyTrue(t, testutil.Wait, "the signal to be taken", func() bool { return st.waits.Load() > waits })
	close(st.release)
	testutil.EventuallyTrue(t, testutil.Wait, "the late job to run", func() bool {
		_, ok := ran.Load("late")
		return ok
	})
}

// claimsHangAfterFirst is a store whose claims on queues named hang* block
// until their context ends, from the second claim on each (its first finds
// the queue empty at start).
type claimsHangAfterFirst struct {
	store.Store
	mu       sync.Mutex
	seen     map[string]bool
	hanging  atomic.Int32 // claims blocked now
	returned atomic.Int32 // blocked claims that gave up
}

func (s *claimsHangAfterFirst) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	s.mu.Lock()
	first := !s.seen[req.Queue]
	s.seen[req.Queue] = true
	s.mu.Unlock()
	if first || len(req.Queue) < 4 || req.Queue[:4] != "hang" {
		return s.Store.Claim(ctx, req)
	}
	s.hanging.Add(1)
	<-ctx.Done()
	s.hanging.Add(-1)
	s.returned.Add(1)
	return store.ClaimResult{}, ctx.Err()
}

// Claims on queues whose shard stopped answering do not keep the room they
// took: when the only queues due were those (they took all of it), a job of
// a healthy queue still runs long before their claims give up.
func TestHangingClaimsLendTheirRoom(t *testing.T) {
	mem := memstore.New(nil)
	st := &claimsHangAfterFirst{Store: mem, seen: map[string]bool{}}
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Queues = []Queue{{Name: "good", Weight: 1}, {Name: "hang1", Weight: 1}, {Name: "hang2", Weight: 1}}
	cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = 4, 4, 4 // room 8: two claims of 4
	cfg.Lease = 60 * time.Second                            // a hanging claim lasts claimTimeout: 5 s
	ran := make(chan string, 1)
	startRun(t, st, cfg, func(ctx context.Context, rec *store.JobRecord) error {
		ran <- rec.ID
		return nil
	})
	// Every queue was claimed from once at start and found empty. Now the
	// two hanging queues get a job each: their claims share the room.
	testutil.EventuallyTrue(t, testutil.Wait, "the first claims", func() bool {
		st.mu.Lock()
		defer st.mu.Unlock()
		return len(st.seen) == 3
	})
	for _, q := range []string{"hang1", "hang2"} {
		if _, err := mem.Enqueue(t.Context(), []*store.NewJob{{ID: q, Queue: q, Kind: "k"}}); err != nil {
			t.Fatal(err)
		}
	}
	testutil.EventuallyTrue(t, testutil.Wait, "two hanging claims", func() bool { return st.hanging.Load() == 2 })
	if _, err := mem.Enqueue(t.Context(), []*store.NewJob{{ID: "g", Queue: "good", Kind: "k"}}); err != nil {
		t.Fatal(err)
	}
	if id := testutil.Receive(t, ran, testutil.Wait, "a job to run"); id != "g" {
		t.Fatalf("ran %q, want the healthy job", id)
	}
	if n := st.returned.Load(); n > 0 {
		t.Fatalf("the healthy job ran only after %d hanging claims gave up", n)
	}
}

// claimsOneMore is a store whose claims take one job more than asked (a
// store breaking the Claim contract).
type claimsOneMore struct {
	store.Store
}

func (s *claimsOneMore) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	req.Max++
	return s.Store.Claim(ctx, req)
}

// A claim that returns more jobs than asked is a full one: the worker
// claims again at once instead of waiting for a signal that the backlog
// will not send (here IdleWait is a minute: a worker that waited would
// not drain the queue in time).
func TestClaimOfMoreThanAskedIsFull(t *testing.T) {
	mem := memstore.New(nil)
	var jobs []*store.NewJob
	for i := range 200 {
		jobs = append(jobs, &store.NewJob{ID: "j" + strconv.Itoa(i), Queue: "q", Kind: "k"})
	}
	if _, err := mem.Enqueue(t.Context(), jobs); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = 4, 4, 4
	cfg.IdleWait = time.Minute
	var ran atomic.Int32
	startRun(t, &claimsOneMore{Store: mem}, cfg, func(ctx context.Context, rec *store.JobRecord) error {
		ran.Add(1)
		return nil
	})
	testutil.EventuallyTrue(t, testutil.Wait, "all 200 jobs to run", func() bool { return ran.Load() == 200 })
}
