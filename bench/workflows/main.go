// Command workflows measures hopper's workflows on Redis: how soon a
// fan-in starts after its last dependency, and the Redis CPU a workflow
// task costs next to a plain job. Run it from the repository root with
//
//	go run -C bench ./workflows -redis 127.0.0.1:6379
//
// against a Redis server of its own (it flushes nothing, but it measures
// the server's whole CPU, so nothing else should use it).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/bench/internal/servercpu"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

type Leaf struct{ N int }
type Join struct{}

// Step is a plain job that enqueues the next step of its chain until Left
// steps ran: how chains are built without workflows.
type Step struct{ Left int }

func (Leaf) Kind() string { return "bench.leaf" }
func (Join) Kind() string { return "bench.join" }
func (Step) Kind() string { return "bench.step" }

// Spawn is a workflow task whose handler adds one task (a Leaf into queue
// "idle", which no worker serves) to its workflow, and reports how long
// the addition took.
type Spawn struct{}

func (Spawn) Kind() string { return "bench.spawn" }

// WideSpawn is a workflow task whose handler adds N tasks (Leafs into
// queue "idle") to its workflow in one EnqueueTasks: a fan-out learnt at
// run time, which Redis stores in one step.
type WideSpawn struct{ N int }

func (WideSpawn) Kind() string { return "bench.widespawn" }

func main() {
	addr := flag.String("redis", "127.0.0.1:6379", "Redis server (measured as a whole: use one of its own)")
	width := flag.Int("width", 10000, "tasks of the fan-out")
	runs := flag.Int("runs", 20, "fan-in runs")
	conc := flag.Int("concurrency", 64, "worker slots")
	flag.BoolVar(&showCommands, "commands", false, "print each CPU phase's costliest commands (INFO commandstats; resets the server's stats)")
	flag.BoolVar(&showScripts, "scripts", false, "print each CPU phase's script calls by script, with the commands each ran (SLOWLOG at threshold 0, which inflates the CPU figures of the run)")
	flag.Parse()
	if err := run(*addr, *width, *runs, *conc); err != nil {
		fmt.Fprintln(os.Stderr, "workflows:", err)
		os.Exit(1)
	}
}

// showCommands makes cpuOf print each phase's costliest commands;
// showScripts its script calls by script.
var showCommands, showScripts bool

// tracker keeps, per run, when the last leaf's handler returned and when
// the join started.
type tracker struct {
	lastLeaf atomic.Int64 // unix ns
	leaves   atomic.Int64 // leaf handler runs
	join     chan int64
	added    chan time.Duration // a Spawn handler's EnqueueTasks call
}

func run(addr string, width, runs, conc int) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rdb := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 4 * conc})
	defer rdb.Close()
	prefix := "wfbench" + strconv.FormatInt(time.Now().UnixNano(), 36)
	st := redisstore.New(rdb, &redisstore.Config{Prefix: prefix})
	client := hopper.NewClient(st, nil)
	tr := &tracker{join: make(chan int64, 1), added: make(chan time.Duration, 1)}
	w := hopper.NewWorker(st, &hopper.WorkerConfig{Queues: map[string]int{"leaf": 1, "join": 1, "plain": 1}, Concurrency: conc})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Leaf]) error {
		now := time.Now().UnixNano()
		tr.leaves.Add(1)
		for {
			old := tr.lastLeaf.Load()
			if now <= old || tr.lastLeaf.CompareAndSwap(old, now) {
				break
			}
		}
		return nil
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Step]) error {
		defer tr.leaves.Add(1)
		if job.Args.Left <= 1 {
			return nil
		}
		_, err := hopper.Enqueue(ctx, client, Step{Left: job.Args.Left - 1}, &hopper.EnqueueOpts{Queue: "plain"})
		return err
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Spawn]) error {
		more := hopper.MoreTasks(ctx)
		hopper.AddTask(more, "added", Leaf{}, &hopper.TaskOpts{Queue: "idle"})
		start := time.Now()
		err := hopper.EnqueueTasks(ctx, client, more)
		tr.added <- time.Since(start)
		return err
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[WideSpawn]) error {
		more := hopper.MoreTasks(ctx)
		for i := range job.Args.N {
			hopper.AddTask(more, "added-"+strconv.Itoa(i), Leaf{N: i}, &hopper.TaskOpts{Queue: "idle"})
		}
		start := time.Now()
		err := hopper.EnqueueTasks(ctx, client, more)
		tr.added <- time.Since(start)
		return err
	})
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[Join]) error {
		tr.join <- time.Now().UnixNano()
		return nil
	})
	var wg sync.WaitGroup
	wg.Go(func() { _ = w.Run(ctx) })
	defer wg.Wait()
	defer cancel()

	// Fan-in latency: a fan-out of width leaves, then one join.
	var lat []time.Duration
	for r := range runs {
		tr.lastLeaf.Store(0)
		wf := hopper.NewWorkflow("fan-in", &hopper.WorkflowOpts{ID: fmt.Sprintf("fanin-%d", r)})
		join := hopper.AddTask(wf, "join", Join{}, &hopper.TaskOpts{Queue: "join"})
		for i := range width {
			join.After(hopper.AddTask(wf, "leaf-"+strconv.Itoa(i), Leaf{N: i}, &hopper.TaskOpts{Queue: "leaf"}))
		}
		if _, err := hopper.EnqueueWorkflow(ctx, client, wf); err != nil {
			return err
		}
		select {
		case at := <-tr.join:
			lat = append(lat, time.Duration(at-tr.lastLeaf.Load()))
		case <-time.After(2 * time.Minute):
			return fmt.Errorf("run %d: the join did not start", r)
		}
	}
	slices.Sort(lat)
	fmt.Printf("fan-out of %d then a fan-in, %d runs: from the last leaf's handler return to the join's start: p50 %v, p99 %v, max %v\n",
		width, runs, lat[len(lat)/2].Round(10*time.Microsecond), lat[(len(lat)*99-1)/100].Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))

	// Redis CPU: plain jobs, then the same number of workflow tasks as
	// a fan-out and as chains of 10.
	n := width
	plain, err := cpuOf(ctx, rdb, "plain", n, func() error {
		leaves := make([]Leaf, n)
		if _, err := hopper.EnqueueMany(ctx, client, leaves, &hopper.EnqueueOpts{Queue: "plain"}); err != nil {
			return err
		}
		return waitEmpty(ctx, st, "plain")
	})
	if err != nil {
		return err
	}
	// Each workflow phase ends when its last task's handler returned and
	// its queues are empty (acked); the workflows' states are checked after
	// the measurement, so that the waiting costs nothing measured.
	var fanID string
	fan, err := cpuOf(ctx, rdb, "fan-out", n, func() error {
		wf := hopper.NewWorkflow("cpu fan-out", nil)
		join := hopper.AddTask(wf, "join", Join{}, &hopper.TaskOpts{Queue: "join"})
		for i := range n - 1 {
			join.After(hopper.AddTask(wf, "leaf-"+strconv.Itoa(i), Leaf{N: i}, &hopper.TaskOpts{Queue: "leaf"}))
		}
		info, err := hopper.EnqueueWorkflow(ctx, client, wf)
		if err != nil {
			return err
		}
		fanID = info.ID
		<-tr.join
		return waitEmpty(ctx, st, "join")
	})
	if err != nil {
		return err
	}
	if err := succeeded(ctx, st, fanID); err != nil {
		return err
	}
	var ids []string
	tr.leaves.Store(0)
	chains, err := cpuOf(ctx, rdb, "workflow chains", n, func() error {
		for c := range n / 10 {
			wf := hopper.NewWorkflow("cpu chain", nil)
			var steps []*hopper.Task
			for i := range 10 {
				steps = append(steps, hopper.AddTask(wf, "step-"+strconv.Itoa(i), Leaf{N: c}, &hopper.TaskOpts{Queue: "leaf"}))
			}
			wf.Chain(steps...)
			info, err := hopper.EnqueueWorkflow(ctx, client, wf)
			if err != nil {
				return err
			}
			ids = append(ids, info.ID)
		}
		for tr.leaves.Load() < int64(n/10*10) {
			time.Sleep(5 * time.Millisecond)
		}
		return waitEmpty(ctx, st, "leaf")
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := succeeded(ctx, st, id); err != nil {
			return err
		}
	}
	// The same chains of plain jobs, each step's handler enqueueing the
	// next (what a chain costs without workflows, and without their
	// guarantee: a process dying between a step's ack and its enqueue ends
	// the chain).
	tr.leaves.Store(0)
	plainChains, err := cpuOf(ctx, rdb, "plain chains", n, func() error {
		heads := make([]Step, n/10)
		for i := range heads {
			heads[i].Left = 10
		}
		if _, err := hopper.EnqueueMany(ctx, client, heads, &hopper.EnqueueOpts{Queue: "plain"}); err != nil {
			return err
		}
		for tr.leaves.Load() < int64(n/10*10) {
			time.Sleep(5 * time.Millisecond)
		}
		return waitEmpty(ctx, st, "plain")
	})
	if err != nil {
		return err
	}
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(n) }
	fmt.Printf("Redis CPU per job, enqueue to ack, %d jobs: plain %.1f µs; workflow task in a fan-out %.1f µs (%.2f×)\n",
		n, per(plain), per(fan), per(fan)/per(plain))
	fmt.Printf("in chains of 10: plain jobs, each handler enqueueing the next, %.1f µs; workflow tasks %.1f µs (%.2f×)\n",
		per(plainChains), per(chains), per(chains)/per(plainChains))
	if err := enqueueLatency(ctx, rdb, client); err != nil {
		return err
	}
	if err := addLatency(ctx, client, tr); err != nil {
		return err
	}
	return addWide(ctx, rdb, client, tr, width)
}

// addWide measures an EnqueueTasks of width tasks from a running task:
// the call, and the longest script Redis ran meanwhile (SLOWLOG), which
// every other client of the server waited for.
func addWide(ctx context.Context, rdb *redis.Client, client *hopper.Client, tr *tracker, width int) error {
	old, err := rdb.ConfigGet(ctx, "slowlog-log-slower-than").Result()
	if err != nil {
		return err
	}
	if err := rdb.ConfigSet(ctx, "slowlog-log-slower-than", "1000").Err(); err != nil {
		return err
	}
	defer rdb.ConfigSet(ctx, "slowlog-log-slower-than", old["slowlog-log-slower-than"])
	if err := rdb.Do(ctx, "SLOWLOG", "RESET").Err(); err != nil {
		return err
	}
	wf := hopper.NewWorkflow("add wide", nil)
	hopper.AddTask(wf, "spawn", WideSpawn{N: width}, &hopper.TaskOpts{Queue: "leaf"})
	if _, err := hopper.EnqueueWorkflow(ctx, client, wf); err != nil {
		return err
	}
	var call time.Duration
	select {
	case call = <-tr.added:
	case <-time.After(time.Minute):
		return fmt.Errorf("a WideSpawn task did not add its tasks within a minute")
	}
	logs, err := rdb.SlowLogGet(ctx, -1).Result()
	if err != nil {
		return err
	}
	var longest time.Duration
	for _, l := range logs {
		longest = max(longest, l.Duration)
	}
	fmt.Printf("EnqueueTasks of %d tasks from a running task: the call %v, the longest script meanwhile %v (SLOWLOG)\n",
		width, call.Round(time.Millisecond), longest.Round(100*time.Microsecond))
	return nil
}

// addLatency measures EnqueueTasks from a running task, one workflow
// after the other: each has one Spawn task, whose handler adds a task into
// a queue no worker serves.
func addLatency(ctx context.Context, client *hopper.Client, tr *tracker) error {
	const calls = 1000
	lat := make([]time.Duration, 0, calls)
	for range calls {
		wf := hopper.NewWorkflow("add latency", nil)
		hopper.AddTask(wf, "spawn", Spawn{}, &hopper.TaskOpts{Queue: "leaf"})
		if _, err := hopper.EnqueueWorkflow(ctx, client, wf); err != nil {
			return err
		}
		select {
		case d := <-tr.added:
			lat = append(lat, d)
		case <-time.After(10 * time.Second):
			return fmt.Errorf("a Spawn task did not run within 10 s")
		}
	}
	slices.Sort(lat)
	fmt.Printf("EnqueueTasks of one task from a running task, %d calls one after the other: p50 %v, p99 %v\n",
		calls, lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond))
	return nil
}

// enqueueLatency measures EnqueueWorkflow alone, one call after the
// other, into a queue no worker serves: workflows of one task, and chains
// of 10 (one root). It prints each call's latency (p50, p99) and the
// Redis CPU per call.
func enqueueLatency(ctx context.Context, rdb *redis.Client, client *hopper.Client) error {
	const calls = 2000
	for _, width := range []int{1, 10} {
		lat := make([]time.Duration, 0, calls)
		cpu, err := cpuOf(ctx, rdb, fmt.Sprintf("EnqueueWorkflow of %d", width), calls, func() error {
			for c := range calls {
				wf := hopper.NewWorkflow("latency", nil)
				var steps []*hopper.Task
				for i := range width {
					steps = append(steps, hopper.AddTask(wf, "step-"+strconv.Itoa(i), Leaf{N: c}, &hopper.TaskOpts{Queue: "idle"}))
				}
				wf.Chain(steps...)
				start := time.Now()
				if _, err := hopper.EnqueueWorkflow(ctx, client, wf); err != nil {
					return err
				}
				lat = append(lat, time.Since(start))
			}
			return nil
		})
		if err != nil {
			return err
		}
		slices.Sort(lat)
		fmt.Printf("EnqueueWorkflow, %d task(s) in a chain, %d calls one after the other: p50 %v, p99 %v; Redis CPU %.1f µs a call\n",
			width, calls, lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)*99/100].Round(time.Microsecond), float64(cpu.Microseconds())/calls)
	}
	return nil
}

// cpuOf returns the Redis server's CPU time (user + system) spent while f
// runs. With -commands it also prints the phase's costliest commands per
// job of n; with -scripts its script calls by script.
func cpuOf(ctx context.Context, rdb *redis.Client, phase string, n int, f func() error) (time.Duration, error) {
	if showScripts {
		restore, err := servercpu.StartScripts(ctx, rdb)
		if err != nil {
			return 0, err
		}
		defer func() {
			if stats, err := servercpu.Scripts(ctx, rdb); err == nil {
				fmt.Printf("%s, script calls per job:\n%s", phase, servercpu.ScriptsPerJob(stats, n))
			}
			restore()
		}()
	}
	if showCommands {
		if err := rdb.ConfigResetStat(ctx).Err(); err != nil {
			return 0, err
		}
	}
	before, err := servercpu.Read(ctx, rdb)
	if err != nil {
		return 0, err
	}
	if err := f(); err != nil {
		return 0, err
	}
	after, err := servercpu.Read(ctx, rdb)
	if err == nil && showCommands {
		stats, err := servercpu.CommandStats(ctx, rdb)
		if err != nil {
			return 0, err
		}
		fmt.Printf("%s, per job:%s\n", phase, servercpu.PerJob(stats, n, 8))
	}
	return after - before, err
}

// waitEmpty waits until queue has nothing ready, running or pending.
func waitEmpty(ctx context.Context, st *redisstore.Store, queue string) error {
	for {
		s, err := st.GetQueueStats(ctx, queue)
		if err != nil {
			return err
		}
		if c := s.Counts; c.Ready+c.Unack+c.Pending+c.Retry == 0 {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// succeeded waits for workflow id to end and checks that it succeeded.
func succeeded(ctx context.Context, st *redisstore.Store, id string) error {
	_, err := hopper.NewClient(st, nil).WaitWorkflow(ctx, id)
	return err
}
