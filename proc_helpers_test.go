package hopper_test

// The roles of the children of the multi-process tests on Redis, and
// procSetup, a test's Redis state and children. A child is this test
// binary re-executed by internal/proctest (TestMain calls runChildIfAsked
// first); it connects to the Redis server and key prefix its childSpec
// names, plays its role, and reports what its handlers saw as
// proctest.Events.

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

// Roles a child can play.
const (
	rolePeriodic  = "periodic"   // worker running the schedules "a" and "b", every second
	roleStored    = "stored"     // worker running the store's stored schedules (Tick jobs)
	roleCapped    = "capped"     // worker whose handlers count themselves in Redis while they work
	roleGrouped   = "grouped"    // worker whose handlers count themselves per group, and number their starts
	roleLimited   = "limited"    // worker whose handlers report their start time and claim time
	roleTarget    = "target"     // worker whose handlers wait for their context to end
	roleEnqueuer  = "enqueuer"   // on "go <round>": Goroutines concurrent unique enqueues
	roleCancel    = "canceller"  // on "cancel <id>": Store.CancelJob of the job
	roleSubscribe = "subscriber" // reports every event of Queue from when it is ready
	roleWaiter    = "waiter"     // on "wait <id>": watches the job, in Goroutines goroutines
)

func init() {
	for role, build := range map[string]workerBuilder{
		rolePeriodic: periodicWorker(false), roleStored: periodicWorker(true), roleCapped: cappedWorker,
		roleGrouped: groupedWorker, roleLimited: limitedWorker, roleTarget: targetWorker,
	} {
		proctest.Register(role, workerRole(build))
	}
	proctest.Register(roleEnqueuer, storeRole(childEnqueuer))
	proctest.Register(roleCancel, storeRole(childCanceller))
	proctest.Register(roleSubscribe, storeRole(childSubscriber))
	proctest.Register(roleWaiter, storeRole(childWaiter))
}

// runChildIfAsked plays the role of a child and exits, when this binary was
// started as one by a multi-process test; otherwise it returns.
func runChildIfAsked() { proctest.Main() }

// childSpec tells a child what to do.
type childSpec struct {
	Role   string `json:"-"` // the role it plays
	Addr   string // Redis host:port
	Prefix string // redisstore key prefix
	Queue  string
	// Concurrency and Prefetch of a worker role (Prefetch 0: the default).
	Concurrency int
	Prefetch    int
	// Goroutines of an enqueuer.
	Goroutines int
	// Work is how long a capped handler works.
	Work time.Duration
	// Probe is the Redis key capped handlers INCR while they run.
	Probe string
	// HangSeq is the start (numbered by Probe:seq) whose grouped handler
	// works until its process dies: a kill that must land mid-job.
	HangSeq int64
}

// storeRole returns a role that connects to the spec's Redis and key
// prefix and runs f.
func storeRole(f func(ctx context.Context, c *proctest.Child, s childSpec, rdb *redis.Client, st hopper.Store) error) proctest.Role {
	return func(ctx context.Context, c *proctest.Child) error {
		var s childSpec
		if err := c.Spec(&s); err != nil {
			return err
		}
		rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
		defer rdb.Close()
		st := redisstore.New(rdb, &redisstore.Config{Prefix: s.Prefix, Logger: testutil.Logger()})
		// Checked at start, as a worker binary does, so that what a role
		// measures from its first call is the call, not the store's
		// start-up (the server check, the scripts built and loaded).
		if err := st.Check(ctx); err != nil {
			return err
		}
		return f(ctx, c, s, rdb, st)
	}
}

// workerBuilder registers the handlers of a worker role on w; cfg is w's
// config, which it may complete before it builds w.
type workerBuilder func(c *proctest.Child, s childSpec, rdb *redis.Client, st hopper.Store, cfg *hopper.WorkerConfig) *hopper.Worker

// workerRole returns the role of a worker of the spec's queue, built by
// build: it reports "ready" and runs until the child is stopped.
func workerRole(build workerBuilder) proctest.Role {
	return storeRole(func(ctx context.Context, c *proctest.Child, s childSpec, rdb *redis.Client, st hopper.Store) error {
		cfg := testConfig(s.Queue)
		cfg.Concurrency = s.Concurrency
		cfg.Prefetch = s.Prefetch
		w := build(c, s, rdb, st, cfg)
		c.Ready()
		return w.Run(ctx)
	})
}

// started is the "start" event of a job.
func started(j *hopper.JobRecord) proctest.Event {
	return proctest.Event{Ev: "start", Job: j.ID, Attempt: j.Attempt, AttemptedAt: j.AttemptedAt, Deadline: j.Deadline}
}

// periodicWorker returns the builder of a worker running the schedules "a"
// and "b" every second, or the store's stored schedules; its handlers
// report each start with the schedule and its tick (RunAt).
func periodicWorker(stored bool) workerBuilder {
	return func(c *proctest.Child, s childSpec, _ *redis.Client, st hopper.Store, cfg *hopper.WorkerConfig) *hopper.Worker {
		if stored {
			cfg.Scheduler = &hopper.SchedulerConfig{StoredSchedulesPoll: 50 * time.Millisecond}
		} else {
			opts := &hopper.ScheduleOpts{Queue: s.Queue}
			cfg.Scheduler = &hopper.SchedulerConfig{Schedules: []hopper.Schedule{
				{Name: "every-second-a", Spec: hopper.Every(time.Second), Args: Tick{Name: "a"}, Opts: opts},
				{Name: "every-second-b", Spec: hopper.Every(time.Second), Args: Tick{Name: "b"}, Opts: opts},
			}}
		}
		w := hopper.NewWorker(st, cfg)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Tick]) error {
			e := started(j.JobRecord)
			e.Sched, e.RunAt = j.Args.Name, j.RunAt
			c.Emit(e)
			return nil
		})
		return w
	}
}

// cappedWorker's handlers count themselves in the Redis key Probe while
// they work (Work); each start reports the count (Running).
func cappedWorker(c *proctest.Child, s childSpec, rdb *redis.Client, st hopper.Store, cfg *hopper.WorkerConfig) *hopper.Worker {
	w := hopper.NewWorker(st, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		n, err := rdb.Incr(ctx, s.Probe).Result()
		if err != nil {
			return c.Error(j.ID, err)
		}
		e := started(j.JobRecord)
		e.Running = n
		c.Emit(e)
		select { // the job's work
		case <-time.After(s.Work):
		case <-ctx.Done():
		}
		if err := rdb.Decr(context.WithoutCancel(ctx), s.Probe).Err(); err != nil {
			return c.Error(j.ID, err)
		}
		c.Emit(proctest.Event{Ev: "end", Job: j.ID})
		return nil
	})
	return w
}

// groupedWorker's handlers count themselves per group in the Redis keys
// Probe:<group> while they work (Work, if any), and number their starts
// with the counter Probe:seq; each start reports its group, the count
// (Running) and its number (Seq).
func groupedWorker(c *proctest.Child, s childSpec, rdb *redis.Client, st hopper.Store, cfg *hopper.WorkerConfig) *hopper.Worker {
	w := hopper.NewWorker(st, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		key := s.Probe + ":" + j.Group
		n, err := rdb.Incr(ctx, key).Result()
		var seq int64
		if err == nil {
			seq, err = rdb.Incr(ctx, s.Probe+":seq").Result()
		}
		if err != nil {
			return c.Error(j.ID, err)
		}
		e := started(j.JobRecord)
		e.Running, e.Group, e.Seq = n, j.Group, seq
		c.Emit(e)
		if seq == s.HangSeq {
			<-ctx.Done() // until the process is killed
		}
		if s.Work > 0 {
			select { // the job's work
			case <-time.After(s.Work):
			case <-ctx.Done():
			}
		}
		if err := rdb.Decr(context.WithoutCancel(ctx), key).Err(); err != nil {
			return c.Error(j.ID, err)
		}
		c.Emit(proctest.Event{Ev: "end", Job: j.ID})
		return nil
	})
	return w
}

// limitedWorker's handlers report their start, At the moment the handler
// began on the child's clock (with its claim time and group), and return.
func limitedWorker(c *proctest.Child, _ childSpec, _ *redis.Client, st hopper.Store, cfg *hopper.WorkerConfig) *hopper.Worker {
	w := hopper.NewWorker(st, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		at := time.Now()
		e := started(j.JobRecord)
		e.At, e.Group = at, j.Group
		c.Emit(e)
		return nil
	})
	return w
}

// targetWorker's handlers report their start, wait for their context to
// end, and report the end with its cause (Err).
func targetWorker(c *proctest.Child, _ childSpec, _ *redis.Client, st hopper.Store, cfg *hopper.WorkerConfig) *hopper.Worker {
	w := hopper.NewWorker(st, cfg)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		c.Emit(started(j.JobRecord))
		<-ctx.Done()
		c.Emit(proctest.Event{Ev: "end", Job: j.ID, Err: context.Cause(ctx).Error()})
		return ctx.Err()
	})
	return w
}

// childEnqueuer answers each "go <round>" with Goroutines concurrent
// enqueues of one unique job, one "enqueued" event each.
func childEnqueuer(ctx context.Context, c *proctest.Child, s childSpec, _ *redis.Client, st hopper.Store) error {
	client := hopper.NewClient(st, nil)
	opts := &hopper.EnqueueOpts{Queue: s.Queue, Unique: &hopper.UniqueOpts{}}
	c.Ready()
	for cmd := range c.Commands(ctx) {
		var round int
		if _, err := fmt.Sscanf(cmd, "go %d", &round); err != nil {
			return fmt.Errorf("command %q: %v", cmd, err)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range s.Goroutines {
			wg.Go(func() {
				<-start
				info, err := hopper.Enqueue(ctx, client, Echo{Msg: "digest"}, opts)
				if err != nil {
					c.Emit(proctest.Event{Ev: proctest.EvError, Round: round, Err: err.Error()})
					return
				}
				c.Emit(proctest.Event{Ev: "enqueued", Round: round, Job: info.ID, Dup: info.Duplicate})
			})
		}
		close(start)
		wg.Wait()
	}
	return nil
}

// childCanceller answers each "cancel <id>" with Store.CancelJob; the event's
// At is the moment just before the call.
func childCanceller(ctx context.Context, c *proctest.Child, s childSpec, _ *redis.Client, st hopper.Store) error {
	c.Ready()
	for cmd := range c.Commands(ctx) {
		id, ok := strings.CutPrefix(cmd, "cancel ")
		if !ok {
			return fmt.Errorf("command %q: want cancel <id>", cmd)
		}
		at := time.Now()
		state, err := hopper.NewInspector(st).CancelJob(ctx, s.Queue, id)
		e := proctest.Event{Ev: "cancelled", At: at, Job: id, State: state}
		if err != nil {
			e.Ev, e.Err = proctest.EvError, err.Error()
		}
		c.Emit(e)
	}
	return nil
}

// procSetup is the Redis server, key prefix and children of one test.
type procSetup struct {
	*proctest.Group
	t      *testing.T
	addr   string
	prefix string
	rdb    *redis.Client
	store  hopper.Store // the parent's own handle on the same state
}

// newProcSetup marks t parallel and prepares its Redis state (on a server
// started with opts); the children it starts are stopped together when t
// ends.
func newProcSetup(t *testing.T, opts ...redistest.Option) *procSetup {
	t.Helper()
	t.Parallel()
	return newTimedProcSetup(t, opts...)
}

// newTimedProcSetup is newProcSetup for a test that bounds a rate or a
// time: it does not mark t parallel, so no other test's processes share
// the machine's cores with its own (go test runs the parallel tests after
// the others). On a slow 2-core machine with other tests' processes
// running, the rate tests started 34-45 limited jobs a second where alone
// they made 90 or more.
func newTimedProcSetup(t *testing.T, opts ...redistest.Option) *procSetup {
	t.Helper()
	srv := redistest.Start(t, opts...)
	prefix := redistest.Prefix(t)
	rdb := srv.Client(t)
	return &procSetup{Group: proctest.NewGroup(t), t: t, addr: srv.Addr, prefix: prefix, rdb: rdb,
		store: redisstore.New(rdb, &redisstore.Config{Prefix: prefix, Logger: testutil.Logger()})}
}

// spec fills in the Redis address and prefix of a child spec.
func (p *procSetup) spec(s childSpec) childSpec {
	s.Addr, s.Prefix = p.addr, p.prefix
	return s
}

// start starts n children of spec (its Addr and Prefix filled in) and waits
// until all of them are ready.
func (p *procSetup) start(n int, spec childSpec) []*proctest.Proc {
	p.t.Helper()
	return p.StartN(n, spec.Role, p.spec(spec))
}
