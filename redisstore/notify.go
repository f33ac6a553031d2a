package redisstore

import (
	"context"
	"errors"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Wake-ups. A script that makes jobs claimable in a queue PUBLISHes the
// queue's name on the channel "<prefix>:ready"; one that moves a queue's
// next due time earlier, on "<prefix>:sched" (lua/base.lua). Each Store
// holds one subscription to both, on one connection, however many queues
// and waiters it has (a notifier); WaitReady and WaitSchedule wait on it.
// On a Redis Cluster the scripts SPUBLISH on each queue's shard channel
// instead, "<prefix>:{<prefix>:<queue>}:ready" and ":sched", and the notifier also
// subscribes to those of its queues on their masters (notify_sharded.go):
// a classic PUBLISH would cross the cluster bus to every node.
//
// Pub/sub reaches every subscriber, so a process frozen in the middle of a
// wait (a stop signal, a long pause) takes no wake-up away from the others:
// every live idle worker hears of every ready job. On a Redis Cluster a
// PUBLISH reaches the whole cluster, whichever node the subscription is on;
// an SPUBLISH reaches the subscribers on the master of its slot.
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
//
// A Store has two notifiers: wake-ups (ready, sched), which every worker
// and scheduler holds, and watches (events, done: events.go, wait_job.go),
// which only a process that reads events or waits for jobs holds, so that
// workers never receive those messages. A message names a key (a queue,
// or a job for done) and may carry a payload, which reaches the waiter
// with the key; a key signalled again before a waiter took it keeps the
// latest payload.

// notifyKind is what a message says: the index of its channel in its
// notifier.
type notifyKind int

// The kinds of the wake-up notifier.
const (
	kindReady notifyKind = iota
	kindSched
)

// The kinds of the watch notifier.
const (
	kindEvents notifyKind = iota
	kindDone
)

// idleUnsubscribe is how long the subscription stays with no waiter.
const idleUnsubscribe = time.Minute

// notifyHealthCheck is how often a silent subscription is pinged; a dead
// connection is noticed within about twice that, and reconnected.
const notifyHealthCheck = 5 * time.Second

// notifier carries a Store's messages on some channels to its waiters.
type notifier struct {
	s        *Store
	channels []string // by notifyKind
	// keyOf reads the key and payload of a message of kind k; nil means
	// the message is the key, with no payload.
	keyOf func(k notifyKind, msg string) (key, payload string)
	// shardSuffix names, by kind, the suffix of a queue's shard channel
	// ("<prefix>:{<prefix>:<queue>}:<suffix>") that the scripts SPUBLISH on, on a
	// Cluster; "" for a kind with no shard channel (notify_sharded.go).
	shardSuffix []string

	mu       sync.Mutex
	running  bool
	stop     context.CancelFunc
	lastUsed time.Time
	live     chan struct{} // closed once the server confirmed the subscription
	liveSubs int           // cluster subscriptions confirmed and not broken (notify_cluster.go)
	err      error         // the subscription's last failure, nil once subscribed
	kinds    []kindState
	shard    *shardSubs // the shard channel subscriptions, while they run
	// seen and seenBefore hold the messages with a payload (job ends)
	// that came since seenSince and in the dupWindow before it, by hash:
	// on a Cluster every message comes twice (notify_cluster.go), and the
	// second copy of a job's end must not end a watch of the same job
	// made since (a requeued job's).
	seen, seenBefore map[uint64]struct{}
	seenSince        time.Time
	seenSeed         maphash.Seed
}

// dupWindow is how long a message's second copy is known as such. The
// copies come over two masters' subscriptions, a cluster bus hop apart.
const dupWindow = 30 * time.Second

// kindState is the waiting of one kind.
type kindState struct {
	known   map[string]bool   // keys waited on since the subscription started
	raised  map[string]string // keys signalled that no waiter took yet, with their payload
	waiters map[*nwaiter]struct{}
	seq     map[string]uint64 // signals of each known key so far (see waitSince)
	last    map[string]string // the last payload of each known key, for waitFrom with a snapshot
	refs    map[string]int    // watches holding each key (hold), which forget counts down
}

// nwaiter is one blocked wait.
type nwaiter struct {
	queues   map[string]bool
	got      []string
	payloads map[string]string // by key, when a message carried one
	wake     chan struct{}     // one slot
}

// newNotifier returns a notifier for channels, which it subscribes to on
// the first wait.
func newNotifier(s *Store, channels ...string) *notifier {
	n := &notifier{s: s, channels: channels, kinds: make([]kindState, len(channels))}
	for i := range n.kinds {
		n.kinds[i] = kindState{known: map[string]bool{}, raised: map[string]string{}, waiters: map[*nwaiter]struct{}{},
			seq: map[string]uint64{}, last: map[string]string{}, refs: map[string]int{}}
	}
	return n
}

// wait returns the queues of kind k signalled among queues, blocking until
// one is, timeout passes or ctx is done. It returns nil on timeout, and on
// ctx's end, when it gives back what it took. While the subscription
// cannot be made (the server refuses it), it returns that error.
func (n *notifier) wait(ctx context.Context, k notifyKind, queues []string, timeout time.Duration) ([]string, error) {
	got, _, err := n.waitPayloads(ctx, k, queues, timeout)
	return got, err
}

// waitPayloads is wait that also returns the payloads the messages
// carried, by key (empty when a key was signalled without one: look
// again).
func (n *notifier) waitPayloads(ctx context.Context, k notifyKind, queues []string, timeout time.Duration) ([]string, map[string]string, error) {
	return n.waitFrom(ctx, k, queues, nil, timeout)
}

// seqs returns how many signals each of keys has had so far, for
// waitSince, and starts counting them for keys not waited on before.
func (n *notifier) seqs(k notifyKind, keys []string) []uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ensureRunning()
	ks := &n.kinds[k]
	out := make([]uint64, len(keys))
	for i, q := range keys {
		n.know(ks, q)
		out[i] = ks.seq[q]
	}
	return out
}

// waitSince is wait that also returns at once, with those keys, when a key
// had a signal since seqs returned snap (in the order of keys): a signal
// that came while the caller was not waiting and that another waiter of
// the process took is not missed. Readers that look before they wait
// (ReadEvents) need it; the others rely on the signals kept for the next
// wait.
func (n *notifier) waitSince(ctx context.Context, k notifyKind, keys []string, snap []uint64, timeout time.Duration) ([]string, error) {
	got, _, err := n.waitFrom(ctx, k, keys, snap, timeout)
	return got, err
}

// waitFrom is waitPayloads and, with a snapshot of seqs, waitSince.
func (n *notifier) waitFrom(ctx context.Context, k notifyKind, queues []string, snap []uint64, timeout time.Duration) ([]string, map[string]string, error) {
	// A wait's timeout counts from when the subscription is live: a
	// subscription that comes up signals every queue waited on before
	// (messages may have been missed), which a wait that already timed out
	// would leave to the next.
	if err := n.waitLive(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	n.mu.Lock()
	n.ensureRunning()
	if err := n.err; err != nil {
		n.mu.Unlock()
		return nil, nil, err
	}
	ks := &n.kinds[k]
	var got, fresh []string
	var payloads map[string]string
	for _, q := range queues {
		if !ks.known[q] {
			// A queue waited on for the first time may have been
			// signalled before anyone listened for it: one look.
			n.know(ks, q)
			got = append(got, q)
			fresh = append(fresh, q)
			continue
		}
		if p, ok := ks.raised[q]; ok {
			delete(ks.raised, q)
			got = append(got, q)
			if p != "" {
				if payloads == nil {
					payloads = make(map[string]string)
				}
				payloads[q] = p
			}
		}
	}
	if len(got) == 0 && snap != nil {
		for i, q := range queues {
			if ks.seq[q] != snap[i] {
				got = append(got, q)
				if p := ks.last[q]; p != "" {
					if payloads == nil {
						payloads = make(map[string]string)
					}
					payloads[q] = p
				}
			}
		}
	}
	if len(got) > 0 || timeout <= 0 || ctx.Err() != nil {
		ss := n.shard
		n.mu.Unlock()
		if ss != nil && len(fresh) > 0 {
			// The look comes once the shard subscriptions of the new
			// keys are up (notify_sharded.go), as it comes once the
			// classic one is (waitLive): what is published after it is
			// heard, and the signal their confirmation gives comes now,
			// not at some later wait.
			ss.awaitConfirmed(ctx, k, fresh)
		}
		return n.keep(ctx, k, got, payloads), payloads, nil
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
	got, payloads = w.got, w.payloads
	n.lastUsed = time.Now()
	err := n.err
	n.mu.Unlock()
	if err != nil {
		n.keep(context.Background(), k, nil, nil)
		return nil, nil, err
	}
	if got = n.keep(ctx, k, got, payloads); got == nil {
		payloads = nil
	}
	return got, payloads, nil
}

// keep returns got, or raises its keys again (with their payloads) and
// returns nil when ctx is done (the caller will not act on them).
func (n *notifier) keep(ctx context.Context, k notifyKind, got []string, payloads map[string]string) []string {
	if ctx.Err() == nil || len(got) == 0 {
		return got
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, q := range got {
		n.deliver(k, q, payloads[q])
	}
	return nil
}

// hold starts a watch of key of kind k: the key is known from now on (a
// message for it is counted and its payload kept) until every watch that
// held it has called forget. It returns the key's count of signals, for
// waitFrom: several watches of one key (WatchJob of one job) each see a
// message that came while another watch was waiting and took it.
func (n *notifier) hold(k notifyKind, key string) uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ensureRunning()
	ks := &n.kinds[k]
	n.know(ks, key)
	ks.refs[key]++
	return ks.seq[key]
}

// lastPayload returns the payload of the last message of key of kind k
// since it was held, or "".
func (n *notifier) lastPayload(k notifyKind, key string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.kinds[k].last[key]
}

// forget drops what the notifier knows of keys of kind k that nobody will
// wait on again (a job's done key after its wait), so that keys do not
// pile up; a key still held by another watch (hold) is kept for it.
func (n *notifier) forget(k notifyKind, keys ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ks := &n.kinds[k]
	for _, q := range keys {
		if ks.refs[q] > 1 {
			ks.refs[q]--
			continue
		}
		delete(ks.refs, q)
		delete(ks.known, q)
		delete(ks.raised, q)
		delete(ks.seq, q)
		delete(ks.last, q)
	}
}

// know marks key q known in ks, and has the shard subscriptions look at
// a key they may not hold yet. n.mu must be held.
func (n *notifier) know(ks *kindState, q string) {
	if ks.known[q] {
		return
	}
	ks.known[q] = true
	if n.shard != nil {
		n.shard.poke()
	}
}

// deliver hands a signal of kind k for key q, with its payload, to the
// waiters on q, or keeps it for the next one. n.mu must be held.
func (n *notifier) deliver(k notifyKind, q, payload string) {
	ks := &n.kinds[k]
	if !ks.known[q] {
		return // nobody here waits on q
	}
	ks.seq[q]++
	if payload != "" {
		ks.last[q] = payload
	}
	delivered := false
	for w := range ks.waiters {
		if !w.queues[q] {
			continue
		}
		if !slices.Contains(w.got, q) {
			w.got = append(w.got, q)
		}
		if payload != "" {
			if w.payloads == nil {
				w.payloads = make(map[string]string)
			}
			w.payloads[q] = payload
		}
		select {
		case w.wake <- struct{}{}:
		default:
		}
		delivered = true
	}
	if !delivered {
		if old := ks.raised[q]; payload == "" && old != "" {
			payload = old // a bare signal does not erase a payload
		}
		ks.raised[q] = payload
	}
}

// deliverAll signals every known key of every kind: after a
// (re)subscription, when messages may have been missed. n.mu must be held.
func (n *notifier) deliverAll() {
	for k := range n.kinds {
		for q := range n.kinds[k].known {
			n.deliver(notifyKind(k), q, "")
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
	n.live = make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	n.stop = cancel
	if cc, ok := n.s.rdb.(*redis.ClusterClient); ok && n.s.shardPub && n.shardSuffix != nil {
		// Made now, so that the keys known from now on reach it
		// (notify_sharded.go).
		n.shard = newShardSubs(n, cc)
	}
	go n.run(ctx, n.shard)
}

// waitLive starts the subscription if it is not running and waits until
// the server confirmed it, ctx is done, or the subscription fails (its
// error). Messages published after it returns nil reach this process.
func (n *notifier) waitLive(ctx context.Context) error {
	for {
		n.mu.Lock()
		n.ensureRunning()
		live, err := n.live, n.err
		n.mu.Unlock()
		if err != nil {
			return err
		}
		select {
		case <-live:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond): // look at n.err again
		}
	}
}

// run holds the subscription until it has had no waiter for
// idleUnsubscribe, or the client is closed; on a Cluster, with the shard
// subscriptions ss (nil: none).
func (n *notifier) run(ctx context.Context, ss *shardSubs) {
	if cc, ok := n.s.rdb.(*redis.ClusterClient); ok {
		n.runCluster(ctx, cc, ss)
		return
	}
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		n.serverSubscription(subCtx)
	}()
	idle := time.NewTicker(idleUnsubscribe / 4)
	defer idle.Stop()
	for {
		select {
		case <-done: // the client was closed
			return
		case <-idle.C:
			if n.idleStop() {
				cancel()
				<-done
				return
			}
		}
	}
}

// serverSubscription holds the subscription of one server (a client of
// one server, or of the master a Sentinel names) until ctx is done or the
// client is closed. A subscription that fails, or whose server leaves a
// PING unanswered (pinger: a frozen master, a link cut without a reset),
// is made again: behind Sentinel on the master it names now. go-redis's
// own health check only writes its PING, which a frozen master accepts:
// a subscription stayed on it, and its wake-ups were lost, until it came
// back. Behind Sentinel the subscription also moves when the store's
// commands reach another server than it is on (watchMaster).
func (n *notifier) serverSubscription(ctx context.Context) {
	fc := failoverClient(n.s.rdb)
	for quiet := 0; ; quiet = lostQuietTries {
		at := masterAt(ctx, fc)
		ps := n.subscribe(ctx, quiet)
		if ps == nil {
			return
		}
		sctx, moved := context.WithCancel(ctx)
		watched := n.watchMaster(sctx, fc, at, moved)
		var p pinger
		var err error
		for err == nil {
			var m any
			if m, err = p.receive(sctx, ps); err == nil {
				n.handle(m)
			}
		}
		masterMoved := sctx.Err() != nil && ctx.Err() == nil
		moved()
		<-watched
		_ = ps.Close()
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, redis.ErrClosed):
			n.stopped()
			return
		case !masterMoved:
			n.s.observe(err)
		}
	}
}

// masterCheck is how often a subscription behind Sentinel checks that
// the store's commands still go to the server it is on.
const masterCheck = time.Second

// failoverClient returns rdb when it is a Sentinel's failover client
// (redis.NewFailoverClient), nil otherwise.
func failoverClient(rdb redis.UniversalClient) *redis.Client {
	if c, ok := rdb.(*redis.Client); ok && c.Options().Addr == "FailoverClient" {
		return c
	}
	return nil
}

// masterAt returns the address of the server fc's commands reach (its
// side of a connection, CLIENT INFO's laddr), "" when fc is nil or the
// server does not say.
func masterAt(ctx context.Context, fc *redis.Client) string {
	if fc == nil {
		return ""
	}
	ci, err := fc.ClientInfo(ctx).Result()
	if err != nil {
		return ""
	}
	return ci.LAddr
}

// watchMaster calls moved when the commands of fc, a failover client (nil:
// none, as at == ""), no longer reach at, the server the subscription was
// made on; it checks every masterCheck until ctx ends, and closes the
// returned channel when it is done. go-redis moves a failover client's
// pooled connections when its sentinel names a new master, not its
// subscriptions: the subscription stayed on an old master that still
// answered (a planned failover, SENTINEL FAILOVER) until the sentinels
// made it a replica, 10 to 20 s later, and wake-ups were lost meanwhile.
func (n *notifier) watchMaster(ctx context.Context, fc *redis.Client, at string, moved func()) <-chan struct{} {
	done := make(chan struct{})
	if fc == nil || at == "" {
		close(done)
		return done
	}
	go func() {
		defer close(done)
		t := time.NewTicker(masterCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if now := masterAt(ctx, fc); now != "" && now != at {
				n.s.opts.Logger.Info("redisstore: the master behind Sentinel moved; the wake-ups' subscription moves with it",
					"from", at, "to", now)
				moved()
				return
			}
		}
	}()
	return done
}

// lostQuietTries is how many times a lost subscription is made again
// before waits return the error: a blip (a closed connection, a master
// that moved) costs them nothing.
const lostQuietTries = 2

// subscribe makes the subscription and waits for the server's first
// confirmation, retrying with backoff (up to 1 s) while the server
// refuses; from its try quiet on the error is what waits return
// meanwhile. It returns nil when ctx ends first.
func (n *notifier) subscribe(ctx context.Context, quiet int) *redis.PubSub {
	for try := 0; ; try++ {
		ps := n.s.rdb.Subscribe(ctx, n.channels...)
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
		if try >= quiet {
			n.mu.Lock()
			n.err = wrap("subscribe to "+strings.Join(n.channels, ", "), err)
			n.deliverAll() // wake the waiters: they return the error
			n.mu.Unlock()
		}
		d := min(time.Second, time.Duration(1<<min(try, 7))*10*time.Millisecond)
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
				n.message(notifyKind(k), m.Payload)
			}
		}
	case *redis.Subscription:
		// Subscribed, or subscribed again after a lost connection: what
		// was published meanwhile is unknown. The subscription is live
		// once every channel is confirmed.
		if m.Kind == "subscribe" {
			n.deliverAll()
			if m.Count == len(n.channels) && n.live != nil {
				select {
				case <-n.live:
				default:
					close(n.live)
				}
			}
		}
	}
}

// message hands the message msg of kind k to its waiters, unless it
// carries a payload and came already (copy). n.mu must be held.
func (n *notifier) message(k notifyKind, msg string) {
	key, payload := msg, ""
	if n.keyOf != nil {
		key, payload = n.keyOf(k, msg)
	}
	if payload != "" && n.copy(msg) {
		return
	}
	if part, queue, ok := unsalt(key); ok {
		// A partition's script names it with its salt: wake the waiters
		// on the partition and on its queue.
		n.deliver(k, part, payload)
		key = queue
	}
	n.deliver(k, key, payload)
}

// copy reports whether message msg came before, within the last
// dupWindow at least, and notes that it came. An end message names its
// job, state, attempt and time to the millisecond: a later end of the same
// job differs. n.mu must be held.
func (n *notifier) copy(msg string) bool {
	now := time.Now()
	if n.seen == nil {
		n.seen, n.seenSince, n.seenSeed = map[uint64]struct{}{}, now, maphash.MakeSeed()
	}
	if now.Sub(n.seenSince) >= dupWindow {
		n.seenBefore, n.seen, n.seenSince = n.seen, map[uint64]struct{}{}, now
	}
	h := maphash.String(n.seenSeed, msg)
	_, inNow := n.seen[h]
	_, inBefore := n.seenBefore[h]
	if inNow || inBefore {
		return true
	}
	n.seen[h] = struct{}{}
	return false
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
		n.kinds[k].raised = map[string]string{}
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
