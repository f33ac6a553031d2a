package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func configSwapCases() []adminCase {
	return []adminCase{
		{name: "SwapsOnlyWhenUnchanged", fn: testSwapOnlyWhenUnchanged},
		{name: "NeverConfiguredQueue", fn: testSwapNeverConfigured},
		{name: "TwoOperatorsBothWin", fn: testSwapTwoOperators},
	}
}

// swapper returns s's ConfigSwapper, or skips the test.
func swapper(t *testing.T, s store.Store) store.ConfigSwapper {
	t.Helper()
	cs, ok := store.As[store.ConfigSwapper](s)
	if !ok {
		t.Skipf("the store (%T) does not implement store.ConfigSwapper", s)
	}
	return cs
}

// queueConfig returns q's settings as GetQueueStats reports them.
func queueConfig(t *testing.T, a store.Admin, q string) store.QueueConfig {
	t.Helper()
	st, err := a.GetQueueStats(t.Context(), q)
	if err != nil {
		t.Fatalf("GetQueueStats(%q): %v", q, err)
	}
	return st.Config
}

// testSwapOnlyWhenUnchanged: a swap against the settings as read replaces
// them; one against settings changed since changes nothing and says so.
func testSwapOnlyWhenUnchanged(t *testing.T, s store.Store, a store.Admin) {
	cs := swapper(t, s)
	q := newQueue(t)
	first := store.QueueConfig{MaxRunning: 3, RateLimit: 5, RatePeriod: 2 * time.Second, Retention: time.Hour,
		EventsMaxLen: -1, GroupRateLimit: 7, GroupRatePeriod: 1500 * time.Millisecond}
	if err := a.SetQueueConfig(t.Context(), q, first); err != nil {
		t.Fatal(err)
	}
	read := queueConfig(t, a, q)
	second := read
	second.GroupMaxRunning, second.Paused = 2, true
	if ok, err := cs.CompareAndSwapQueueConfig(t.Context(), q, read, second); err != nil || !ok {
		t.Fatalf("CompareAndSwapQueueConfig against the settings as read: %v, %v; want true, nil", ok, err)
	}
	if got := queueConfig(t, a, q); got != second {
		t.Fatalf("settings after a swap: %+v, want %+v", got, second)
	}
	stale := second
	stale.MaxRunning = 9
	if ok, err := cs.CompareAndSwapQueueConfig(t.Context(), q, read, stale); err != nil || ok {
		t.Fatalf("CompareAndSwapQueueConfig against settings changed since: %v, %v; want false, nil", ok, err)
	}
	if got := queueConfig(t, a, q); got != second {
		t.Fatalf("settings after a refused swap: %+v, want them unchanged, %+v", got, second)
	}
}

// testSwapNeverConfigured: a queue never seen reports zero settings, and
// a swap against them succeeds.
func testSwapNeverConfigured(t *testing.T, s store.Store, a store.Admin) {
	cs := swapper(t, s)
	q := newQueue(t)
	read := queueConfig(t, a, q)
	want := store.QueueConfig{Paused: true, RatePeriod: time.Second}
	if ok, err := cs.CompareAndSwapQueueConfig(t.Context(), q, read, want); err != nil || !ok {
		t.Fatalf("CompareAndSwapQueueConfig on a new queue: %v, %v; want true, nil", ok, err)
	}
	if got := queueConfig(t, a, q); got != want {
		t.Fatalf("settings: %+v, want %+v", got, want)
	}
}

// testSwapTwoOperators: two operators each change their own setting of
// one queue many times at once, each by reading, changing its field and
// swapping, again on a refusal; neither loses a change to the other
// (a read and a SetQueueConfig would: one writes back the other's old
// value).
func testSwapTwoOperators(t *testing.T, s store.Store, a store.Admin) {
	cs := swapper(t, s)
	q := newQueue(t)
	const rounds = 100
	bump := func(field func(*store.QueueConfig) *int) error {
		for range rounds {
			for {
				old := queueConfig(t, a, q)
				cfg := old
				*field(&cfg)++
				ok, err := cs.CompareAndSwapQueueConfig(t.Context(), q, old, cfg)
				if err != nil {
					return err
				}
				if ok {
					break
				}
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Go(func() { errs[0] = bump(func(c *store.QueueConfig) *int { return &c.GroupMaxRunning }) })
	wg.Go(func() { errs[1] = bump(func(c *store.QueueConfig) *int { return &c.EventsMaxLen }) })
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	got := queueConfig(t, a, q)
	if got.GroupMaxRunning != rounds || got.EventsMaxLen != rounds {
		t.Fatalf("after %d changes by each operator: GroupMaxRunning %d, EventsMaxLen %d; want both %d (a change was lost)",
			rounds, got.GroupMaxRunning, got.EventsMaxLen, rounds)
	}
}
