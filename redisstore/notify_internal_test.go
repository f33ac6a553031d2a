package redisstore

import (
	"testing"
	"time"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
)

// A signal that another waiter of the process took while a reader was
// between its look and its wait still ends that reader's wait, when the
// reader waits from the count it took before its look (waitSince): two
// event readers of one queue in one process never leave each other blocked.
func TestWaitSinceSeesASignalAnotherWaiterTook(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	s := New(rdb, &Options{Prefix: redistest.Prefix(t)})
	n := s.watch
	ctx := t.Context()
	// Reader A counts the signals, then looks (finds nothing).
	if err := n.waitLive(ctx); err != nil {
		t.Fatal(err)
	}
	snap := n.seqs(kindEvents, []string{"q"})
	// Reader B is blocked in its wait and takes the signal that comes now.
	took := make(chan []string, 1)
	go func() {
		got, _ := n.wait(ctx, kindEvents, []string{"q"}, time.Minute)
		took <- got
	}()
	testutil.EventuallyTrue(t, testutil.Wait, "reader B to wait", func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		return len(n.kinds[kindEvents].waiters) == 1
	})
	n.mu.Lock()
	n.deliver(kindEvents, "q", "")
	n.mu.Unlock()
	if got := <-took; len(got) != 1 || got[0] != "q" {
		t.Fatalf("reader B's wait returned %v, want [q]", got)
	}
	// Reader A now waits: the signal came after its count, so it returns
	// at once instead of after its timeout.
	done := make(chan []string, 1)
	go func() {
		got, _ := n.waitSince(ctx, kindEvents, []string{"q"}, snap, time.Hour)
		done <- got
	}()
	select {
	case got := <-done:
		if len(got) != 1 || got[0] != "q" {
			t.Fatalf("reader A's wait returned %v, want [q]", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("reader A kept waiting for a signal that reader B took: the wake-up was lost")
	}
}
