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

// claimsPaced is a store whose claims say StartWithin as a rate limit
// does: within, and for the first late claims a bound already past when
// the claim returns (a reply that took longer than the guard). It records
// what each claim asked for.
type claimsPaced struct {
	store.Store
	within time.Duration
	late   atomic.Int32 // claims still to make late
	mu     sync.Mutex
	asked  []int // ClaimOpts.Max of each claim
	lateID map[string]bool
	lateTk map[uint64]bool // the tokens of the late claims' jobs
}

func (s *claimsPaced) Claim(ctx context.Context, req store.ClaimOpts) (store.ClaimResult, error) {
	res, err := s.Store.Claim(ctx, req)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked = append(s.asked, req.Max)
	if len(res.Jobs) == 0 {
		return res, err
	}
	res.StartWithin = s.within
	if s.late.Add(-1) >= 0 {
		// The bound is one µs: make sure it has passed.
		for t0 := time.Now(); !time.Now().After(t0.Add(time.Microsecond)); {
		}
		res.StartWithin = time.Microsecond
		for _, j := range res.Jobs {
			s.lateID[j.ID] = true
			s.lateTk[j.Token] = true
		}
	}
	return res, err
}

func runPaced(t *testing.T, st *claimsPaced, mem *memstore.Store, n int, cfg Config, h func(*store.JobRecord)) {
	t.Helper()
	var jobs []*store.NewJob
	for i := range n {
		jobs = append(jobs, &store.NewJob{ID: "j" + strconv.Itoa(i), Queue: "q", Kind: "k"})
	}
	if _, err := mem.Enqueue(t.Context(), jobs); err != nil {
		t.Fatal(err)
	}
	startRun(t, st, cfg, func(ctx context.Context, rec *store.JobRecord) error {
		h(rec)
		return nil
	})
}

// A job a rate limit counted that cannot start within the claim's
// StartWithin is handed back without spending an attempt, and runs later
// from another claim: its handler never starts late.
func TestLateRateLimitedJobsAreHandedBack(t *testing.T) {
	mem := memstore.New(nil)
	st := &claimsPaced{Store: mem, within: time.Minute, lateID: map[string]bool{}, lateTk: map[uint64]bool{}}
	st.late.Store(1)
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = 4, 4, 0
	var mu sync.Mutex
	runs := map[string][]int{}
	var lateRuns []string
	runPaced(t, st, mem, 4, cfg, func(rec *store.JobRecord) {
		st.mu.Lock()
		late := st.lateTk[rec.Token]
		st.mu.Unlock()
		mu.Lock()
		runs[rec.ID] = append(runs[rec.ID], rec.Attempt)
		if late {
			lateRuns = append(lateRuns, rec.ID)
		}
		mu.Unlock()
	})
	testutil.EventuallyTrue(t, testutil.Wait, "every job to run", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(runs) == 4
	})
	mu.Lock()
	defer mu.Unlock()
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.lateID) == 0 {
		t.Fatal("no claim was late")
	}
	if len(lateRuns) > 0 {
		t.Errorf("jobs %v started from a claim whose StartWithin had passed", lateRuns)
	}
	for id, att := range runs {
		if len(att) != 1 || att[0] != 1 {
			t.Errorf("job %s (late at first: %v) ran with attempts %v, want once, as attempt 1 (a hand-back spends none)", id, st.lateID[id], att)
		}
	}
}

// A queue whose claims a rate limit counts is claimed for idle executors
// only: a job in the Prefetch buffer would wait past StartWithin.
func TestRateLimitedQueueClaimsForIdleExecutorsOnly(t *testing.T) {
	mem := memstore.New(nil)
	st := &claimsPaced{Store: mem, within: time.Minute, lateID: map[string]bool{}, lateTk: map[uint64]bool{}}
	cfg := testConfig(slog.New(slog.DiscardHandler))
	cfg.Concurrency, cfg.ClaimBatch, cfg.Prefetch = 2, 10, 8
	var ran atomic.Int32
	runPaced(t, st, mem, 60, cfg, func(*store.JobRecord) { ran.Add(1) })
	testutil.EventuallyTrue(t, testutil.Wait, "every job to run", func() bool { return ran.Load() == 60 })
	st.mu.Lock()
	defer st.mu.Unlock()
	for i, m := range st.asked[1:] { // the first claim cannot know the queue is limited
		if m > cfg.Concurrency {
			t.Fatalf("claim %d on a rate-limited queue asked for %d jobs with %d executors (claims asked %v)", i+2, m, cfg.Concurrency, st.asked)
		}
	}
}
