package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

type latencyArgs struct{ N int }

// enq holds the durations of the Enqueue calls of TestWakeLatencyCluster,
// by mode.
var enq map[string][]time.Duration

func (latencyArgs) Kind() string { return "latency" }

// TestWakeLatencyCluster measures enqueue→start latency on a three-master
// Cluster, wake-ups on classic channels and on shard channels, in
// alternating rounds of the same run: a worker serving six queues (two
// per master), a producer sending HOPPER_WAKE_LATENCY jobs a second over
// them. A measure, not a test: it runs only when HOPPER_WAKE_LATENCY is
// set, and logs p50, p99 and max of each.
func TestWakeLatencyCluster(t *testing.T) {
	rate, _ := strconv.Atoi(os.Getenv("HOPPER_WAKE_LATENCY"))
	if rate <= 0 {
		t.Skip("set HOPPER_WAKE_LATENCY=<jobs per second> to measure")
	}
	rounds, per := 4, 5*time.Second // 2 x 10 s per mode
	if v, _ := strconv.Atoi(os.Getenv("HOPPER_WAKE_ROUNDS")); v > 0 {
		rounds = v
	}
	c := redistest.StartCluster(t, redistest.Private())
	lat := map[string][]time.Duration{}
	bus := map[string]int64{}
	cpu := map[string]float64{}
	enq = map[string][]time.Duration{}
	for r := range rounds {
		for _, mode := range []string{"classic", "shard"} {
			if r%2 == 1 { // alternate which goes first
				mode = map[string]string{"classic": "shard", "shard": "classic"}[mode]
			}
			before, cpu0 := busPublishes(t, c), clusterCPU(t, c)
			lat[mode] = append(lat[mode], latencyRound(t, c, mode, rate, per, fmt.Sprintf("%s-%d", mode, r))...)
			bus[mode] += busPublishes(t, c) - before
			cpu[mode] += clusterCPU(t, c) - cpu0
		}
	}
	for _, mode := range []string{"classic", "shard"} {
		d := lat[mode]
		slices.Sort(d)
		if len(d) == 0 {
			t.Fatalf("%s: no job started", mode)
		}
		q := func(p float64) time.Duration { return d[min(len(d)-1, int(p*float64(len(d))))] }
		t.Logf("%-7s enqueue→start: jobs=%d p50=%v p90=%v p99=%v max=%v", mode, len(d), q(0.50), q(0.90), q(0.99), d[len(d)-1])
		d = enq[mode]
		slices.Sort(d)
		t.Logf("%-7s the Enqueue call alone: p50=%v p99=%v", mode, q(0.50), q(0.99))
		t.Logf("%-7s pub/sub messages over the cluster bus: %.2f per job; redis-server CPU, all nodes: %.0f µs per job", mode,
			float64(bus[mode])/float64(len(d)), cpu[mode]*1e6/float64(len(d)))
	}
}

// busPublishes returns the pub/sub messages (classic and shard) the
// nodes of c sent one another over the cluster bus so far.
func busPublishes(t *testing.T, c *redistest.Cluster) int64 {
	var total int64
	for _, addr := range c.AllAddrs() {
		node := redis.NewClient(&redis.Options{Addr: addr})
		info, err := node.ClusterInfo(t.Context()).Result()
		node.Close()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(info) {
			k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
			if k == "cluster_stats_messages_publish_sent" || k == "cluster_stats_messages_publishshard_sent" {
				n, _ := strconv.ParseInt(v, 10, 64)
				total += n
			}
		}
	}
	return total
}

// clusterCPU returns the CPU time (user and system, in seconds) the nodes
// of c used so far.
func clusterCPU(t *testing.T, c *redistest.Cluster) float64 {
	var total float64
	for _, addr := range c.AllAddrs() {
		node := redis.NewClient(&redis.Options{Addr: addr})
		info, err := node.Info(t.Context(), "cpu").Result()
		node.Close()
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(info) {
			k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
			if k == "used_cpu_sys" || k == "used_cpu_user" {
				f, _ := strconv.ParseFloat(v, 64)
				total += f
			}
		}
	}
	return total
}

// latencyRound runs one round of mode and returns each job's latency.
func latencyRound(t *testing.T, c *redistest.Cluster, mode string, rate int, dur time.Duration, name string) []time.Duration {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	prefix := redistest.Prefix(t) + name
	rdb := c.Client(t)
	all := perMaster(t, c, rdb, prefix, 2)
	wst := redisstore.New(c.Client(t), &redisstore.Config{Prefix: prefix})
	pst := redisstore.New(c.Client(t), &redisstore.Config{Prefix: prefix})
	if mode == "classic" {
		redisstore.ClassicWakeUps(wst)
		redisstore.ClassicWakeUps(pst)
	}
	var mu sync.Mutex
	sent := map[int]time.Time{}
	var lats []time.Duration
	w := hopper.NewWorker(wst, &hopper.WorkerConfig{Queues: weights(all), Concurrency: 32})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[latencyArgs]) error {
		now := time.Now()
		mu.Lock()
		if at, ok := sent[j.Args.N]; ok {
			lats = append(lats, now.Sub(at))
		}
		mu.Unlock()
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	client := hopper.NewClient(pst, nil)
	// Warm up: one job per queue, not counted.
	for _, q := range all {
		if _, err := hopper.Enqueue(ctx, client, latencyArgs{N: -1}, &hopper.EnqueueOpts{Queue: q}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second) // a measure's warm-up, not a synchronisation
	tick := time.NewTicker(time.Second / time.Duration(rate))
	defer tick.Stop()
	end := time.Now().Add(dur)
	var wg sync.WaitGroup
	for i := 0; time.Now().Before(end); i++ {
		<-tick.C
		q := all[i%len(all)]
		wg.Go(func() {
			mu.Lock()
			sent[i] = time.Now()
			mu.Unlock()
			t0 := time.Now()
			if _, err := hopper.Enqueue(ctx, client, latencyArgs{N: i}, &hopper.EnqueueOpts{Queue: q}); err != nil {
				t.Error(err)
			}
			mu.Lock()
			enq[mode] = append(enq[mode], time.Since(t0))
			mu.Unlock()
		})
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // the last jobs start
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if len(lats) < len(sent)*9/10 {
		t.Errorf("%s: %d of %d jobs started", name, len(lats), len(sent))
	}
	return lats
}

// weights gives each of queues the weight 1.
func weights(queues []string) map[string]int {
	m := map[string]int{}
	for _, q := range queues {
		m[q] = 1
	}
	return m
}
