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
	"github.com/hopperq/hopper/memstore"
	"github.com/hopperq/hopper/store"
)

// maintainFails is a Store whose Maintain always fails, as when Redis
// refuses writes, counting the calls.
type maintainFails struct {
	hopper.Store
	maintains, waits atomic.Int64
}

func (s *maintainFails) Maintain(context.Context, string, store.MaintainOpts) (store.MaintainResult, error) {
	s.maintains.Add(1)
	return store.MaintainResult{}, errors.New("maintain refused")
}

func (s *maintainFails) WaitSchedule(ctx context.Context, qs []string, d time.Duration) ([]string, error) {
	s.waits.Add(1)
	return s.Store.WaitSchedule(ctx, qs, d)
}

// A scheduler whose Maintain keeps failing on a queue with a due job backs
// off instead of spinning on the store's "something is due" wake-ups.
func TestSchedulerBacksOffWhileMaintainFails(t *testing.T) {
	ctx := t.Context()
	var offset atomic.Int64
	mem := memstore.New(&memstore.Config{Clock: func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }})
	s := &maintainFails{Store: mem}
	if _, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), Echo{}, &hopper.EnqueueOpts{Delay: time.Minute}); err != nil {
		t.Fatal(err)
	}
	offset.Store(int64(2 * time.Minute)) // the pending job is due now
	rctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if err := hopper.NewScheduler(s, &hopper.SchedulerConfig{Queues: []string{"default"}, Logger: testutil.Logger()}).Run(rctx); err != nil {
		t.Fatal(err)
	}
	// The backoff doubles from 20 ms: about 6 passes in a second. Before
	// the fix it was hundreds of thousands of calls.
	if m, w := s.maintains.Load(), s.waits.Load(); m > 50 || w > 50 {
		t.Errorf("in one second of failing Maintain: %d Maintain and %d WaitSchedule calls, want a backoff (tens at most)", m, w)
	}
}

// waitFails is a Store whose WaitSchedule fails its first fails calls
// (Redis restarting), counting the calls.
type waitFails struct {
	hopper.Store
	fails, waits atomic.Int64
}

func (s *waitFails) WaitSchedule(ctx context.Context, qs []string, d time.Duration) ([]string, error) {
	if s.waits.Add(1) <= s.fails.Load() {
		return nil, errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	}
	return s.Store.WaitSchedule(ctx, qs, d)
}

// A scheduler whose waits fail six times in a row logs the first failure
// and, once they work, one line saying so: it logged every retry (a
// line every 20 to 40 ms from each worker's scheduler while Redis
// restarted, in the fault suite's logs).
func TestSchedulerLogsAWaitOutageOnce(t *testing.T) {
	s := &waitFails{Store: memstore.New(nil)}
	s.fails.Store(6)
	var logs syncBuffer
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- hopper.NewScheduler(s, &hopper.SchedulerConfig{Queues: []string{"default"},
			Logger: slog.New(slog.NewTextHandler(&logs, nil))}).Run(ctx)
	}()
	testutil.EventuallyTrue(t, 30*time.Second, "the line saying waits work again", func() bool {
		return strings.Contains(logs.String(), "scheduler: waiting works again")
	})
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if n := strings.Count(out, "scheduler: wait failed"); n != 1 {
		t.Fatalf("%d lines of failed waits for one outage of 6 failures, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, "failures=6") {
		t.Fatalf("the recovery line does not count the 6 failures:\n%s", out)
	}
}
