package faulttest

// The worker processes of the scenarios: this test binary re-executed
// (internal/proctest) in the role "worker", a hopper Worker on Redis that
// reports what it claimed, started, ended and finished, so that the tests
// can check the lifecycle after killing, freezing or starving it.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/redisstore"
)

const roleWorker = "worker"

func init() { proctest.Register(roleWorker, runWorker) }

// workerOpts is the spec of one worker process; its name is its
// WorkerConfig.ID.
type workerOpts struct {
	Addr        string // host:port, or seed nodes (comma-separated) with Cluster
	Cluster     bool
	Prefix      string
	Queues      string        // comma-separated; "default" when empty
	Concurrency int           // 10 when zero
	Lease       time.Duration // 1 s when zero
	Sleep       time.Duration // how long each job runs
	FailFirst   bool          // fail the first attempt of every job
	Skew        time.Duration // added to the worker's clock (SchedulerConfig.Now)
	Every       time.Duration // run a periodic job of kind fault at this interval...
	EveryQueue  string        // ... on this queue ("default" when empty)
	QueueCount  int           // serve QueueCount queues named by QueueFormat instead of Queues
	QueueFormat string        // fmt pattern given 0 to QueueCount-1; "q%04d" when empty
	// Defaults runs the worker with the library's defaults for the idle
	// wait, the scheduler's MaxSleep and the heartbeat interval (5 s each),
	// as in production, instead of the quicker 200 ms MaxSleep and 1 s
	// heartbeat of the tests.
	Defaults bool
	IdleWait time.Duration // WorkerConfig.IdleWait; the library's default when zero
	Replicas int           // redisstore Config.Replicas
	// Cmds counts the commands the worker sends (not with Cluster) and
	// reports the totals every 100 ms ("cmds" events).
	Cmds       bool
	CPUProfile string // write a CPU profile of the run to this file (diagnosis)
}

// faultKind is the job kind the workers handle; its args are ignored.
const faultKind = "fault"

// periodicArgs are the args of the periodic job (workerOpts.Every).
type periodicArgs struct{}

func (periodicArgs) Kind() string { return faultKind }

func runWorker(ctx context.Context, c *proctest.Child) error {
	var o workerOpts
	if err := c.Spec(&o); err != nil {
		return err
	}
	if o.CPUProfile != "" {
		pf, err := os.Create(o.CPUProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})).With("worker", c.Name)
	if _, err := widenLedgerPipe(); err != nil {
		logger.Warn("faulttest: the ledger's pipe keeps its size; a test binary slow to read it stalls this worker sooner", "error", err)
	}
	l := &ledger{c: c}
	go l.tick(ctx)

	var rdb redis.UniversalClient
	addrs := strings.Split(o.Addr, ",")
	if o.Cluster {
		rdb = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	} else {
		rdb = redis.NewClient(&redis.Options{Addr: addrs[0], DialTimeout: time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second})
	}
	defer rdb.Close()
	if o.Cmds {
		rc, ok := rdb.(*redis.Client)
		if !ok {
			return errors.New("Cmds counts the commands of a single server, not of a cluster")
		}
		counter := newCmdCounter(c)
		rc.AddHook(counter)
		counter.report() // before "ready": the counts are there once the worker is
		go counter.run(ctx)
	}
	store := redisstore.New(rdb, &redisstore.Config{Prefix: o.Prefix, Logger: logger, Replicas: o.Replicas})

	queues := map[string]int{}
	if o.QueueCount > 0 {
		format := cmp.Or(o.QueueFormat, "q%04d")
		for i := range o.QueueCount {
			queues[fmt.Sprintf(format, i)] = 1
		}
	} else {
		for _, q := range strings.Split(cmp.Or(o.Queues, "default"), ",") {
			queues[q] = 1
		}
	}
	maxSleep, heartbeat := 200*time.Millisecond, time.Second
	if o.Defaults {
		maxSleep, heartbeat = 0, 0
	}
	now := func() time.Time { return time.Now().Add(o.Skew) }
	sched := &hopper.SchedulerConfig{MaxSleep: maxSleep, Now: now, Logger: logger}
	if o.Every > 0 {
		sched.Schedules = []hopper.Schedule{{
			Name: "tick", Spec: hopper.Every(o.Every), Args: periodicArgs{},
			Opts: &hopper.ScheduleOpts{Queue: cmp.Or(o.EveryQueue, "default")},
		}}
	}
	w := hopper.NewWorker(&ledgerStore{Store: store, l: l}, &hopper.WorkerConfig{
		Queues:            queues,
		Concurrency:       cmp.Or(o.Concurrency, 10),
		Lease:             cmp.Or(o.Lease, time.Second),
		ShutdownTimeout:   2 * time.Second,
		AbandonAfter:      time.Second,
		HeartbeatInterval: heartbeat,
		IdleWait:          o.IdleWait,
		Backoff:           func(int, error) time.Duration { return 10 * time.Millisecond },
		Logger:            logger,
		ID:                c.Name,
		Scheduler:         sched,
	})
	w.HandleKind(faultKind, hopper.HandlerFunc(func(ctx context.Context, job *hopper.JobRecord) error {
		l.emit(proctest.Event{Ev: "start", Queue: job.Queue, Job: job.ID, Attempt: job.Attempt, Token: job.Token})
		err := handle(ctx, o, job)
		l.emit(proctest.Event{Ev: "end", Queue: job.Queue, Job: job.ID, Attempt: job.Attempt, Token: job.Token, Err: errText(err)})
		return err
	}))
	c.Ready()
	return w.Run(ctx)
}

// handle is the job: it runs for Sleep (or until its context ends) and
// fails the first attempt with FailFirst.
func handle(ctx context.Context, o workerOpts, job *hopper.JobRecord) error {
	if o.Sleep > 0 {
		t := time.NewTimer(o.Sleep)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	if o.FailFirst && job.Attempt == 1 {
		return errors.New("worker: first attempt fails (FailFirst)")
	}
	return nil
}
