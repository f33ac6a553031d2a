package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
)

// TestPartitionedQueueOnCluster: a worker serves a queue of three
// partitions on a three-master Cluster, one per master. Every job runs,
// failed attempts are retried (the Scheduler promotes them in whichever
// partition holds them), and handlers see the partition in Job.Queue.
func TestPartitionedQueueOnCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster in -short mode")
	}
	rdb := redistest.StartCluster(t).Client(t)
	prefix := redistest.Prefix(t)
	producer := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, Logger: testutil.Logger(),
		Partitions: map[string]int{"hot": 3}})
	// The worker's store names no partitions: it reads them from Redis.
	worker := redisstore.New(rdb, &redisstore.Config{Prefix: prefix, Logger: testutil.Logger()})
	ctx := context.Background()
	client := hopper.NewClient(producer, nil)
	const n = 90
	args := make([]Echo, n)
	for i := range args {
		args[i] = Echo{N: i}
	}
	if _, err := hopper.EnqueueMany(ctx, client, args, &hopper.EnqueueOpts{Queue: "hot", MaxRetries: 1}); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	ran := map[string]int{}    // job ID -> attempts
	queues := map[string]int{} // Job.Queue -> jobs
	done := make(chan struct{})
	w := hopper.NewWorker(worker, testConfig("hot"))
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		mu.Lock()
		defer mu.Unlock()
		ran[j.ID]++
		if ran[j.ID] == 1 {
			return errors.New("first attempt fails")
		}
		queues[j.Queue]++
		if len(ran) == n && sum(queues) == n {
			close(done)
		}
		return nil
	})
	startWorker(t, w)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("after 30 s: %d jobs started, %d succeeded on their retry", len(ran), sum(queues))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(queues) != 3 {
		t.Fatalf("jobs by Job.Queue: %v, want the three partitions", queues)
	}
	for q := range queues {
		if !strings.HasPrefix(q, "hot~") {
			t.Fatalf("Job.Queue %q, want a partition of hot", q)
		}
	}
	st, err := hopper.NewInspector(worker).GetQueueStats(ctx, "hot")
	if err != nil {
		t.Fatal(err)
	}
	if st.Counts.Ready+st.Counts.Retry+st.Counts.Pending+st.Counts.Garbage != 0 {
		t.Fatalf("GetQueueStats(hot) after every job succeeded: %+v", st.Counts)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// scriptCounter counts the scripts a client calls, by name.
type scriptCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *scriptCounter) count(cmds ...redis.Cmder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cmd := range cmds {
		if a := cmd.Args(); len(a) > 1 && cmd.Name() == "fcall" {
			name := fmt.Sprint(a[1])
			c.n[name[strings.LastIndexByte(name, '_')+1:]]++
		}
	}
}

func (c *scriptCounter) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

func (c *scriptCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *scriptCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { c.count(cmd); return next(ctx, cmd) }
}
func (c *scriptCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { c.count(cmds...); return next(ctx, cmds) }
}

// TestDrainMaintainsLittle: draining a backlog costs the Scheduler a
// handful of Maintain calls, partitioned or not. Each partition's leases
// run out between two visits of the worker's claims; that used to wake
// the Scheduler each time (two passes per visit, hundreds per drain).
func TestDrainMaintainsLittle(t *testing.T) {
	for _, parts := range []int{1, 3} {
		t.Run(fmt.Sprintf("partitions=%d", parts), func(t *testing.T) {
			rdb := redistest.Start(t).Client(t)
			calls := &scriptCounter{n: map[string]int{}}
			rdb.AddHook(calls)
			st := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger(),
				Partitions: map[string]int{"hot": parts}})
			ctx := context.Background()
			const n = 20000
			args := make([]Echo, n)
			for i := range args {
				args[i] = Echo{N: i}
			}
			client := hopper.NewClient(st, nil)
			for i := 0; i < n; i += 1000 {
				if _, err := hopper.EnqueueMany(ctx, client, args[i:i+1000], &hopper.EnqueueOpts{Queue: "hot"}); err != nil {
					t.Fatal(err)
				}
			}
			var ran atomic.Int64
			done := make(chan struct{})
			cfg := testConfig("hot")
			cfg.Concurrency = 32
			cfg.Lease = time.Minute
			w := hopper.NewWorker(st, cfg)
			hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
				if ran.Add(1) == n {
					close(done)
				}
				return nil
			})
			before := calls.get("maintain")
			began := time.Now()
			stop := startWorker(t, w)
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				t.Fatalf("%d of %d jobs ran in 60 s", ran.Load(), n)
			}
			stop()
			// At start one pass per partition, one for the first claim onto
			// each, one when its last lease is gone: a few per partition,
			// whatever the backlog (before: 12-16 and 94-102). And one per
			// partition in each new minute the drain reaches: a queue with
			// jobs ready is sampled once a minute for its history (a drain
			// of 7 s under the race detector on a slow machine crossed one,
			// and made 15 calls).
			m := calls.get("maintain") - before
			minutes := int(time.Now().Truncate(time.Minute).Sub(began.Truncate(time.Minute)) / time.Minute)
			if most := 4*parts + 2 + minutes*parts; m > most {
				t.Fatalf("%d Maintain calls to drain %d jobs over %d partitions in %v, want at most %d", m, n, parts, time.Since(began).Round(time.Millisecond), most)
			}
		})
	}
}

// TestIdleClaimOfPartitionedQueue: an idle worker on a queue of 16
// partitions claims a job enqueued into it from the partition the wake-up
// named, a claim call or two per job, not one per partition (before: 16
// per job, every partition asked in turn until the batch was full).
func TestIdleClaimOfPartitionedQueue(t *testing.T) {
	const parts, jobs = 16, 8
	rdb := redistest.Start(t).Client(t)
	calls := &scriptCounter{n: map[string]int{}}
	rdb.AddHook(calls)
	st := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), Logger: testutil.Logger(),
		Partitions: map[string]int{"hot": parts}})
	ran := make(chan struct{}, 1)
	cfg := testConfig("hot")
	cfg.IdleWait = time.Minute // no fallback sweep while the test runs
	w := hopper.NewWorker(st, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		ran <- struct{}{}
		return nil
	})
	ctx := context.Background()
	// The Store's subscription is up before the worker starts (a wait of
	// no time waits for it), so that its confirmation, after which every
	// partition gets one look, does not come in the rounds counted.
	if _, err := st.WaitReady(ctx, []string{"hot"}, 0); err != nil {
		t.Fatal(err)
	}
	startWorker(t, w)
	client := hopper.NewClient(st, nil)
	// The first jobs wait out the worker's start, when every partition
	// gets a look or two (the Store's first claim, the worker's first
	// wait).
	runOne := func(i int) {
		t.Helper()
		if _, err := hopper.Enqueue(ctx, client, Echo{N: i}, &hopper.EnqueueOpts{Queue: "hot"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ran:
		case <-time.After(10 * time.Second):
			t.Fatalf("job %d did not run in 10 s", i)
		}
	}
	for i := 0; ; i++ {
		before := calls.get("claim")
		runOne(-1)
		if calls.get("claim")-before <= 2 {
			break
		}
		if i == 3 {
			t.Fatalf("%d claim calls for a job after the start, want a few", calls.get("claim")-before)
		}
	}
	// The Store marks every partition again every 5 s (the fallback
	// against a lost signal), and the round that spans that moment asks
	// each once more: a round over the bound is measured again, once (a
	// clean CI run saw 24 calls, 8 and a sweep's 16).
	for round := 0; ; round++ {
		before := calls.get("claim")
		for i := range jobs {
			runOne(i)
		}
		got := calls.get("claim") - before
		if got <= 2*jobs {
			break
		}
		if round == 1 {
			t.Fatalf("%d claim calls to run %d jobs enqueued one at a time into an idle worker's queue of %d partitions, want at most %d",
				got, jobs, parts, 2*jobs)
		}
	}
}
