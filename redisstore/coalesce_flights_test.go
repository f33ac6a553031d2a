package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/store"
)

// stallFirst is a go-redis hook that holds the first script call (or
// pipeline of them) until release is closed, and counts the script calls
// in flight at once.
type stallFirst struct {
	entered  chan struct{} // closed when the first call is held
	release  chan struct{}
	once     atomic.Bool
	inFlight atomic.Int32
	most     atomic.Int32
}

func (h *stallFirst) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *stallFirst) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return h.around(ctx, []redis.Cmder{cmd}, func() error { return next(ctx, cmd) })
	}
}

func (h *stallFirst) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		return h.around(ctx, cmds, func() error { return next(ctx, cmds) })
	}
}

func (h *stallFirst) around(_ context.Context, cmds []redis.Cmder, call func() error) error {
	script := false
	for _, c := range cmds {
		if n := strings.ToLower(c.Name()); n == "fcall" || n == "evalsha" || n == "eval" {
			script = true
		}
	}
	if !script {
		return call()
	}
	n := h.inFlight.Add(1)
	defer h.inFlight.Add(-1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	if h.once.CompareAndSwap(false, true) {
		close(h.entered)
		<-h.release
	}
	return call()
}

// TestCoalescedCallsPassAStalledRoundTrip: while one enqueue's round trip
// is stalled, calls that queue up behind it go out in a second round trip
// and return, rather than waiting for the first; no more than two are in
// flight, and every job is stored once.
func TestCoalescedCallsPassAStalledRoundTrip(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	rdb := srv.Client(t)
	s := storeOn(t, rdb, nil)
	mustEnqueue(t, s, job("warm", "w")) // the start-up check and the script load
	h := &stallFirst{entered: make(chan struct{}), release: make(chan struct{})}
	rdb.AddHook(h)
	ctx := t.Context()

	first := make(chan error, 1)
	go func() {
		_, err := s.Enqueue(ctx, []*store.NewJob{job("q", "first")})
		first <- err
	}()
	<-h.entered
	const behind = 6
	var wg sync.WaitGroup
	errs := make(chan error, behind)
	for i := range behind {
		wg.Go(func() {
			res, err := s.Enqueue(ctx, []*store.NewJob{job("q", fmt.Sprint("behind-", i))})
			if err == nil && (len(res) != 1 || res[0].Duplicate) {
				err = fmt.Errorf("result %+v", res)
			}
			errs <- err
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		close(h.release)
		t.Fatal("calls queued behind a stalled round trip did not return while it stalled")
	}
	select {
	case err := <-first:
		t.Fatalf("the stalled call returned (%v) before it was released", err)
	default:
	}
	close(h.release)
	if err := <-first; err != nil {
		t.Fatalf("the stalled call: %v", err)
	}
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a call behind the stalled one: %v", err)
		}
	}
	if m := h.most.Load(); m != 2 {
		t.Errorf("at most %d enqueue round trips were in flight at once, want 2", m)
	}
	got, err := s.Claim(ctx, store.ClaimOpts{Queue: "q", Max: 100, Lease: time.Minute})
	if err != nil || len(got.Jobs) != behind+1 {
		t.Fatalf("Claim from q: %d jobs, %v; want %d", len(got.Jobs), err, behind+1)
	}
}
