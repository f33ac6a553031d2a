package redisstore

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// Sharded wake-ups. A Redis Cluster broadcasts every PUBLISH over its
// cluster bus to every node, which costs each wake-up a hop between nodes
// and every node the work of it (an enqueue→start p99 of tens of
// milliseconds on three busy masters). So on a Cluster the scripts SPUBLISH
// (Redis 7.0) on the queue's shard channel "<prefix>:{<prefix>:<queue>}:<kind>"
// instead (lua/base.lua): the channel carries the queue's hash tag, so it
// hashes to the slot of the script's keys, and the message reaches the
// clients subscribed on that slot's master only, from the node that ran
// the script.
//
// How a script knows: the loader builds each script that wakes anyone in
// a second form, with the constant SHARD_PUB set (shardForm), and a Store
// on a ClusterClient calls that form (forServer). Neither the KEYS nor the
// ARGV of any call change, nor a byte stored in Redis. A server that
// refuses SPUBLISH (not a Redis 7 command there, or an ACL without it)
// makes the script PUBLISH on the classic channel as before.
//
// The subscriber side: besides its classic subscriptions
// (notify_cluster.go), which still carry what older processes and servers
// without SPUBLISH publish, a notifier on a Cluster SSUBSCRIBEs to the
// shard channels of the keys it knows (the queues waited on), on one
// connection per master holding any of them, each SSUBSCRIBE for one
// queue's channels (one slot). A shard subscription confirmed (again)
// signals its queue once, as a subscription made again does: what was
// published before it is unknown. A master that fails, a connection lost,
// an error reply, a slot that moves (the server then ends its shard
// subscriptions with a SUNSUBSCRIBE of its own) drop the subscriptions
// concerned, and they are made again on the slot's master, as the client
// learns it, after a short backoff.

// shardTwin is a script's form for a Cluster (shardForm), built on first
// use.
type shardTwin struct {
	from shardFrom
	once sync.Once
	sc   *script
}

// shardFrom is what a script was built from, to build its other form.
type shardFrom struct {
	b              *luaBuild
	served, looked shape
}

// shardForm returns sc's form that publishes its wake-ups on shard
// channels: sc itself when none of its files wakes anyone.
func (sc *script) shardForm() *script {
	sc.shard.once.Do(func() {
		f := sc.shard.from
		if f.b == nil || !wakes(f.b) {
			sc.shard.sc = sc
			return
		}
		tw := buildForm(sc.name, f.b, f.served, f.looked, true)
		tw.idx = sc.idx // the same KEYS
		tw.shard.once.Do(func() { tw.shard.sc = tw })
		sc.shard.sc = tw
	})
	return sc.shard.sc
}

// wakes reports whether a file of b calls a wake function of base.lua.
func wakes(b *luaBuild) bool {
	for _, f := range b.files {
		if f.name != "base" && (f.idents["wake_ready"] || f.idents["wake_sched"] || f.idents["wake_events"] || f.idents["SHARD_PUB"]) {
			return true
		}
	}
	return false
}

// forServer returns the form of sc that s calls: the shard channel one on
// a Cluster.
func (s *Store) forServer(sc *script) *script {
	if !s.shardPub {
		return sc
	}
	return sc.shardForm()
}

// allForServer is forServer for each of all.
func (s *Store) allForServer(all []*script) []*script {
	if !s.shardPub {
		return all
	}
	out := make([]*script, len(all))
	for i, sc := range all {
		out[i] = sc.shardForm()
	}
	return out
}

// shardChannel returns the shard channel of kind suffix of the queue whose
// keys carry tag ("{<prefix>:<queue>}"): "<prefix>:{<prefix>:<queue>}:<suffix>".
// Its slot is the tag's, the keys' slot; it starts with "<prefix>:", so
// that the documented ACL channel pattern (&<prefix>:*, doc.go) covers it.
func (ss *shardSubs) shardChannel(tag, suffix string) string {
	return ss.n.s.opts.Prefix + ":" + tag + ":" + suffix
}

// shardSubs holds a notifier's shard channel subscriptions. Its state is
// its run loop's; the node readers tell it what they lose through lost.
type shardSubs struct {
	n      *notifier
	cc     *redis.ClusterClient
	kicked chan struct{} // cap 1: keys to look at (poke)
	lost   chan shardLoss

	// confirmed holds the channels the server confirmed and no loss
	// took since; up is closed and replaced at each confirmation
	// (awaitConfirmed). Both under mu.
	mu        sync.Mutex
	confirmed map[string]bool
	up        chan struct{}
	refused   bool // the server refused SSUBSCRIBE, and confirmed none since

	nodes map[string]*nodeSub // by address
	at    map[string]string   // shard channel -> address subscribed on
	fails int                 // losses in a row, for the backoff
	next  time.Time           // no subscribing before (backoff)
}

// nodeSub is the connection of the shard subscriptions on one master.
type nodeSub struct {
	addr string
	ps   *redis.PubSub
	stop context.CancelFunc
}

// shardLoss says what a node reader lost: the channels the server
// unsubscribed (a slot that moved), or with none the whole node
// (its connection broke, or an error reply), err saying why.
type shardLoss struct {
	ns       *nodeSub
	channels []string
	err      error
}

func newShardSubs(n *notifier, cc *redis.ClusterClient) *shardSubs {
	return &shardSubs{n: n, cc: cc, kicked: make(chan struct{}, 1), lost: make(chan shardLoss, 16),
		confirmed: map[string]bool{}, up: make(chan struct{}),
		nodes: map[string]*nodeSub{}, at: map[string]string{}}
}

// poke has the run loop look at the notifier's keys soon.
func (ss *shardSubs) poke() {
	select {
	case ss.kicked <- struct{}{}:
	default:
	}
}

// run keeps the shard subscriptions in line with the notifier's keys until
// ctx is done.
func (ss *shardSubs) run(ctx context.Context) {
	defer func() {
		for _, ns := range ss.nodes {
			ss.closeNode(ns)
		}
	}()
	tick := time.NewTicker(time.Second) // keys forgotten, subscriptions to retry
	defer tick.Stop()
	retry := time.NewTimer(time.Hour)
	defer retry.Stop()
	lastLoss := time.Now()
	for {
		if wait := time.Until(ss.next); wait > 0 {
			retry.Reset(wait)
		} else {
			ss.sync(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-ss.kicked:
		case <-tick.C:
		case <-retry.C:
		case l := <-ss.lost:
			if time.Since(lastLoss) > 10*time.Second {
				ss.fails = 0
			}
			lastLoss = time.Now()
			ss.drop(ctx, l)
		}
	}
}

// wanted returns the shard channels of the notifier's keys, by the hash
// tag of their queue.
func (ss *shardSubs) wanted() map[string][]string {
	n := ss.n
	n.mu.Lock()
	keys := make([][]string, len(n.kinds))
	for k := range n.kinds {
		if k < len(n.shardSuffix) && n.shardSuffix[k] != "" {
			for q := range n.kinds[k].known {
				keys[k] = append(keys[k], q)
			}
		}
	}
	n.mu.Unlock()
	out := map[string][]string{}
	for k, qs := range keys {
		for _, q := range qs {
			for _, tag := range ss.tags(q) {
				out[tag] = append(out[tag], ss.shardChannel(tag, n.shardSuffix[k]))
			}
		}
	}
	return out
}

// tags returns the hash tags of the keys of queue q: its partitions' for a
// partitioned queue.
func (ss *shardSubs) tags(q string) []string {
	s := ss.n.s
	if store.ValidateQueue(q) != nil {
		return nil
	}
	names := s.partNames(q)
	if names == nil {
		names = []string{q}
	}
	out := make([]string, len(names))
	for i, name := range names {
		out[i] = strings.TrimSuffix(s.queueKeys(name).tag, ":")
	}
	return out
}

// sync subscribes to the wanted channels not subscribed yet, each queue's
// on its slot's master, and unsubscribes from those no longer wanted.
func (ss *shardSubs) sync(ctx context.Context) {
	want := ss.wanted()
	wanted := map[string]bool{}
	for _, chans := range want {
		for _, c := range chans {
			wanted[c] = true
		}
	}
	for c, addr := range ss.at {
		if wanted[c] {
			continue
		}
		delete(ss.at, c)
		if ns := ss.nodes[addr]; ns != nil {
			_ = ns.ps.SUnsubscribe(ctx, c)
		}
	}
	for tag, chans := range want {
		var missing []string
		for _, c := range chans {
			if _, ok := ss.at[c]; !ok {
				missing = append(missing, c)
			}
		}
		if len(missing) == 0 {
			continue
		}
		node, err := ss.cc.MasterForKey(ctx, tag)
		if err != nil {
			ss.failed(ctx, err)
			return
		}
		ns := ss.node(ctx, node)
		if err := ns.ps.SSubscribe(ctx, missing...); err != nil {
			ss.drop(ctx, shardLoss{ns: ns, err: err})
			return
		}
		for _, c := range missing {
			ss.at[c] = ns.addr
		}
	}
}

// node returns the subscription connection on node, started if need be.
func (ss *shardSubs) node(ctx context.Context, node *redis.Client) *nodeSub {
	addr := node.Options().Addr
	if ns := ss.nodes[addr]; ns != nil {
		return ns
	}
	rctx, stop := context.WithCancel(ctx)
	ns := &nodeSub{addr: addr, ps: node.SSubscribe(rctx), stop: stop}
	ss.nodes[addr] = ns
	go ss.read(rctx, ns)
	return ns
}

// closeNode ends the subscriptions on ns.
func (ss *shardSubs) closeNode(ns *nodeSub) {
	ns.stop()
	_ = ns.ps.Close()
	if ss.nodes[ns.addr] == ns {
		delete(ss.nodes, ns.addr)
	}
	for c, addr := range ss.at {
		if addr == ns.addr {
			delete(ss.at, c)
			ss.setConfirmed(c, false)
		}
	}
}

// drop acts on a loss a node reader reported (or sync met): the channels
// lost are subscribed again, after a backoff and a reload of the
// cluster's topology, where their slots are now.
func (ss *shardSubs) drop(ctx context.Context, l shardLoss) {
	if ss.nodes[l.ns.addr] != l.ns {
		return // a connection closed already
	}
	if l.channels != nil {
		lost := false
		for _, c := range l.channels {
			if ss.at[c] == l.ns.addr {
				delete(ss.at, c)
				ss.setConfirmed(c, false)
				lost = true
			}
		}
		if !lost {
			return // unsubscribed by sync
		}
	} else {
		ss.closeNode(l.ns)
	}
	ss.failed(ctx, l.err)
}

// failed starts a backoff after err and has the client reload the
// cluster's topology. A server that does not know SSUBSCRIBE, or an ACL
// that denies it, is asked again after a minute only, and first waits
// stop waiting for shard subscriptions (awaitConfirmed).
func (ss *shardSubs) failed(ctx context.Context, err error) {
	ss.n.s.observe(err)
	ss.cc.ReloadState(ctx)
	ss.fails++
	ss.next = time.Now().Add(min(time.Second, time.Duration(1<<min(ss.fails, 7))*5*time.Millisecond))
	if err != nil && (redis.IsPermissionError(err) || strings.Contains(strings.ToLower(err.Error()), "unknown command")) {
		// Refused for good, most likely (an ACL without SSUBSCRIBE, as
		// the one documented before shard channels): the scripts are
		// refused SPUBLISH as well and PUBLISH on the classic channels,
		// which the classic subscriptions hear. Ask again once a minute.
		ss.next = time.Now().Add(time.Minute)
		ss.mu.Lock()
		ss.refused = true
		close(ss.up)
		ss.up = make(chan struct{})
		ss.mu.Unlock()
	}
}

// read hands the messages of ns to the waiters until ctx is done or ns
// fails, which it reports to the run loop.
func (ss *shardSubs) read(ctx context.Context, ns *nodeSub) {
	report := func(l shardLoss) {
		select {
		case ss.lost <- l:
		case <-ctx.Done():
		}
	}
	var p pinger
	for ctx.Err() == nil {
		m, err := p.receive(ctx, ns.ps)
		if err != nil {
			if ctx.Err() == nil {
				report(shardLoss{ns: ns, err: err})
			}
			return
		}
		switch m := m.(type) {
		case *redis.Message:
			ss.deliver(m.Channel, m.Payload)
		case *redis.Subscription:
			switch m.Kind {
			case "ssubscribe":
				// Subscribed, or again: what came before is unknown.
				ss.deliver(m.Channel, "")
				ss.setConfirmed(m.Channel, true)
			case "sunsubscribe":
				// Asked for (sync), or the slot left the node: the run
				// loop tells which.
				report(shardLoss{ns: ns, channels: []string{m.Channel}})
			}
		}
	}
}

// setConfirmed records whether the server confirmed channel ch (and no
// loss took it since), waking the awaitConfirmed calls.
func (ss *shardSubs) setConfirmed(ch string, on bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !on {
		delete(ss.confirmed, ch)
		return
	}
	ss.confirmed[ch] = true
	ss.refused = false
	close(ss.up)
	ss.up = make(chan struct{})
}

// shardConfirmWait bounds how long a first wait on a key waits for its
// shard subscription before it looks (awaitConfirmed): past it, the
// confirmation signals the key when it comes.
const shardConfirmWait = 2 * time.Second

// awaitConfirmed returns once the shard channels of kind k of keys are
// confirmed, the server refused SSUBSCRIBE, ctx is done or
// shardConfirmWait passed.
func (ss *shardSubs) awaitConfirmed(ctx context.Context, k notifyKind, keys []string) {
	if int(k) >= len(ss.n.shardSuffix) || ss.n.shardSuffix[k] == "" {
		return
	}
	var chans []string
	for _, q := range keys {
		for _, tag := range ss.tags(q) {
			chans = append(chans, ss.shardChannel(tag, ss.n.shardSuffix[k]))
		}
	}
	t := time.NewTimer(shardConfirmWait)
	defer t.Stop()
	for {
		ss.mu.Lock()
		up, done := ss.up, true
		for _, c := range chans {
			done = done && ss.confirmed[c]
		}
		done = done || ss.refused
		ss.mu.Unlock()
		if done {
			return
		}
		select {
		case <-up:
		case <-ctx.Done():
			return
		case <-t.C:
			return
		}
	}
}

// deliver hands a message on shard channel ch to the waiters; with no
// payload, it signals the channel's queue (a subscription confirmed).
func (ss *shardSubs) deliver(ch, payload string) {
	n := ss.n
	// "<prefix>:{<prefix>:<queue>}:<suffix>"
	head := n.s.opts.Prefix + ":{" + n.s.opts.Prefix + ":"
	rest, ok := strings.CutPrefix(ch, head)
	if !ok {
		return
	}
	i := strings.LastIndexByte(rest, ':')
	if i < 1 || rest[i-1] != '}' {
		return
	}
	queue, suffix := rest[:i-1], rest[i+1:]
	for k, sfx := range n.shardSuffix {
		if sfx == "" || sfx != suffix {
			continue
		}
		if payload == "" {
			payload = queue // the queue as scripts see it
		}
		n.mu.Lock()
		n.message(notifyKind(k), payload)
		n.mu.Unlock()
	}
}
