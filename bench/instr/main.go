// Command instr drives one Redis server with hopper or asynq so that
// callgrind.sh can count the instructions redis-server spends per job:
// lone enqueues (one job per call from one goroutine), or the drain of
// the jobs a previous run enqueued. Instruction counts do not move with
// the machine's load, so they compare versions where wall clocks cannot.
//
//	go build -o /tmp/instr ./instr && ./instr/callgrind.sh /tmp/instr hopper 1000
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// instrArgs are the arguments of a job: a 72-byte payload, as the
// benchmark's.
type instrArgs struct {
	P []byte `msgpack:"p"`
}

// Kind names the job's handler.
func (instrArgs) Kind() string { return "bench" }

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "the Redis server")
	n := flag.Int("n", 1000, "jobs")
	sys := flag.String("sys", "hopper", "hopper or asynq; or ping, one PING a call instead of an enqueue: the round trip every call pays, from one goroutine (go-redis); or floor-store, floor-clock, floor-mark, floor-marks, the least a script that enqueues one job can do (floor.go)")
	drain := flag.Bool("drain", false, "drain the queue with a worker (concurrency 32) instead of enqueueing")
	eventsOff := flag.Bool("events-off", false, "hopper: turn queue q's events off first (QueueConfig.EventsMaxLen -1)")
	payload := flag.Int("payload", 72, "bytes of each job's payload")
	workflow := flag.Bool("workflow", false, "hopper: enqueue the n jobs as the tasks of one workflow, without dependencies (a fan-out; with callgrind.sh's drain, what finishing workflow tasks costs)")
	chains := flag.Bool("chains", false, "hopper: enqueue the n jobs as workflows of 10 tasks in a chain (with callgrind.sh's drain, what a chain step costs)")
	fanin := flag.Bool("fanin", false, "hopper, with -workflow: add a task in queue \"join\" that waits for the n tasks (a fan-out and fan-in: each task's end then counts down its dependent's)")
	batch := flag.Int("batch", 1, "hopper: jobs per EnqueueMany call (1: one Enqueue a job), the shape of the calls the enqueue batcher merges concurrent Enqueues into")
	steps := flag.Int("steps", 0, "hopper, with -drain (ignored without): claim and finish through the store directly, this many jobs a claim, one step after the other, instead of a Worker: the same scripts with batches of a fixed size, so counts repeat exactly")
	memprofile := flag.String("memprofile", "", "write this process's allocation profile to `FILE` at the end")
	cpuprofile := flag.String("cpuprofile", "", "write this process's CPU profile to `FILE` (the client's side of the run)")
	traceFile := flag.String("trace", "", "write this process's execution trace to `FILE` (go tool trace: when each goroutine ran, blocked and woke)")
	groups := flag.Int("groups", 0, "hopper: spread the enqueue calls over this many groups (EnqueueOpts.Group), call i to group i mod groups; 0: no groups. With callgrind.sh's drain and -steps, what a grouped claim and finish cost")
	priority := flag.Int("priority", 0, "hopper: enqueue every job at this priority (EnqueueOpts.Priority, -3 to 3), which gives the queue priority levels. With callgrind.sh's drain and -steps, what a claim and finish of a queue with priorities cost")
	producers := flag.Int("producers", 1, "goroutines sharing the n enqueue calls (8: the shared harness's W1, whose concurrent Enqueues hopper's batcher merges)")
	flag.Parse()
	if *cpuprofile != "" {
		record(*cpuprofile, pprof.StartCPUProfile)
		defer pprof.StopCPUProfile()
	}
	if *traceFile != "" {
		record(*traceFile, trace.Start)
		defer trace.Stop()
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 4096
		defer func() {
			f, err := os.Create(*memprofile)
			if err != nil {
				log.Fatal(err)
			}
			if err := pprof.WriteHeapProfile(f); err != nil {
				log.Fatal(err)
			}
			f.Close()
		}()
	}
	_, floor := floorSystems[*sys]
	enqueueOnly := *sys == "ping" || floor // no queue to drain
	if !(*sys == "hopper" || *sys == "asynq" || enqueueOnly) || (enqueueOnly && *drain) {
		log.Fatalf("-sys %q: want hopper or asynq, or ping or a floor-* without -drain", *sys)
	}
	if *producers < 1 || (*producers > 1 && (*drain || *workflow || *chains)) {
		log.Fatalf("-producers %d: want 1, or more for enqueues of single jobs or batches", *producers)
	}
	if *batch < 1 || (*batch > 1 && *sys != "hopper") {
		log.Fatalf("-batch %d: want 1, or more with hopper (asynq enqueues one job a call)", *batch)
	}
	if *eventsOff && *sys == "hopper" {
		insp := hopper.NewInspector(redisstore.New(redis.NewClient(&redis.Options{Addr: *addr}), nil))
		err := insp.UpdateQueueConfig(context.Background(), "q", func(c *hopper.QueueConfig) error {
			c.EventsMaxLen = -1
			return nil
		})
		if err != nil {
			log.Fatal(err)
		}
	}
	start := time.Now()
	if (*workflow || *chains) && *sys != "hopper" {
		log.Fatalf("-workflow, -chains: hopper only")
	}
	if *fanin && !*workflow {
		log.Fatalf("-fanin: with -workflow only")
	}
	if *steps > 0 && *sys != "hopper" {
		log.Fatalf("-steps: hopper only")
	}
	if *groups < 0 || (*groups > 0 && (*sys != "hopper" || *workflow || *chains)) {
		log.Fatalf("-groups %d: want 0, or more with hopper's plain jobs", *groups)
	}
	if *priority != 0 && (*sys != "hopper" || *workflow || *chains) {
		log.Fatalf("-priority %d: with hopper's plain jobs only", *priority)
	}
	if *drain && *steps > 0 {
		if err := drainSteps(*addr, *n, *steps); err != nil {
			log.Fatal(err)
		}
	} else if *drain {
		drainQueue(*addr, *sys, *n)
	} else if *workflow || *chains {
		if err := enqueueWorkflows(*addr, *n, *payload, *chains, *fanin); err != nil {
			log.Fatal(err)
		}
	} else if err := enqueue(*addr, *sys, *n, *payload, *batch, *producers, *groups, *priority); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d jobs in %v\n", *sys, *n, time.Since(start))
}

// enqueue enqueues n jobs of size bytes of payload into queue "q", one
// call each, or batch jobs a call (hopper's EnqueueMany), from producers
// goroutines taking the calls in turn; with groups > 0 the i-th call's
// jobs go to group "g<i mod groups>"; every job at priority prio.
func enqueue(addr, sys string, n, size, batch, producers, groups, prio int) error {
	ctx := context.Background()
	p := make([]byte, size)
	// one sends k jobs (k ≤ batch) in one call.
	var one func(k int) error
	if sys == "hopper" {
		c := hopper.NewClient(redisstore.New(redis.NewClient(&redis.Options{Addr: addr}), nil), nil)
		args := make([]instrArgs, batch)
		for i := range args {
			args[i] = instrArgs{P: p}
		}
		var calls atomic.Int64
		one = func(k int) error {
			opts := &hopper.EnqueueOpts{Queue: "q", Priority: prio}
			if groups > 0 {
				opts.Group = "g" + strconv.Itoa(int((calls.Add(1)-1)%int64(groups)))
			}
			if batch == 1 {
				_, err := hopper.Enqueue(ctx, c, args[0], opts)
				return err
			}
			_, err := hopper.EnqueueMany(ctx, c, args[:k], opts)
			return err
		}
	} else if sys == "asynq" {
		c := asynq.NewClient(asynq.RedisClientOpt{Addr: addr})
		defer c.Close()
		one = func(int) error {
			_, err := c.EnqueueContext(ctx, asynq.NewTask("bench", p), asynq.Queue("q"))
			return err
		}
	} else { // ping or a floor function, on a client of their own
		rdb := redis.NewClient(&redis.Options{Addr: addr})
		defer rdb.Close()
		one = func(int) error { return rdb.Ping(ctx).Err() }
		if fn, ok := floorSystems[sys]; ok {
			call, err := floorEnqueuer(ctx, rdb, fn, size)
			if err != nil {
				return err
			}
			one = func(int) error { return call() }
		}
	}
	var left atomic.Int64 // jobs not yet taken by a call
	left.Store(int64(n))
	var g errgroup.Group
	for range producers {
		g.Go(func() error {
			for {
				// Take a batch; the call that goes past zero takes the rest.
				k := int(min(left.Add(-int64(batch))+int64(batch), int64(batch)))
				if k <= 0 {
					return nil
				}
				if err := one(k); err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// enqueueWorkflows enqueues into queue "q" n tasks with size bytes of
// payload each: one workflow of n tasks without dependencies (with
// fanin, and a task in queue "join" that waits for them all), or with
// chains, n/10 workflows of 10 tasks in a chain.
func enqueueWorkflows(addr string, n, size int, chains, fanin bool) error {
	c := hopper.NewClient(redisstore.New(redis.NewClient(&redis.Options{Addr: addr}), nil), nil)
	p := make([]byte, size)
	width, count := n, 1
	if chains {
		width, count = 10, n/10
	}
	for range count {
		wf := hopper.NewWorkflow("instr", nil)
		var tasks []*hopper.Task
		for i := range width {
			tasks = append(tasks, hopper.AddTask(wf, "t"+strconv.Itoa(i), instrArgs{P: p}, &hopper.TaskOpts{Queue: "q"}))
		}
		if chains {
			wf.Chain(tasks...)
		}
		if fanin {
			hopper.AddTask(wf, "join", instrArgs{P: p}, &hopper.TaskOpts{Queue: "join"}).After(tasks...)
		}
		if _, err := hopper.EnqueueWorkflow(context.Background(), c, wf); err != nil {
			return err
		}
	}
	return nil
}

// drainQueue runs a worker on queue "q" until it handled n jobs.
func drainQueue(addr, sys string, n int) {
	var got atomic.Int64
	done := make(chan struct{})
	handled := func() {
		if got.Add(1) == int64(n) {
			close(done)
		}
	}
	if sys == "hopper" {
		w := hopper.NewWorker(redisstore.New(redis.NewClient(&redis.Options{Addr: addr}), nil),
			&hopper.WorkerConfig{Queues: map[string]int{"q": 1}, Concurrency: 32})
		hopper.Handle(w, func(context.Context, *hopper.Job[instrArgs]) error { handled(); return nil })
		ctx, cancel := context.WithCancel(context.Background())
		stopped := make(chan error, 1)
		go func() { stopped <- w.Run(ctx) }()
		<-done
		cancel()
		<-stopped
		return
	}
	srv := asynq.NewServer(asynq.RedisClientOpt{Addr: addr}, asynq.Config{Concurrency: 32, Queues: map[string]int{"q": 1}, LogLevel: asynq.WarnLevel})
	mux := asynq.NewServeMux()
	mux.HandleFunc("bench", func(context.Context, *asynq.Task) error { handled(); return nil })
	go srv.Run(mux)
	<-done
	srv.Shutdown()
}

// drainSteps acknowledges n jobs of queue "q" through the store alone:
// claims of k jobs, each followed by one Finish of all of them, as a
// Worker's finisher sends it (with the kind and attempt of the claim).
func drainSteps(addr string, n, k int) error {
	ctx := context.Background()
	st := redisstore.New(redis.NewClient(&redis.Options{Addr: addr}), nil)
	for done := 0; done < n; {
		res, err := st.Claim(ctx, store.ClaimOpts{Queue: "q", Max: min(k, n-done), Lease: time.Minute, WorkerID: "instr"})
		if err != nil {
			return err
		}
		if len(res.Jobs) == 0 {
			return fmt.Errorf("queue q is empty after %d of %d jobs", done, n)
		}
		ends := make([]store.AttemptEnd, len(res.Jobs))
		for i, j := range res.Jobs {
			ends[i] = store.AttemptEnd{Queue: "q", ID: j.ID, Token: j.Token, Retention: j.Retention, Outcome: store.OutcomeAck, Kind: j.Kind, Attempt: j.Attempt}
		}
		errs, err := st.Finish(ctx, ends)
		if err != nil {
			return err
		}
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
		done += len(res.Jobs)
	}
	return nil
}

// record creates the file at path and starts writing to it with start
// (a CPU profile or an execution trace); the caller stops it. It exits
// the program on an error.
func record(path string, start func(io.Writer) error) {
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := start(f); err != nil {
		log.Fatal(err)
	}
}
