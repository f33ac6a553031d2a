package hopper_test

import (
	"context"
	"errors"
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
