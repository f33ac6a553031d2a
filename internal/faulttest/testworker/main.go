// Command testworker is the worker process of the fault-injection tests
// (package faulttest): a hopper Worker on Redis that writes a ledger of
// what it claimed, started, ended and finished as JSON lines, outside
// Redis, so that the tests can check the lifecycle after killing, stopping
// or starving it. It runs until SIGTERM or SIGINT, then shuts down
// gracefully. It is built by the tests; it is not meant for anything else.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/redisstore"
)

// Kind is the job kind the worker handles; its args are ignored.
const Kind = "fault"

type flags struct {
	addrs       string
	cluster     bool
	prefix      string
	queues      string
	concurrency int
	lease       time.Duration
	sleep       time.Duration
	failFirst   bool
	skew        time.Duration
	id          string
	ledger      string
	every       time.Duration
	everyQueue  string
	queueCount  int
	queueFormat string
	idleWait    time.Duration
	maxSleep    time.Duration
	heartbeat   time.Duration
	replicas    int
	cmds        string
	cpuProfile  string
}

func main() {
	var f flags
	flag.StringVar(&f.addrs, "addr", "127.0.0.1:6379", "Redis host:port (comma-separated seed nodes with -cluster)")
	flag.BoolVar(&f.cluster, "cluster", false, "connect to a Redis Cluster")
	flag.StringVar(&f.prefix, "prefix", "hopper", "key prefix")
	flag.StringVar(&f.queues, "queues", "default", "comma-separated queues")
	flag.IntVar(&f.concurrency, "concurrency", 10, "jobs run at once")
	flag.DurationVar(&f.lease, "lease", 2*time.Second, "visibility timeout (lease)")
	flag.DurationVar(&f.sleep, "sleep", 0, "how long each job runs")
	flag.BoolVar(&f.failFirst, "fail-first", false, "fail the first attempt of every job")
	flag.DurationVar(&f.skew, "skew", 0, "offset added to this worker's clock")
	flag.StringVar(&f.id, "id", "", "worker id (required)")
	flag.StringVar(&f.ledger, "ledger", "", "append the ledger to this file (default stdout)")
	flag.DurationVar(&f.every, "every", 0, "also run a periodic job of kind fault at this interval")
	flag.StringVar(&f.everyQueue, "every-queue", "default", "the queue of the periodic job (-every)")
	flag.IntVar(&f.queueCount, "queue-count", 0, "serve this many queues named by -queue-format (instead of -queues)")
	flag.StringVar(&f.queueFormat, "queue-format", "q%04d", "fmt pattern of the queue names with -queue-count, given 0 to count-1")
	flag.DurationVar(&f.idleWait, "idle-wait", 0, "WorkerConfig.IdleWait (0: the library's default)")
	flag.DurationVar(&f.maxSleep, "max-sleep", 200*time.Millisecond, "SchedulerConfig.MaxSleep (0: the library's default)")
	flag.DurationVar(&f.heartbeat, "heartbeat", time.Second, "WorkerConfig.HeartbeatInterval (0: the library's default)")
	flag.IntVar(&f.replicas, "replicas", 0, "redisstore Options.Replicas (WAIT for this many replicas on enqueue and finish)")
	flag.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (diagnosis)")
	flag.StringVar(&f.cmds, "cmds", "", "count the commands sent to Redis (not -cluster) and write the totals to this file every 100 ms")
	flag.Parse()
	if err := run(f); err != nil {
		fmt.Fprintln(os.Stderr, "testworker:", err)
		os.Exit(1)
	}
}

func run(f flags) error {
	if f.id == "" {
		return errors.New("-id is required")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := os.Stdout
	if f.ledger != "" {
		file, err := os.OpenFile(f.ledger, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	l := &ledger{w: out, worker: f.id}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("worker", f.id)

	var rdb redis.UniversalClient
	addrs := strings.Split(f.addrs, ",")
	if f.cluster {
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	} else {
		rdb = redis.NewClient(&redis.Options{Addr: addrs[0], DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	}
	defer rdb.Close()
	if f.cmds != "" {
		c, ok := rdb.(*redis.Client)
		if !ok {
			return errors.New("-cmds counts the commands of a single server, not of a cluster")
		}
		counter := newCmdCounter(f.cmds)
		c.AddHook(counter)
		counter.write() // before "up": the file is there once the worker is
		go counter.dump(ctx)
	}
	store := redisstore.New(rdb, &redisstore.Options{Prefix: f.prefix, Logger: logger, Replicas: f.replicas})

	queues := map[string]int{}
	if f.queueCount > 0 {
		for i := range f.queueCount {
			queues[fmt.Sprintf(f.queueFormat, i)] = 1
		}
	} else {
		for _, q := range strings.Split(f.queues, ",") {
			queues[q] = 1
		}
	}
	now := func() time.Time { return time.Now().Add(f.skew) }
	sched := &hopper.SchedulerConfig{MaxSleep: f.maxSleep, Now: now, Logger: logger}
	if f.every > 0 {
		sched.Periodic = []hopper.PeriodicJob{{
			Name: "tick", Schedule: hopper.Every(f.every), Args: periodicArgs{},
			Opts: &hopper.EnqueueOpts{Queue: f.everyQueue},
		}}
	}
	w := hopper.NewWorker(&ledgerStore{Store: store, l: l}, &hopper.WorkerConfig{
		Queues:            queues,
		Concurrency:       f.concurrency,
		Lease:             f.lease,
		ShutdownTimeout:   2 * time.Second,
		AbandonAfter:      time.Second,
		HeartbeatInterval: f.heartbeat,
		IdleWait:          f.idleWait,
		Backoff:           func(int, error) time.Duration { return 10 * time.Millisecond },
		Logger:            logger,
		ID:                f.id,
		Scheduler:         sched,
	})
	w.HandleKind(Kind, hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error {
		l.log(event{Ev: "start", Queue: job.Queue, ID: job.ID, Attempt: job.Attempt, Token: job.Token})
		err := handle(ctx, f, job)
		l.log(event{Ev: "end", Queue: job.Queue, ID: job.ID, Attempt: job.Attempt, Token: job.Token, Err: errText(err)})
		return err
	}))
	l.log(event{Ev: "up"})
	return w.Run(ctx)
}

// handle is the job: it runs for -sleep (or until its context ends) and
// fails the first attempt with -fail-first.
func handle(ctx context.Context, f flags, job *hopper.JobRecord) error {
	if f.sleep > 0 {
		t := time.NewTimer(f.sleep)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	if f.failFirst && job.Attempt == 1 {
		return errors.New("testworker: first attempt fails (-fail-first)")
	}
	return nil
}

// periodicArgs are the args of the periodic job (-every).
type periodicArgs struct{}

func (periodicArgs) Kind() string { return Kind }
