package redisstore_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// queuesOnMasters returns one queue per master of c (named q0, q1, ...),
// and the address of each one's master.
func queuesOnMasters(t *testing.T, c *redistest.Cluster, rdb *redis.ClusterClient, prefix string) ([]string, []string) {
	t.Helper()
	var queues, addrs []string
	for _, q := range perMaster(t, c, rdb, prefix, 1) {
		slot, err := rdb.ClusterKeySlot(t.Context(), "{"+prefix+":"+q+"}").Result()
		if err != nil {
			t.Fatal(err)
		}
		queues = append(queues, q)
		addrs = append(addrs, c.MasterForSlot(t, int(slot)))
	}
	return queues, addrs
}

// perMaster returns n queues (named q0, q1, ...) on each of the three
// masters of c.
func perMaster(t *testing.T, c *redistest.Cluster, rdb *redis.ClusterClient, prefix string, n int) []string {
	t.Helper()
	var queues []string
	count := map[string]int{}
	for i := 0; len(queues) < 3*n && i < 1000; i++ {
		q := fmt.Sprintf("q%d", i)
		slot, err := rdb.ClusterKeySlot(t.Context(), "{"+prefix+":"+q+"}").Result()
		if err != nil {
			t.Fatal(err)
		}
		if addr := c.MasterForSlot(t, int(slot)); count[addr] < n {
			count[addr]++
			queues = append(queues, q)
		}
	}
	if len(queues) < 3*n {
		t.Fatalf("found %d queues over the masters, want %d on each of 3", len(queues), n)
	}
	return queues
}

// shardSubscribers returns how many clients of the node at addr are
// subscribed to shard channel ch.
func shardSubscribers(t *testing.T, addr, ch string) int64 {
	t.Helper()
	node := redis.NewClient(&redis.Options{Addr: addr})
	defer node.Close()
	m, err := node.PubSubShardNumSub(t.Context(), ch).Result()
	if err != nil {
		t.Fatal(err)
	}
	return m[ch]
}

// wakeOnEach checks that a worker waiting for an hour on queues wakes
// for a job enqueued in each of them and claims the job. A wait may also
// return for a signal that came before the job (a subscription confirmed
// late): the worker then claims nothing and waits again, as it would.
func wakeOnEach(t *testing.T, worker, producer *redisstore.Store, queues []string, tag string) {
	t.Helper()
	for _, q := range queues {
		id := "job-" + q + tag
		wakeFor(t, worker, queues, q, func() { mustEnqueue(t, producer, job(q, id)) }, id)
	}
}

// wakeFor waits on queues, runs enqueue, and waits again until a wait
// names q and a claim of q takes the job id, within failAfter.
func wakeFor(t *testing.T, worker *redisstore.Store, queues []string, q string, enqueue func(), id string) {
	t.Helper()
	ctx := t.Context()
	type result struct {
		got []string
		err error
	}
	deadline := time.Now().Add(failAfter)
	for first := true; ; first = false {
		done := make(chan result, 1)
		go func() {
			got, err := worker.WaitReady(ctx, queues, time.Hour)
			done <- result{got, err}
		}()
		if first {
			enqueue()
		}
		r := testutil.Receive(t, done, time.Until(deadline), "WaitReady (timeout 1h) to wake after an enqueue in "+q)
		if r.err != nil {
			t.Fatalf("WaitReady: %v", r.err)
		}
		if !slices.Contains(r.got, q) {
			continue
		}
		res, err := worker.Claim(ctx, store.ClaimOpts{Queue: q, Max: 10, Lease: time.Minute})
		if err != nil {
			t.Fatalf("Claim in %s after waking: %v", q, err)
		}
		switch {
		case len(res.Jobs) == 1 && res.Jobs[0].ID == id:
			return
		case len(res.Jobs) != 0:
			t.Fatalf("Claim in %s after waking: %d jobs, first %s; want %s", q, len(res.Jobs), res.Jobs[0].ID, id)
		}
	}
}

// TestWakeUpsTakeShardChannelsCluster: on a three-master Cluster the
// worker holds a shard subscription for each queue it waits on, on the
// queue's own master, and an enqueue in a queue of each master wakes a
// worker that waits for an hour through it: nothing goes on the classic
// channel, which the Cluster would broadcast over its bus to every node.
// Worker and producer connect as a user with exactly the rights doc.go
// documents for a Cluster.
func TestWakeUpsTakeShardChannelsCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t)
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	user := "documented-" + strings.NewReplacer(".", "-", ":", "-").Replace(prefix)
	if err := doOnNodes(ctx, c.AllAddrs(), aclSetUser(t, user, prefix, nil, clusterRights(t))...); err != nil {
		t.Fatal(err)
	}
	as := func(o *redis.ClusterOptions) { o.Username, o.Password = user, "secret" }
	queues, addrs := queuesOnMasters(t, c, rdb, prefix)
	worker := storeOn(t, c.Client(t, as), &redisstore.Config{Prefix: prefix})
	producer := storeOn(t, c.Client(t, as), &redisstore.Config{Prefix: prefix})
	settle(t, worker, queues...)
	for i, q := range queues {
		ch := prefix + ":{" + prefix + ":" + q + "}:ready"
		testutil.EventuallyTrue(t, failAfter, "the worker subscribed to "+ch+" on "+addrs[i], func() bool {
			return shardSubscribers(t, addrs[i], ch) == 1
		})
	}
	classic := rdb.Subscribe(ctx, prefix+":ready")
	defer classic.Close()
	if _, err := classic.Receive(ctx); err != nil {
		t.Fatal(err)
	}

	wakeOnEach(t, worker, producer, queues, "")

	// The first message on the classic channel is the marker: the
	// enqueues published nothing there.
	if err := rdb.Publish(ctx, prefix+":ready", "marker").Err(); err != nil {
		t.Fatal(err)
	}
	msg, err := classic.ReceiveMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Payload != "marker" {
		t.Fatalf("an enqueue on a Cluster published %q on the classic channel %s", msg.Payload, prefix+":ready")
	}
}

// TestClassicWakeUpsStillHeardCluster: a process of an older version,
// which PUBLISHes its wake-ups on the classic channel, still wakes the
// workers of this one on a Cluster (a rolling upgrade).
func TestClassicWakeUpsStillHeardCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t)
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	worker := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	settle(t, worker, "old")
	done := make(chan []string, 1)
	go func() {
		got, _ := worker.WaitReady(ctx, []string{"old"}, time.Hour)
		done <- got
	}()
	// What a script of an older version publishes.
	testutil.Eventually(t, failAfter, func() error {
		if err := rdb.Publish(ctx, prefix+":ready", "old").Err(); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-done:
			if !slices.Equal(got, []string{"old"}) {
				t.Fatalf("WaitReady after a classic PUBLISH: %v", got)
			}
			return nil
		case <-time.After(100 * time.Millisecond):
			return fmt.Errorf("no wake-up yet")
		}
	})
}

// TestShardWakeUpsAfterFailoverCluster: when the master of a queue dies
// and its replica takes over, the worker's shard subscription moves to the
// new master, and an enqueue there wakes it again.
func TestShardWakeUpsAfterFailoverCluster(t *testing.T) {
	wakeUpsAfterFailover(t, func(c *redistest.Cluster, addr string) { c.KillAddr(t, addr) })
}

// TestShardWakeUpsAfterFrozenMasterCluster: when the master of a queue
// freezes (a stopped process, a link cut without a reset) and its replica
// takes over, the worker's shard subscription leaves the frozen master,
// whose PING was written but never answered, for the new one, and an
// enqueue there wakes it. The subscription stayed on the frozen master
// until it came back, and the queue's wake-ups were lost meanwhile.
func TestShardWakeUpsAfterFrozenMasterCluster(t *testing.T) {
	wakeUpsAfterFailover(t, func(c *redistest.Cluster, addr string) { c.FreezeAddr(t, addr) })
}

// wakeUpsAfterFailover ends the master of a queue with fail, waits for its
// replica to take over, and checks that the worker is subscribed on the
// new master and woken by an enqueue on every queue.
func wakeUpsAfterFailover(t *testing.T, fail func(c *redistest.Cluster, addr string)) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t, redistest.Private(), redistest.Replicas(1), redistest.NodeTimeout(time.Second))
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	queues, addrs := queuesOnMasters(t, c, rdb, prefix)
	// The libraries are loaded with the tests' timeouts: a FUNCTION LOAD
	// on a loaded machine (a CI run) can take longer than the 1 s below.
	if err := storeOn(t, rdb, &redisstore.Config{Prefix: prefix}).Check(ctx); err != nil {
		t.Fatal(err)
	}
	// A call to a frozen master waits out its read timeout (and the
	// client's retries): 1 s, not the tests' 5 s.
	short := func(o *redis.ClusterOptions) { o.ReadTimeout, o.WriteTimeout = time.Second, time.Second }
	worker := storeOn(t, c.Client(t, short), &redisstore.Config{Prefix: prefix})
	producer := storeOn(t, c.Client(t, short), &redisstore.Config{Prefix: prefix})
	settle(t, worker, queues...)
	wakeOnEach(t, worker, producer, queues, "-before")

	fail(c, addrs[0])
	newMaster, _ := c.WaitFailover(t, ctx, addrs[0])
	ch := prefix + ":{" + prefix + ":" + queues[0] + "}:ready"
	testutil.EventuallyTrue(t, failAfter, "the worker subscribed to "+ch+" on the new master "+newMaster, func() bool {
		return shardSubscribers(t, newMaster, ch) == 1
	})
	// Until the clients have the new layout, calls on queues[0] fail.
	probeGetsThrough(t, producer, worker, queues[0])
	// The resubscription signalled the queue once (messages may have been
	// missed): take it.
	settle(t, worker, queues...)
	wakeOnEach(t, worker, producer, queues, "-after")
}

// moveSlot moves slot, with its keys, from the master at from to the one
// at to, as redis-cli --cluster reshard does.
func moveSlot(t *testing.T, c *redistest.Cluster, slot int, from, to string) {
	t.Helper()
	ctx := t.Context()
	ids := map[string]string{}
	for _, n := range c.Nodes(t) {
		ids[n.Addr] = n.ID
	}
	src := redis.NewClient(&redis.Options{Addr: from})
	defer src.Close()
	dst := redis.NewClient(&redis.Options{Addr: to})
	defer dst.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", ids[from]).Err())
	must(src.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", ids[to]).Err())
	host, port, _ := strings.Cut(to, ":")
	for {
		keys, err := src.ClusterGetKeysInSlot(ctx, slot, 100).Result()
		must(err)
		if len(keys) == 0 {
			break
		}
		args := []any{"MIGRATE", host, port, "", 0, 5000, "KEYS"}
		for _, k := range keys {
			args = append(args, k)
		}
		must(src.Do(ctx, args...).Err())
	}
	for _, addr := range []string{to, from} {
		n := redis.NewClient(&redis.Options{Addr: addr})
		must(n.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", ids[to]).Err())
		n.Close()
	}
}

// TestShardWakeUpsAfterReshardCluster: when a queue's slot moves to
// another master (the node it left ends the shard subscriptions of the
// slot), the worker subscribes again on the slot's new master, and an
// enqueue there wakes it.
func TestShardWakeUpsAfterReshardCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t, redistest.Private())
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	queues, addrs := queuesOnMasters(t, c, rdb, prefix)
	worker := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	producer := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	settle(t, worker, queues...)
	wakeOnEach(t, worker, producer, queues, "-before")

	slot, err := rdb.ClusterKeySlot(ctx, "{"+prefix+":"+queues[0]+"}").Result()
	if err != nil {
		t.Fatal(err)
	}
	moveSlot(t, c, int(slot), addrs[0], addrs[1])
	ch := prefix + ":{" + prefix + ":" + queues[0] + "}:ready"
	testutil.EventuallyTrue(t, failAfter, "the worker subscribed to "+ch+" on the slot's new master "+addrs[1], func() bool {
		return shardSubscribers(t, addrs[1], ch) == 1
	})
	settle(t, worker, queues...)
	wakeOnEach(t, worker, producer, queues, "-after")
}

// TestEventReadersWakeOnShardChannelCluster: a reader blocked on a queue's
// events on a Cluster subscribes to the queue's shard channel on its
// master, and an enqueue wakes it with the event; nothing goes on the
// classic channel.
func TestEventReadersWakeOnShardChannelCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t)
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	queues, addrs := queuesOnMasters(t, c, rdb, prefix)
	reader := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	producer := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	classic := rdb.Subscribe(ctx, prefix+":ev")
	defer classic.Close()
	if _, err := classic.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for i, q := range queues {
		_, pos, _, err := reader.ReadEvents(ctx, map[string]string{q: store.FromNow}, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		type result struct {
			evs []store.Event
			err error
		}
		done := make(chan result, 1)
		go func() {
			evs, _, _, err := reader.ReadEvents(ctx, pos, 10, time.Hour)
			done <- result{evs, err}
		}()
		ch := prefix + ":{" + prefix + ":" + q + "}:ev"
		testutil.EventuallyTrue(t, failAfter, "the reader subscribed to "+ch+" on "+addrs[i], func() bool {
			return shardSubscribers(t, addrs[i], ch) == 1
		})
		mustEnqueue(t, producer, job(q, "ev-"+q))
		r := testutil.Receive(t, done, failAfter, "ReadEvents (block 1h) to return after an enqueue in "+q)
		if r.err != nil || len(r.evs) == 0 || r.evs[0].ID != "ev-"+q {
			t.Fatalf("ReadEvents after an enqueue in %s: %+v, %v", q, r.evs, r.err)
		}
	}
	if err := rdb.Publish(ctx, prefix+":ev", "marker").Err(); err != nil {
		t.Fatal(err)
	}
	msg, err := classic.ReceiveMessage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Payload != "marker" {
		t.Fatalf("an event on a Cluster was published on the classic channel %s (%q)", prefix+":ev", msg.Payload)
	}
}

// TestPartitionedQueueWakesOnShardChannelsCluster: a worker waiting on a
// partitioned queue holds the shard subscriptions of its partitions (each
// on its own master), and a job enqueued in any partition wakes it with
// the queue's name.
func TestPartitionedQueueWakesOnShardChannelsCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t)
	prefix := redistest.Prefix(t)
	cfg := &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"hot": 3}}
	worker := storeOn(t, c.Client(t), cfg)
	producer := storeOn(t, c.Client(t), cfg)
	settle(t, worker, "hot")
	parts, err := worker.Partitions(ctx, "hot")
	if err != nil || len(parts) != 3 {
		t.Fatalf("Partitions: %v, %v", parts, err)
	}
	for i := range 6 {
		id := fmt.Sprintf("hot-%d", i)
		wakeFor(t, worker, []string{"hot"}, "hot", func() { mustEnqueue(t, producer, job("hot", id)) }, id)
	}
}

// TestIdleWorkerStartsJobsOnEachShardCluster: a worker that looks at its
// idle queues once an hour (IdleWait) starts a job enqueued on each of
// the three masters within the test's bound, which only a wake-up can
// give, and the wake-ups went on shard channels.
func TestIdleWorkerStartsJobsOnEachShardCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t)
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	queues, addrs := queuesOnMasters(t, c, rdb, prefix)
	wst := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	pst := storeOn(t, c.Client(t), &redisstore.Config{Prefix: prefix})
	w := hopper.NewWorker(wst, &hopper.WorkerConfig{Queues: weights(queues), IdleWait: time.Hour})
	started := make(chan int, len(queues))
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[latencyArgs]) error {
		started <- j.Args.N
		return nil
	})
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	defer func() {
		stop()
		<-done
	}()
	for i, q := range queues {
		ch := prefix + ":{" + prefix + ":" + q + "}:ready"
		testutil.EventuallyTrue(t, failAfter, "the worker subscribed to "+ch+" on "+addrs[i], func() bool {
			return shardSubscribers(t, addrs[i], ch) == 1
		})
	}
	classic := rdb.Subscribe(ctx, prefix+":ready")
	defer classic.Close()
	if _, err := classic.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	client := hopper.NewClient(pst, nil)
	for i, q := range queues {
		if _, err := hopper.Enqueue(ctx, client, latencyArgs{N: i}, &hopper.EnqueueOpts{Queue: q}); err != nil {
			t.Fatal(err)
		}
		if got := testutil.Receive(t, started, failAfter, "the job enqueued in "+q+" (on "+addrs[i]+") to start"); got != i {
			t.Fatalf("started job %d, want %d", got, i)
		}
	}
	if err := rdb.Publish(ctx, prefix+":ready", "marker").Err(); err != nil {
		t.Fatal(err)
	}
	if msg, err := classic.ReceiveMessage(ctx); err != nil || msg.Payload != "marker" {
		t.Fatalf("first message on the classic channel: %v, %v; want the marker", msg, err)
	}
}

// TestWakeUpsWithoutShardPubSubCluster: where the server refuses SPUBLISH
// and SSUBSCRIBE (here an ACL without them, as the one documented before
// shard channels), the scripts publish on the classic channel and the
// workers still wake through their classic subscriptions, with nothing
// logged.
func TestWakeUpsWithoutShardPubSubCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t)
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	user := "noshard-" + strings.NewReplacer(".", "-", ":", "-").Replace(prefix)
	if err := doOnNodes(ctx, c.AllAddrs(), "ACL", "SETUSER", user, "reset", "on", ">pw", "~*", "&*", "+@all", "-spublish", "-ssubscribe"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = doOnNodes(context.Background(), c.AllAddrs(), "ACL", "DELUSER", user) })
	as := func(o *redis.ClusterOptions) { o.Username, o.Password = user, "pw" }
	var logs logBuffer
	queues, _ := queuesOnMasters(t, c, rdb, prefix)
	worker := storeOn(t, c.Client(t, as), &redisstore.Config{Prefix: prefix, Logger: logs.logger()})
	producer := storeOn(t, c.Client(t, as), &redisstore.Config{Prefix: prefix})
	settle(t, worker, queues...)
	classic := rdb.Subscribe(ctx, prefix+":ready")
	defer classic.Close()
	if _, err := classic.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	wakeOnEach(t, worker, producer, queues, "")
	msg, err := classic.ReceiveMessage(ctx)
	if err != nil || msg.Payload != queues[0] {
		t.Fatalf("first message on the classic channel: %v, %v; want %s", msg, err, queues[0])
	}
	if out := logs.String(); out != "" {
		t.Errorf("the store logged: %s", out)
	}
}
