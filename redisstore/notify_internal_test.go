package redisstore

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
)

// A signal that another waiter of the process took while a reader was
// between its look and its wait still ends that reader's wait, when the
// reader waits from the count it took before its look (waitSince): two
// event readers of one queue in one process never leave each other blocked.
func TestWaitSinceSeesASignalAnotherWaiterTook(t *testing.T) {
	n, ctx := liveNotifier(t)
	// Reader A counts the signals, then looks (finds nothing).
	snap := n.seqs(kindEvents, []string{"q"})
	// Reader B is blocked in its wait and takes the signal that comes now.
	took := make(chan []string, 1)
	go func() {
		got, _ := n.wait(ctx, kindEvents, []string{"q"}, time.Minute)
		took <- got
	}()
	awaitWaiter(t, n, kindEvents, "reader B")
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

// Several watches of one job (WatchJob of one job from several
// goroutines): a watch that was not waiting yet when the job's end came,
// and whose sibling took the message and finished, still gets the end with
// its payload, at once. Before hold, the second watch waited until its
// caller gave up (TestConformance/WatchJob/ManyWatchers failed so under CI
// load).
func TestEveryWatchOfAKeySeesItsMessage(t *testing.T) {
	n, ctx := liveNotifier(t)
	const key = "q\x00a"
	snapA, snapB := n.hold(kindDone, key), n.hold(kindDone, key)
	took := make(chan map[string]string, 1)
	go func() {
		_, p, _ := n.waitFrom(ctx, kindDone, []string{key}, []uint64{snapA}, time.Minute)
		took <- p
	}()
	awaitWaiter(t, n, kindDone, "watch A")
	n.mu.Lock()
	n.deliver(kindDone, key, "the end")
	n.mu.Unlock()
	if p := <-took; p[key] != "the end" {
		t.Fatalf("watch A got %q, want the end", p)
	}
	n.forget(kindDone, key) // watch A is done
	done := make(chan map[string]string, 1)
	go func() {
		_, p, _ := n.waitFrom(ctx, kindDone, []string{key}, []uint64{snapB}, time.Hour)
		done <- p
	}()
	select {
	case p := <-done:
		if p[key] != "the end" {
			t.Fatalf("watch B got %q, want the end", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("watch B kept waiting for the end watch A took: the end was lost")
	}
	n.forget(kindDone, key)
	n.mu.Lock()
	defer n.mu.Unlock()
	if ks := n.kinds[kindDone]; ks.known[key] || ks.last[key] != "" || ks.refs[key] != 0 {
		t.Fatal("the key's state outlived its last watch")
	}
}

// liveNotifier returns the notifier of a Store on a throwaway Redis, once
// it listens, and the test's context.
func liveNotifier(t *testing.T) (*notifier, context.Context) {
	t.Helper()
	rdb := redistest.Start(t).Client(t)
	n := New(rdb, &Config{Prefix: redistest.Prefix(t)}).watch
	ctx := t.Context()
	if err := n.waitLive(ctx); err != nil {
		t.Fatal(err)
	}
	return n, ctx
}

// awaitWaiter returns once one wait of kind k is blocked in n.
func awaitWaiter(t *testing.T, n *notifier, k notifyKind, who string) {
	t.Helper()
	testutil.EventuallyTrue(t, testutil.Wait, who+" to wait", func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		return len(n.kinds[k].waiters) == 1
	})
}

// The shard subscriptions cover the queues waited on, in the kinds they
// were waited on only (a worker does not hear the schedulers' messages),
// the partitions of a partitioned queue, and not the job ends, which stay
// on the classic channel; a message or a subscription confirmed on a
// queue's shard channel signals the queue (and a partition's queue).
func TestNotifyShardChannelsOfTheKeysWaitedOn(t *testing.T) {
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}})
	defer cc.Close()
	s := New(cc, &Config{Prefix: "p"})
	parts := partitions{"hot": 2}
	s.parts.Store(&parts)
	if !s.shardPub {
		t.Fatal("a Store on a ClusterClient does not publish on shard channels")
	}
	ss := newShardSubs(s.notify, cc)
	s.notify.mu.Lock()
	s.notify.know(&s.notify.kinds[kindReady], "mail")
	s.notify.know(&s.notify.kinds[kindReady], "hot")
	s.notify.know(&s.notify.kinds[kindSched], "mail")
	s.notify.mu.Unlock()
	want := map[string][]string{
		"{p:mail}": {"p:{p:mail}:ready", "p:{p:mail}:sched"},
	}
	for i := range 2 {
		tag := strings.TrimSuffix(s.queueKeys(store.PartitionName("hot", i)).tag, ":")
		want[tag] = []string{"p:" + tag + ":ready"}
	}
	got := ss.wanted()
	for _, chans := range got {
		slices.Sort(chans)
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("shard channels: %v, want %v", got, want)
	}

	w := newShardSubs(s.watch, cc)
	s.watch.mu.Lock()
	s.watch.know(&s.watch.kinds[kindDone], "mail\x00job")
	s.watch.know(&s.watch.kinds[kindEvents], "mail")
	s.watch.mu.Unlock()
	if got, want := w.wanted(), map[string][]string{"{p:mail}": {"p:{p:mail}:ev"}}; !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("watch shard channels: %v, want %v", got, want)
	}

	hot1 := strings.TrimSuffix(s.queueKeys("hot~1").tag, ":")
	ss.deliver("p:{p:mail}:sched", "")     // confirmed
	ss.deliver("p:"+hot1+":ready", "")     // confirmed
	ss.deliver("p:{p:mail}:ready", "mail") // a message
	s.notify.mu.Lock()
	defer s.notify.mu.Unlock()
	raised := func(k notifyKind) []string {
		var out []string
		for q := range s.notify.kinds[k].raised {
			out = append(out, q)
		}
		slices.Sort(out)
		return out
	}
	if got := raised(kindReady); !slices.Equal(got, []string{"hot", "mail"}) {
		t.Errorf("ready signals: %v, want [hot mail]", got)
	}
	if got := raised(kindSched); !slices.Equal(got, []string{"mail"}) {
		t.Errorf("sched signals: %v, want [mail]", got)
	}
}

// A job's end message comes twice on a Cluster (one subscription on each
// of two masters): the second copy, coming after the job was requeued
// and watched again, does not end the new watch as if the new run had
// died too (an outside trial: WaitJob after RequeueJobs returned the
// earlier death, 16 of 40 times on a Cluster). A new end does.
func TestASecondCopyOfAnEndDoesNotEndALaterWatch(t *testing.T) {
	n, ctx := liveNotifier(t)
	const key = "q\x00a"
	died := "[q, a, garbage, run 1]"
	doneMsg := "[q, a, done, run 2]"
	n.keyOf = func(k notifyKind, msg string) (string, string) { return key, msg }
	first := n.hold(kindDone, key)
	sendLocked(n, kindDone, died)
	if got, p, _ := n.waitFrom(ctx, kindDone, []string{key}, []uint64{first}, time.Minute); len(got) != 1 || p[key] != died {
		t.Fatalf("the first watch got %v %q, want the death", got, p)
	}
	n.forget(kindDone, key)
	// Requeued, and watched again; then the death's second copy comes.
	second := n.hold(kindDone, key)
	sendLocked(n, kindDone, died)
	if got, p, _ := n.waitFrom(ctx, kindDone, []string{key}, []uint64{second}, time.Millisecond); len(got) != 0 {
		t.Fatalf("the second watch got %v %q from the first run's death", got, p)
	}
	sendLocked(n, kindDone, doneMsg)
	if got, p, _ := n.waitFrom(ctx, kindDone, []string{key}, []uint64{second}, time.Minute); len(got) != 1 || p[key] != doneMsg {
		t.Fatalf("the second watch got %v %q, want the new end", got, p)
	}
	n.forget(kindDone, key)
}

// sendLocked hands n message msg of kind k, as its subscription does.
func sendLocked(n *notifier, k notifyKind, msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.message(k, msg)
}
