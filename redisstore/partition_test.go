package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// onServerAndCluster runs fn against one server and against a three-master
// Cluster.
func onServerAndCluster(t *testing.T, fn func(t *testing.T, rdb redis.UniversalClient)) {
	t.Run("server", func(t *testing.T) { fn(t, redistest.Start(t).Client(t)) })
	t.Run("cluster", func(t *testing.T) {
		if testing.Short() {
			t.Skip("cluster in -short mode")
		}
		fn(t, redistest.StartCluster(t).Client(t))
	})
}

// claimAll claims from queue until a claim comes back empty, and acks
// nothing: it returns the claimed records in claim order.
func claimAll(t *testing.T, s store.Store, queue string, max int) []*store.JobRecord {
	t.Helper()
	var got []*store.JobRecord
	for {
		res, err := s.Claim(context.Background(), store.ClaimOpts{Queue: queue, Max: max, Lease: time.Minute, WorkerID: "w"})
		if err != nil {
			t.Fatalf("Claim(%s): %v", queue, err)
		}
		if len(res.Jobs) == 0 {
			return got
		}
		got = append(got, res.Jobs...)
	}
}

// TestPartitionedQueue: a queue of three partitions takes jobs into all of
// them, hands every job out once through claims of the queue, finishes
// them by the partition each record names, and keeps a group's order, a
// unique key and a job ID as one queue would.
func TestPartitionedQueue(t *testing.T) {
	onServerAndCluster(t, func(t *testing.T, rdb redis.UniversalClient) {
		ctx := context.Background()
		s := storeOn(t, rdb, &redisstore.Config{Partitions: map[string]int{"orders": 3}})
		var jobs []*store.NewJob
		for i := range 300 {
			j := job("orders", fmt.Sprintf("j%03d", i))
			if i%3 == 0 {
				j.Group = "tenant-a" // 100 jobs of one group
			}
			jobs = append(jobs, j)
		}
		mustEnqueue(t, s, jobs...)

		// A duplicate ID and a held unique key are caught across the queue.
		res, err := s.Enqueue(ctx, []*store.NewJob{job("orders", "j001")})
		if err != nil || !res[0].Duplicate {
			t.Fatalf("enqueue of a held ID: %+v, %v; want a duplicate", res, err)
		}
		u1, u2 := job("orders", "u1"), job("orders", "u2")
		u1.UniqueKey, u2.UniqueKey = "invoice-7", "invoice-7"
		mustEnqueue(t, s, u1)
		if res, err := s.Enqueue(ctx, []*store.NewJob{u2}); err != nil || !res[0].Duplicate || res[0].ID != "u1" {
			t.Fatalf("enqueue of a held unique key: %+v, %v; want a duplicate held by u1", res, err)
		}

		st, err := s.GetQueueStats(ctx, "orders")
		if err != nil || st.Counts.Ready != 301 {
			t.Fatalf("GetQueueStats(orders) = %+v, %v; want 301 ready", st.Counts, err)
		}
		queues, err := s.ListQueues(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"orders~0", "orders~1", "orders~2"}; !slices.Equal(queues, want) {
			t.Fatalf("Queues() = %v, want the partitions %v", queues, want)
		}
		for _, p := range queues {
			if st, err := s.GetQueueStats(ctx, p); err != nil || st.Counts.Ready < 50 {
				t.Errorf("GetQueueStats(%s) = %+v, %v; want a share of the 301 jobs", p, st.Counts, err)
			}
		}

		got := claimAll(t, s, "orders", 32)
		seen := map[string]bool{}
		var group []string
		for _, r := range got {
			if seen[r.ID] {
				t.Fatalf("job %s claimed twice", r.ID)
			}
			seen[r.ID] = true
			if q, _, ok := store.SplitPartition(r.Queue); !ok || q != "orders" {
				t.Fatalf("claimed record names queue %q, want a partition of orders", r.Queue)
			}
			if r.Group == "tenant-a" {
				group = append(group, r.ID)
			}
		}
		if len(got) != 301 {
			t.Fatalf("claimed %d jobs, want 301", len(got))
		}
		if !slices.IsSorted(group) || len(group) != 100 {
			t.Fatalf("group tenant-a claimed %d jobs out of order: %v", len(group), group)
		}
		reqs := make([]store.AttemptEnd, len(got))
		for i, r := range got {
			reqs[i] = store.AttemptEnd{Queue: r.Queue, ID: r.ID, Token: r.Token, Outcome: store.OutcomeAck}
		}
		errs, err := s.Finish(ctx, reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, e := range errs {
			if e != nil {
				t.Fatalf("ack of %s: %v", reqs[i].ID, e)
			}
		}
		if st, err := s.GetQueueStats(ctx, "orders"); err != nil || st.Counts != (store.StateCounts{}) {
			t.Fatalf("after acking every job: %+v, %v; want an empty queue", st.Counts, err)
		}
	})
}

// TestPartitionedQueueSpreadsOverMasters: on a three-master Cluster the
// three partitions of a queue live on three different masters.
func TestPartitionedQueueSpreadsOverMasters(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := context.Background()
	rdb := redistest.StartCluster(t).Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"hot": 3}})
	var jobs []*store.NewJob
	for i := range 60 {
		jobs = append(jobs, job("hot", fmt.Sprintf("j%d", i)))
	}
	mustEnqueue(t, s, jobs...)
	var mu sync.Mutex
	masters := map[string]string{} // master address -> partition
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error {
		keys, err := c.Keys(ctx, "{"+prefix+":hot~*}:j").Result()
		if err != nil {
			return err
		}
		if len(keys) != 1 {
			return fmt.Errorf("master %s holds the job hashes %v, want one partition's", c.Options().Addr, keys)
		}
		mu.Lock()
		defer mu.Unlock()
		masters[c.Options().Addr] = keys[0]
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(masters) != 3 {
		t.Fatalf("partitions by master: %v, want one on each of three", masters)
	}
}

// TestPartitionedQueueByID: GetJob, Cancel, WatchJob, Requeue and Delete
// of the queue find a job in whichever partition holds it; Maintain of the
// queue promotes delayed jobs of every partition; WaitReady of the queue
// wakes for a job enqueued into any partition.
func TestPartitionedQueueByID(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t, &redisstore.Config{Partitions: map[string]int{"orders": 4}})
	var jobs []*store.NewJob
	for i := range 12 {
		j := job("orders", fmt.Sprintf("d%d", i))
		j.RunAt = time.Now().Add(-time.Second) // due: Maintain promotes it
		if i%2 == 0 {
			j.RunAt = time.Now().Add(time.Hour)
		}
		jobs = append(jobs, j)
	}
	mustEnqueue(t, s, jobs...)
	for _, j := range jobs {
		r, err := s.GetJob(ctx, "orders", j.ID)
		if err != nil || r.ID != j.ID || !strings.HasPrefix(r.Queue, "orders~") {
			t.Fatalf("GetJob(orders, %s) = %+v, %v", j.ID, r, err)
		}
	}
	if _, err := s.GetJob(ctx, "orders", "nope"); !errors.Is(err, store.ErrJobNotFound) {
		t.Fatalf("GetJob of no job: %v, want ErrJobNotFound", err)
	}
	// Jobs given a RunAt in the past wait in pending until maintained.
	if _, err := s.Maintain(ctx, "orders", store.MaintainOpts{}); err != nil {
		t.Fatal(err)
	}
	st, err := s.GetQueueStats(ctx, "orders")
	if err != nil || st.Counts.Ready+st.Counts.Pending != 12 || st.Counts.Pending != 6 {
		t.Fatalf("after Maintain: %+v, %v; want 6 ready and 6 pending", st.Counts, err)
	}

	end, err := s.WatchJob(ctx, "orders", "d1")
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.CancelJob(ctx, "orders", "d1"); err != nil || st != store.StateReady {
		t.Fatalf("Cancel(orders, d1) = %q, %v; want it cancelled from ready", st, err)
	}
	select {
	case e := <-end:
		if e.Err != nil || !strings.HasPrefix(e.Job.Queue, "orders~") {
			t.Fatalf("WatchJob's end: %+v, want the job, in its partition", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WatchJob(orders, d1) saw no end after Cancel")
	}
	if n, err := s.DeleteJobs(ctx, "orders", store.StatePending, []string{"d0", "d2", "d3"}); err != nil || n != 2 {
		t.Fatalf("Delete of two pending jobs and a ready one: %d, %v; want 2", n, err)
	}
	if n, err := s.RequeueJobs(ctx, "orders", store.StatePending, nil); err != nil || n != 4 {
		t.Fatalf("Requeue of every pending job: %d, %v; want 4", n, err)
	}

	// An idle wait on the queue wakes for a job in any partition.
	if _, err := s.WaitReady(ctx, []string{"orders"}, 0); err != nil {
		t.Fatal(err)
	}
	claimAll(t, s, "orders", 100)
	woke := make(chan []string, 1)
	go func() {
		for {
			q, err := s.WaitReady(ctx, []string{"orders"}, 10*time.Second)
			if err != nil || q == nil {
				woke <- q
				return
			}
			if res, _ := s.Claim(ctx, store.ClaimOpts{Queue: "orders", Max: 1, Lease: time.Minute}); len(res.Jobs) > 0 {
				woke <- q
				return
			}
		}
	}()
	mustEnqueue(t, s, job("orders", "late"))
	if q := <-woke; !slices.Equal(q, []string{"orders"}) {
		t.Fatalf("WaitReady(orders) = %v after an enqueue, want [orders]", q)
	}
}

// TestPartitionsMustAgree: the partition count is recorded in Redis; a
// store that says otherwise fails, one that does not say takes it, and a
// queue used in one slot cannot be partitioned.
func TestPartitionsMustAgree(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Start(t).Client(t)
	prefix := redistest.Prefix(t)
	a := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"orders": 3}})
	mustEnqueue(t, a, job("orders", "a1"), job("orders", "a2"), job("plain", "p1"))

	b := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"orders": 4}})
	_, err := b.GetQueueStats(ctx, "orders")
	if !errors.Is(err, store.ErrInvalidConfig) || !strings.Contains(err.Error(), "has 3 partitions") {
		t.Fatalf("a store with another count: %v, want ErrInvalidConfig naming the recorded 3", err)
	}
	c := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"plain": 2}})
	if _, err := c.GetQueueStats(ctx, "plain"); !errors.Is(err, store.ErrInvalidConfig) {
		t.Fatalf("partitioning a queue already used: %v, want ErrInvalidConfig", err)
	}

	// A worker's store without the setting claims from the partitions,
	// and so does one that says 1, which is as leaving the queue out (it
	// was refused: "Config.Partitions says 1").
	one := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Partitions: map[string]int{"orders": 1}})
	mustEnqueue(t, one, job("orders", "a3"))
	w := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	if got := claimAll(t, w, "orders", 10); len(got) != 3 {
		t.Fatalf("a store without Partitions claimed %d jobs of orders, want 3 (one enqueued by a store saying 1)", len(got))
	}
}

// TestPartitionedQueueRefuses: what needs one slot is refused with a clear
// error, and so is a partition that does not exist.
func TestPartitionedQueueRefuses(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t, &redisstore.Config{Partitions: map[string]int{"orders": 2}})
	err := s.SetQueueConfig(ctx, "orders", store.QueueConfig{MaxRunning: 5})
	if !errors.Is(err, store.ErrInvalidConfig) {
		t.Errorf("MaxRunning on a partitioned queue: %v, want ErrInvalidConfig", err)
	}
	// A partition's own settings would part from its siblings' (and from
	// what GetQueueStats reports of the queue, the first partition's).
	for _, cfg := range []store.QueueConfig{{MaxRunning: 5}, {Paused: true}} {
		if err := s.SetQueueConfig(ctx, "orders~1", cfg); !errors.Is(err, store.ErrInvalidConfig) || !strings.Contains(fmt.Sprint(err), `set it on "orders"`) {
			t.Errorf("SetQueueConfig(orders~1, %+v): %v, want ErrInvalidConfig saying to set it on orders", cfg, err)
		}
	}
	if err := s.SetGroupLimit(ctx, "orders~1", "acme", 2); !errors.Is(err, store.ErrInvalidConfig) {
		t.Errorf("SetGroupLimit(orders~1): %v, want ErrInvalidConfig", err)
	}
	if _, err := s.CompareAndSwapQueueConfig(ctx, "orders~0", store.QueueConfig{}, store.QueueConfig{Paused: true}); !errors.Is(err, store.ErrInvalidConfig) {
		t.Errorf("CompareAndSwapQueueConfig(orders~0): %v, want ErrInvalidConfig", err)
	}
	if err := s.SetQueueConfig(ctx, "orders", store.QueueConfig{Paused: true}); err != nil {
		t.Fatalf("pausing a partitioned queue: %v", err)
	}
	mustEnqueue(t, s, job("orders", "x"), job("orders", "y"), job("orders", "z"))
	if got := claimAll(t, s, "orders", 10); len(got) != 0 {
		t.Fatalf("claimed %d jobs of a paused partitioned queue", len(got))
	}
	if _, err := s.ListJobs(ctx, store.ListJobsOpts{Queue: "orders", State: store.StateReady, Limit: 10}); !errors.Is(err, store.ErrInvalidQueue) {
		t.Errorf("ListJobs of the whole queue: %v, want ErrInvalidQueue", err)
	}
	page, err := s.ListJobs(ctx, store.ListJobsOpts{Queue: "orders~1", State: store.StateReady, Limit: 10})
	if err != nil {
		t.Errorf("ListJobs of a partition: %v", err)
	}
	if _, err := s.GetQueueStats(ctx, "orders~2"); !errors.Is(err, store.ErrInvalidQueue) {
		t.Errorf("a partition past the count: %v, want ErrInvalidQueue", err)
	}
	if _, err := s.Enqueue(ctx, []*store.NewJob{job("plain~0", "p")}); !errors.Is(err, store.ErrInvalidQueue) {
		t.Errorf("a partition of an unpartitioned queue: %v, want ErrInvalidQueue", err)
	}
	task := job("orders", "wf~a")
	task.Meta = map[string]string{store.MetaWorkflow: "wf", store.MetaTask: "a"}
	_, err = s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "wf", Tasks: []*store.NewTask{{Name: "a", Job: task}}})
	if !errors.Is(err, store.ErrInvalidJob) || !errors.Is(err, store.ErrInvalidQueue) {
		t.Errorf("a workflow task in a partitioned queue: %v, want ErrInvalidJob and ErrInvalidQueue", err)
	}
	// One "hopper:", and no hint at partitions, which are refused too.
	if msg := fmt.Sprint(err); strings.Count(msg, "hopper:") != 1 || strings.Contains(msg, "orders~") {
		t.Errorf("a workflow task in a partitioned queue: %q, want \"hopper:\" once and no partition named", msg)
	}
	task = job("orders~0", "wf2~a")
	task.Meta = map[string]string{store.MetaWorkflow: "wf2", store.MetaTask: "a"}
	_, err = s.EnqueueWorkflow(ctx, &store.NewWorkflow{ID: "wf2", Tasks: []*store.NewTask{{Name: "a", Job: task}}})
	if !errors.Is(err, store.ErrInvalidJob) || strings.Count(fmt.Sprint(err), "hopper:") != 1 {
		t.Errorf("a workflow task in a partition: %v, want ErrInvalidJob, \"hopper:\" once", err)
	}
	if _, _, _, err := s.ReadEvents(ctx, map[string]string{"orders": store.FromStart}, 10, 0); !errors.Is(err, store.ErrInvalidQueue) {
		t.Errorf("ReadEvents of the whole queue: %v, want ErrInvalidQueue", err)
	}
	_ = page
	for _, o := range []map[string]int{{"orders~1": 2}, {"orders": 0}, {"orders": store.MaxPartitions + 1}, {"bad name": 2}} {
		if err := (redisstore.Config{Partitions: o}).Validate(); !errors.Is(err, store.ErrInvalidConfig) {
			t.Errorf("Config.Partitions %v: %v, want ErrInvalidConfig", o, err)
		}
	}
}

// TestPartitionedQueueSurvivesMasterDeath: when the master of one
// partition dies, claims of the queue go on from the other partitions
// while its replica takes over, and afterwards from all three: every job
// is claimed once (the enqueue waited for the replicas).
func TestPartitionedQueueSurvivesMasterDeath(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := context.Background()
	// With Redis's default cluster-require-full-coverage yes, every master
	// refuses commands once one is marked failed, whatever the queue
	// (docs/faults.md, case 7b).
	c := redistest.StartCluster(t, redistest.Replicas(1), redistest.NodeTimeout(time.Second),
		redistest.Args("--cluster-require-full-coverage", "no"))
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix, Replicas: 1, Partitions: map[string]int{"hot": 3}})
	var jobs []*store.NewJob
	for i := range 300 {
		jobs = append(jobs, job("hot", fmt.Sprintf("j%03d", i)))
	}
	mustEnqueue(t, s, jobs...)

	// The master that holds partition 0.
	var mu sync.Mutex
	var dead string
	err := rdb.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		keys, err := n.Keys(ctx, "{"+prefix+":hot~0~*}:j").Result()
		mu.Lock()
		defer mu.Unlock()
		if len(keys) > 0 {
			dead = n.Options().Addr
		}
		return err
	})
	if err != nil || dead == "" {
		t.Fatalf("finding partition 0's master: %q, %v", dead, err)
	}
	c.KillAddr(t, dead)

	claimed := map[string]string{} // job ID -> partition
	var lastErr error
	claimSome := func() int {
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "hot", Max: 50, Lease: time.Minute, WorkerID: "w"})
		if err != nil {
			lastErr = err
			return 0
		}
		for _, r := range res.Jobs {
			if p, dup := claimed[r.ID]; dup {
				t.Fatalf("job %s claimed twice (from %s and %s)", r.ID, p, r.Queue)
			}
			claimed[r.ID] = r.Queue
		}
		return len(res.Jobs)
	}
	// Right after the kill, a claim passes over the dead partition and
	// takes jobs from the others.
	if got := claimSome(); got == 0 {
		t.Fatalf("the first claim after partition 0's master died got no job: %v", lastErr)
	}

	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c.WaitFailover(t, wctx, dead)
	deadline := time.Now().Add(30 * time.Second)
	for len(claimed) < len(jobs) && time.Now().Before(deadline) {
		if claimSome() == 0 {
			// Until the client has the new layout: wait for a wake-up or
			// 100 ms, as a worker would.
			if _, err := s.WaitReady(ctx, []string{"hot"}, 100*time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(claimed) != len(jobs) {
		t.Fatalf("after the failover: %d of %d jobs claimed (last error: %v)", len(claimed), len(jobs), lastErr)
	}
}

// claimCalls counts the claim script calls a client sends (its hook is
// note; a claim is one call, never pipelined).
type claimCalls struct {
	mu sync.Mutex
	n  int
}

func (c *claimCalls) get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func (c *claimCalls) note(cmd redis.Cmder) {
	if _, _, ok := fcallOf(cmd, "_claim"); ok {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
}

// TestPartitionedClaimAsksSignalledPartition: a claim of a queue of 16
// partitions asks the partition a wake-up named, one script call, and
// not the 15 others; the first claim of a Store, and a claim after a wait
// that brought no signal, ask every partition (jobs may be waiting that
// no wake-up this Store heard announced).
func TestPartitionedClaimAsksSignalledPartition(t *testing.T) {
	const parts = 16
	rdb := redistest.Start(t).Client(t)
	calls := &claimCalls{}
	rdb.AddHook(eachCommand(calls.note))
	s := storeOn(t, rdb, &redisstore.Config{Partitions: map[string]int{"orders": parts}})
	ctx := context.Background()
	claim := func() []*store.JobRecord {
		t.Helper()
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "orders", Max: 10, Lease: time.Minute, WorkerID: "w"})
		if err != nil {
			t.Fatal(err)
		}
		return res.Jobs
	}
	// The subscription is up (a wait of no time waits for it) and the
	// first claim has looked everywhere.
	if _, err := s.WaitReady(ctx, []string{"orders"}, 0); err != nil {
		t.Fatal(err)
	}
	if got := claim(); len(got) != 0 || calls.get() != parts {
		t.Fatalf("first claim of an empty queue: %d jobs, %d claim calls; want 0 and one per partition (%d)", len(got), calls.get(), parts)
	}
	for i := range 5 {
		mustEnqueue(t, s, job("orders", fmt.Sprintf("j%d", i)))
		// A waiting worker wakes for the job's partition.
		if got, err := s.WaitReady(ctx, []string{"orders"}, 10*time.Second); err != nil || !slices.Contains(got, "orders") {
			t.Fatalf("WaitReady(orders) = %v, %v; want orders signalled", got, err)
		}
		before := calls.get()
		if got := claim(); len(got) != 1 || calls.get()-before != 1 {
			t.Fatalf("claim after job %d was signalled: %d jobs with %d claim calls; want 1 job with 1 call", i, len(got), calls.get()-before)
		}
	}
	// The fallback: with no partition signalled, a claim asks them all.
	before := calls.get()
	if got := claim(); len(got) != 0 || calls.get()-before != parts {
		t.Fatalf("claim with no signal: %d jobs, %d claim calls; want 0 and %d", len(got), calls.get()-before, parts)
	}
}

// TestPartitionedClaimRotates: claims of one job at a time from a backlog
// in every partition visit every partition in turn (16 claims at one,
// then the next), so that none starves while the others have jobs.
func TestPartitionedClaimRotates(t *testing.T) {
	const parts = 8
	s := storeOn(t, redistest.Start(t).Client(t), &redisstore.Config{Partitions: map[string]int{"orders": parts}})
	var jobs []*store.NewJob
	for i := range parts * 40 {
		jobs = append(jobs, job("orders", fmt.Sprintf("j%03d", i)))
	}
	mustEnqueue(t, s, jobs...)
	from := map[string]int{}
	for range parts * 16 {
		res, err := s.Claim(context.Background(), store.ClaimOpts{Queue: "orders", Max: 1, Lease: time.Minute, WorkerID: "w"})
		if err != nil || len(res.Jobs) != 1 {
			t.Fatalf("Claim(orders, 1) = %d jobs, %v; want 1", len(res.Jobs), err)
		}
		from[res.Jobs[0].Queue]++
	}
	if len(from) != parts {
		t.Fatalf("%d claims of one job took from %d partitions (%v), want all %d", parts*16, len(from), from, parts)
	}
}

// TestPartitionFoundWithoutItsSignal: a partition whose wake-up was lost
// (its master frozen while its replica took over) is asked again once
// the sweep period passed, while another partition's backlog keeps that
// one marked: claims asked only the marked partitions and, with one
// always marked, never looked at the other again.
func TestPartitionFoundWithoutItsSignal(t *testing.T) {
	ctx := t.Context()
	s := storeOn(t, redistest.Start(t).Client(t), &redisstore.Config{Partitions: map[string]int{"orders": 2}})
	var busy []*store.NewJob
	lost := ""
	for i := 0; len(busy) < 100 || lost == ""; i++ {
		id := fmt.Sprintf("j%d", i)
		switch p := redisstore.PartitionIndex(id, 2); {
		case p == 1 && len(busy) < 100:
			busy = append(busy, job("orders", id))
		case p == 0 && lost == "":
			lost = id
		}
	}
	mustEnqueue(t, s, busy...)
	claim := func() []*store.JobRecord {
		t.Helper()
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "orders", Max: 1, Lease: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return res.Jobs
	}
	redisstore.SetPartitionSweep(s, time.Hour)
	claim() // the first claim asks both
	// The wait is on the lost job's partition, so that it returns with
	// that job's signal, which must come before LoseSignals: a wait on the
	// queue returned at once the first time (a first look), or with the
	// busy partition's wake-up from the claim above, and the lost job's
	// signal then came after. Its first wait, a first look, is made first.
	part := store.PartitionName("orders", redisstore.PartitionIndex(lost, 2))
	if _, err := s.WaitReady(ctx, []string{part}, 0); err != nil {
		t.Fatal(err)
	}
	mustEnqueue(t, s, job("orders", lost))
	if got, err := s.WaitReady(ctx, []string{part}, 10*time.Second); err != nil || len(got) == 0 {
		t.Fatalf("WaitReady(%s) = %v, %v; want the lost job's signal", part, got, err)
	}
	redisstore.LoseSignals(s, "orders")
	for range 40 {
		if got := claim(); len(got) != 1 || got[0].ID == lost {
			t.Fatalf("claim with the sweep an hour away: %d jobs %v; want one busy job (the lost one's partition is not marked)", len(got), got)
		}
	}
	redisstore.SetPartitionSweep(s, 0)
	for range 40 {
		if got := claim(); len(got) == 1 && got[0].ID == lost {
			return
		}
	}
	t.Fatalf("the job whose signal was lost was not claimed in 40 claims after the sweep period passed")
}

// TestListQueuesAfterFailoverCluster: a long-lived store lists its queues
// again soon after the master holding the registry died and its replica
// took over: the registry's read (a plain SMEMBERS) has the client reload
// the cluster's layout, as a script does. It failed against the dead
// master's address for up to a minute, and the dashboard's pages with it.
func TestListQueuesAfterFailoverCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	ctx := t.Context()
	c := redistest.StartCluster(t, redistest.Private(), redistest.Replicas(1), redistest.NodeTimeout(time.Second))
	rdb := c.Client(t)
	prefix := redistest.Prefix(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	mustEnqueue(t, s, job("q", "a"))
	if qs, err := s.ListQueues(ctx); err != nil || !slices.Contains(qs, "q") {
		t.Fatalf("ListQueues before: %v, %v", qs, err)
	}
	slot, err := rdb.ClusterKeySlot(ctx, "{"+prefix+"}:queues").Result()
	if err != nil {
		t.Fatal(err)
	}
	dead := c.MasterForSlot(t, int(slot))
	c.KillAddr(t, dead)
	_, promoted := c.WaitFailover(t, ctx, dead)
	testutil.Eventually(t, 10*time.Second, func() error {
		qs, err := s.ListQueues(ctx)
		if err == nil && !slices.Contains(qs, "q") {
			err = fmt.Errorf("q not listed: %v", qs)
		}
		return err
	})
	t.Logf("listed again %v after the promotion", time.Since(promoted).Round(time.Millisecond))
}
