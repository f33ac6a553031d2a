package redisstore

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// On a Redis Cluster the scripts of this version publish on shard channels
// (notify_sharded.go), to which a notifier subscribes besides; what reaches
// the classic channels (older processes, servers without SPUBLISH) comes
// as follows. On a Redis Cluster a PUBLISH reaches every node, and a subscription
// lives on one node: if that node dies, its subscribers hear nothing until
// they subscribe elsewhere. So on a cluster a notifier holds
// clusterSubscriptions subscriptions, each on a different master, and
// takes every message from whichever delivers it: when one master dies,
// the other subscription goes on delivering while the lost one moves to
// another master (after two failed receives, a fraction of a second). A
// message comes twice, which costs a waiter at most one claim that finds
// nothing; a job end's second copy is dropped (notifier.copy), since it
// would end a later watch of the same job.

// clusterSubscriptions is how many masters a notifier subscribes on.
const clusterSubscriptions = 2

// runCluster holds the cluster subscriptions, and the shard subscriptions
// ss (nil: none), until the notifier has had no waiter for
// idleUnsubscribe.
func (n *notifier) runCluster(ctx context.Context, cc *redis.ClusterClient, ss *shardSubs) {
	subCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	nodes := &nodePicker{used: map[string]bool{}}
	for range clusterSubscriptions {
		wg.Go(func() { n.clusterSubscription(subCtx, cc, nodes) })
	}
	if ss != nil {
		// The shard channels the scripts publish on (notify_sharded.go).
		wg.Go(func() { ss.run(subCtx) })
	}
	defer func() {
		cancel()
		wg.Wait()
		n.mu.Lock()
		if n.shard == ss { // not yet the next subscription's
			n.shard = nil
		}
		n.mu.Unlock()
	}()
	idle := time.NewTicker(idleUnsubscribe / 4)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-idle.C:
			if n.idleStop() {
				return
			}
		}
	}
}

// nodePicker hands out masters so that the subscriptions of one notifier
// are on different ones.
type nodePicker struct {
	mu   sync.Mutex
	used map[string]bool
}

// pick returns a master not used by another subscription (any master when
// there are not enough), and marks it used.
func (p *nodePicker) pick(ctx context.Context, cc *redis.ClusterClient) (*redis.Client, string, error) {
	var mu sync.Mutex
	masters := map[string]*redis.Client{}
	err := cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		mu.Lock()
		masters[c.Options().Addr] = c
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if len(masters) == 0 {
		return nil, "", errors.New("redis cluster has no master")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	addrs := make([]string, 0, len(masters))
	for a := range masters {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	pick := addrs[0]
	for _, a := range addrs {
		if !p.used[a] {
			pick = a
			break
		}
	}
	p.used[pick] = true
	return masters[pick], pick, nil
}

func (p *nodePicker) release(addr string) {
	p.mu.Lock()
	delete(p.used, addr)
	p.mu.Unlock()
}

// clusterSubscription keeps one subscription alive until ctx is done,
// moving it to another master when its node fails.
func (n *notifier) clusterSubscription(ctx context.Context, cc *redis.ClusterClient, nodes *nodePicker) {
	for try := 0; ctx.Err() == nil; try++ {
		node, addr, err := nodes.pick(ctx, cc)
		if err == nil {
			ps := node.Subscribe(ctx, n.channels...)
			if n.receive(ctx, ps) {
				try = 0 // it worked a while: move at once
			}
			_ = ps.Close()
			nodes.release(addr)
			err = errors.New("subscription on " + addr + " failed")
		}
		if ctx.Err() != nil {
			return
		}
		n.s.observe(err)
		cc.ReloadState(ctx)
		n.failed(err, try)
		d := min(time.Second, time.Duration(1<<min(try, 7))*10*time.Millisecond)
		select {
		case <-ctx.Done():
			return
		case <-time.After(d):
		}
	}
}

// receive hands the subscription's messages to the waiters until it fails
// twice in a row or ctx is done; it reports whether it received anything.
func (n *notifier) receive(ctx context.Context, ps *redis.PubSub) bool {
	got, fails, live := false, 0, false
	defer func() {
		if live {
			n.mu.Lock()
			n.liveSubs--
			n.mu.Unlock()
		}
	}()
	var p pinger
	for ctx.Err() == nil {
		m, err := p.receive(ctx, ps)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, errNoPong) {
				// A frozen server or a link cut without a reset:
				// subscribe again, where the cluster's layout says now.
				return got
			}
			if fails++; fails >= 2 {
				return got
			}
			if live { // the connection broke: this subscription is down
				live = false
				n.mu.Lock()
				n.liveSubs--
				n.mu.Unlock()
			}
			continue
		}
		got, fails = true, 0
		if sub, ok := m.(*redis.Subscription); ok {
			if sub.Kind == "subscribe" && sub.Count == len(n.channels) && !live {
				live = true
				n.subscribedCluster()
			}
			continue
		}
		n.handle(m)
	}
	return got
}

// subscribedCluster records that one more cluster subscription is live.
// When none was, messages may have been missed meanwhile: every key is
// signalled once.
func (n *notifier) subscribedCluster() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.err = nil
	if n.liveSubs == 0 {
		n.deliverAll()
	}
	n.liveSubs++
	if n.live != nil {
		select {
		case <-n.live:
		default:
			close(n.live)
		}
	}
}

// failed records a subscription failure: while no subscription works,
// waits return it. A failure of one of two subscriptions is not reported
// while the other works.
func (n *notifier) failed(err error, try int) {
	if try < 2 {
		return // moving to another master; the other subscription carries on
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.liveSubs > 0 {
		return // another subscription delivers
	}
	n.err = wrap("subscribe", err)
	n.deliverAll()
}
