package redisstore

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Wake-ups. A script that makes jobs claimable in a queue PUBLISHes the
// queue's name on the channel "<prefix>:ready"; one that moves a queue's
// next due time earlier, on "<prefix>:sched" (lib_base.lua). Each Store
// holds one subscription to both, on one connection, however many queues
// and waiters it has (a notifier); WaitReady and WaitSchedule wait on it.
//
// Pub/sub reaches every subscriber, so a process frozen in the middle of a
// wait (a stop signal, a long pause) takes no wake-up away from the others:
// every live idle worker hears of every ready job. On a Redis Cluster a
// PUBLISH reaches the whole cluster, whichever node the subscription is on.
//
// A message that comes while nobody in the process waits on its queue is
// kept (once per queue) for the next wait that names the queue, so a job
// made ready between a worker's empty claim and its next wait is not
// missed. Messages published while the subscription is down (a connection
// lost, a node failing over) cannot be known: when it is back, every queue
// waited on before is signalled once, and the waiters claim everywhere.
//
// The subscription starts with the first wait and ends after idleUnsubscribe
// with no waiter, so a Store that is only used to enqueue holds no extra
// connection.

// notifyKind is what a message says: ready or schedule.
type notifyKind int

const (
	kindReady notifyKind = iota
	kindSched
)

// idleUnsubscribe is how long the subscription stays with no waiter.
const idleUnsubscribe = time.Minute

// notifyHealthCheck is how often a silent subscription is pinged; a dead
// connection is noticed within about twice that, and reconnected.
const notifyHealthCheck = 5 * time.Second

// notifier carries a Store's wake-up messages to its waiters.
type notifier struct {
	s        *Store
	channels [2]string // by notifyKind

	mu       sync.Mutex
	running  bool
	stop     context.CancelFunc
	lastUsed time.Time
	err      error // the subscription's last failure, nil once subscribed
	kinds    [2]kindState
}

// kindState is the waiting of one kind.
type kindState struct {
	known   map[string]bool // queues waited on since the subscription started
	raised  map[string]bool // queues signalled that no waiter took yet
	waiters map[*nwaiter]struct{}
}

// nwaiter is one blocked wait.
type nwaiter struct {
	queues map[string]bool
	got    []string
	wake   chan struct{} // one slot
}

func newNotifier(s *Store) *notifier {
	n := &notifier{s: s, channels: [2]string{s.opts.Prefix + ":ready", s.opts.Prefix + ":sched"}}
	for i := range n.kinds {
		n.kinds[i] = kindState{known: map[string]bool{}, raised: map[string]bool{}, waiters: map[*nwaiter]struct{}{}}
	}
	return n
}

// wait returns the queues of kind k signalled among queues, blocking until
// one is, timeout passes or ctx is done. It returns nil on timeout, and on
// ctx's end, when it gives back what it took. While the subscription
// cannot be made (the server refuses it), it returns that error.
func (n *notifier) wait(ctx context.Context, k notifyKind, queues []string, timeout time.Duration) ([]string, error) {
	n.mu.Lock()
	n.ensureRunning()
	if err := n.err; err != nil {
		n.mu.Unlock()
		return nil, err
	}
	ks := &n.kinds[k]
	var got []string
	for _, q := range queues {
		if !ks.known[q] {
			// A queue waited on for the first time may have been
			// signalled before anyone listened for it: one look.
			ks.known[q] = true
			got = append(got, q)
			continue
		}
		if ks.raised[q] {
			delete(ks.raised, q)
			got = append(got, q)
		}
	}
	if len(got) > 0 || timeout <= 0 || ctx.Err() != nil {
		n.mu.Unlock()
		return n.keep(ctx, k, got), nil
	}
	w := &nwaiter{queues: make(map[string]bool, len(queues)), wake: make(chan struct{}, 1)}
	for _, q := range queues {
		w.queues[q] = true
	}
	ks.waiters[w] = struct{}{}
	n.mu.Unlock()

	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	case <-w.wake:
	}
	n.mu.Lock()
	delete(ks.waiters, w)
	got = w.got
	n.lastUsed = time.Now()
	err := n.err
	n.mu.Unlock()
	if err != nil {
		n.keep(context.Background(), k, nil)
		return nil, err
	}
	return n.keep(ctx, k, got), nil
}

// keep returns got, or raises its queues again and returns nil when ctx is
// done (the caller will not act on them).
func (n *notifier) keep(ctx context.Context, k notifyKind, got []string) []string {
	if ctx.Err() == nil || len(got) == 0 {
		return got
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, q := range got {
		n.deliver(k, q)
	}
	return nil
}

// deliver hands a signal of kind k for queue q to the waiters on q, or
// keeps it for the next one. n.mu must be held.
func (n *notifier) deliver(k notifyKind, q string) {
	ks := &n.kinds[k]
	if !ks.known[q] {
		return // nobody here waits on q
	}
	delivered := false
	for w := range ks.waiters {
		if !w.queues[q] {
			continue
		}
		if !slices.Contains(w.got, q) {
			w.got = append(w.got, q)
		}
		select {
		case w.wake <- struct{}{}:
		default:
		}
		delivered = true
	}
	if !delivered {
		ks.raised[q] = true
	}
}

// deliverAll signals every known queue of both kinds: after a
// (re)subscription, when messages may have been missed. n.mu must be held.
func (n *notifier) deliverAll() {
	for k := range n.kinds {
		for q := range n.kinds[k].known {
			n.deliver(notifyKind(k), q)
		}
	}
}

// ensureRunning starts the subscription if it is not running. n.mu must be
// held.
func (n *notifier) ensureRunning() {
	n.lastUsed = time.Now()
	if n.running {
		return
	}
	n.running = true
	ctx, cancel := context.WithCancel(context.Background())
	n.stop = cancel
	go n.run(ctx)
}

// run holds the subscription until it has had no waiter for
// idleUnsubscribe, or the client is closed.
func (n *notifier) run(ctx context.Context) {
	ps := n.subscribe(ctx)
	if ps == nil {
		return
	}
	defer ps.Close()
	ch := ps.ChannelWithSubscriptions(redis.WithChannelHealthCheckInterval(notifyHealthCheck))
	idle := time.NewTicker(idleUnsubscribe / 4)
	defer idle.Stop()
	for {
		select {
		case m, ok := <-ch:
			if !ok { // the client was closed
				n.stopped()
				return
			}
			n.handle(m)
		case <-idle.C:
			if n.idleStop() {
				return
			}
		}
	}
}

// subscribe makes the subscription and waits for the server's first
// confirmation, retrying with backoff while the server refuses (the error
// is what waits return meanwhile). It returns nil when ctx ends first.
func (n *notifier) subscribe(ctx context.Context) *redis.PubSub {
	for try := 0; ; try++ {
		ps := n.s.rdb.Subscribe(ctx, n.channels[:]...)
		m, err := ps.ReceiveTimeout(ctx, 10*time.Second)
		if err == nil {
			n.mu.Lock()
			n.err = nil
			n.mu.Unlock()
			n.handle(m)
			return ps
		}
		_ = ps.Close()
		if ctx.Err() != nil {
			return nil
		}
		n.s.observe(err)
		n.mu.Lock()
		n.err = wrap("subscribe to wake-ups", err)
		n.deliverAll() // wake the waiters: they return the error
		n.mu.Unlock()
		d := min(5*time.Second, time.Duration(1<<min(try, 9))*10*time.Millisecond)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(d):
		}
	}
}

// handle acts on one item of the subscription.
func (n *notifier) handle(m any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch m := m.(type) {
	case *redis.Message:
		for k, c := range n.channels {
			if m.Channel == c {
				n.deliver(notifyKind(k), m.Payload)
			}
		}
	case *redis.Subscription:
		// Subscribed, or subscribed again after a lost connection: what
		// was published meanwhile is unknown.
		if m.Kind == "subscribe" {
			n.deliverAll()
		}
	}
}

// idleStop ends the subscription when nobody waited for idleUnsubscribe;
// it reports whether it did.
func (n *notifier) idleStop() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	waiting := 0
	for k := range n.kinds {
		waiting += len(n.kinds[k].waiters)
	}
	if waiting > 0 || time.Since(n.lastUsed) < idleUnsubscribe {
		return false
	}
	n.running = false
	n.stop()
	// A later wait starts afresh: every queue gets one look again.
	for k := range n.kinds {
		n.kinds[k].known = map[string]bool{}
		n.kinds[k].raised = map[string]bool{}
	}
	return true
}

// stopped records that the subscription ended by itself (a closed client);
// a later wait starts a new one.
func (n *notifier) stopped() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.running = false
	n.deliverAll()
}
