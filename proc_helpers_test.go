package hopper_test

// Child processes for the multi-process tests on Redis.
//
// A test starts children by re-executing its own test binary with
// HOPPER_TEST_CHILD set to a JSON childSpec. TestMain sees the variable and
// runs runChild instead of the tests. A child connects to the Redis server
// and key prefix the spec names, plays its role, and reports what its
// handlers saw as JSON lines (procEvent) on stdout; its logs go to stderr.
// It reads commands, one per line, on stdin and stops gracefully when stdin
// closes (the parent ended or went away) or on SIGTERM, so a failed or killed
// parent leaves no process behind.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

// childEnv holds the JSON childSpec of a child process.
const childEnv = "HOPPER_TEST_CHILD"

// Roles a child can play.
const (
	rolePeriodic  = "periodic"   // worker running the schedules "a" and "b", every second
	roleStored    = "stored"     // worker running the store's stored schedules (Tick jobs)
	roleCapped    = "capped"     // worker whose handlers count themselves in Redis while they work
	roleGrouped   = "grouped"    // worker whose handlers count themselves per group, and number their starts
	roleLimited   = "limited"    // worker whose handlers report their claim time
	roleTarget    = "target"     // worker whose handlers wait for their context to end
	roleEnqueuer  = "enqueuer"   // on "go <round>": Goroutines concurrent unique enqueues
	roleCancel    = "canceller"  // on "cancel <id>": Store.Cancel of the job
	roleSubscribe = "subscriber" // reports every event of Queue from when it is ready
	roleWaiter    = "waiter"     // on "wait <id>": watches the job, in Goroutines goroutines
)

// childSpec tells a child what to do.
type childSpec struct {
	Role   string
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
}

// procEvent is one line a child reports.
type procEvent struct {
	Ev  string    // ready, start, end, enqueued, cancelled, error
	PID int       // the child's process ID
	At  time.Time // the child's clock when it happened
	Job string    // job ID
	// Sched and Tick: the schedule and tick of a periodic job.
	Sched string    `json:",omitempty"`
	Tick  time.Time `json:",omitzero"`
	// Attempt and AttemptedAt (the store's clock at claim) of a started job.
	Attempt     int       `json:",omitempty"`
	AttemptedAt time.Time `json:",omitzero"`
	// Running is the probe counter right after a capped handler started
	// (of its group, for a grouped one).
	Running int64 `json:",omitempty"`
	// Group and Seq of a grouped handler's start: its job's group and the
	// start's place in the order of all starts (a Redis counter).
	Group string `json:",omitempty"`
	Seq   int64  `json:",omitempty"`
	// Round, Dup: an enqueuer's round and whether its job was a duplicate.
	Round int  `json:",omitempty"`
	Dup   bool `json:",omitempty"`
	// State Cancel found the job in, or a waited job ended in.
	State hopper.JobState `json:",omitempty"`
	// Type of an event a subscriber read (its At is the store's time).
	Type hopper.EventType `json:",omitempty"`
	// FinishedAt of a waited job (the store's clock at its end).
	FinishedAt time.Time `json:",omitzero"`
	Err        string    `json:",omitempty"`
}

// runChildIfAsked runs the child process a parent asked for and exits, or
// returns when the binary was started as a test binary.
func runChildIfAsked() {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return
	}
	var s childSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil {
		fmt.Fprintf(os.Stderr, "child: bad %s: %v\n", childEnv, err)
		os.Exit(2)
	}
	if err := runChild(s); err != nil {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", s.Role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func runChild(s childSpec) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cmds := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			select {
			case cmds <- sc.Text():
			case <-ctx.Done():
			}
		}
		stop() // stdin closed: the parent is done or gone
		close(cmds)
	}()

	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer rdb.Close()
	store := redisstore.New(rdb, &redisstore.Options{Prefix: s.Prefix, Logger: testutil.Logger()})
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	emit := func(e procEvent) {
		e.PID = os.Getpid()
		if e.At.IsZero() {
			e.At = time.Now()
		}
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(e)
	}

	switch s.Role {
	case roleEnqueuer:
		return childEnqueuer(ctx, s, store, cmds, emit)
	case roleCancel:
		return childCanceller(ctx, s, store, cmds, emit)
	case roleSubscribe:
		return childSubscriber(ctx, s, store, emit)
	case roleWaiter:
		return childWaiter(ctx, s, store, cmds, emit)
	}
	go func() {
		for range cmds { // workers take no commands
		}
	}()
	cfg := testConfig(s.Queue)
	cfg.Concurrency = s.Concurrency
	cfg.Prefetch = s.Prefetch
	w, err := childWorker(s, store, rdb, cfg, emit)
	if err != nil {
		return err
	}
	emit(procEvent{Ev: "ready"})
	return w.Run(ctx)
}

// childWorker builds the Worker of a worker role.
func childWorker(s childSpec, store hopper.Store, rdb *redis.Client, cfg *hopper.WorkerConfig, emit func(procEvent)) (*hopper.Worker, error) {
	started := func(j *hopper.JobRecord) procEvent {
		return procEvent{Ev: "start", Job: j.ID, Attempt: j.Attempt, AttemptedAt: j.AttemptedAt}
	}
	switch s.Role {
	case rolePeriodic, roleStored:
		if s.Role == rolePeriodic {
			opts := &hopper.EnqueueOpts{Queue: s.Queue}
			cfg.Scheduler = &hopper.SchedulerConfig{Periodic: []hopper.PeriodicJob{
				{Name: "every-second-a", Schedule: hopper.Every(time.Second), Args: Tick{Name: "a"}, Opts: opts},
				{Name: "every-second-b", Schedule: hopper.Every(time.Second), Args: Tick{Name: "b"}, Opts: opts},
			}}
		} else {
			cfg.Scheduler = &hopper.SchedulerConfig{StoredSchedulesPoll: 50 * time.Millisecond}
		}
		w := hopper.NewWorker(store, cfg)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Tick]) error {
			e := started(j.JobRecord)
			e.Sched, e.Tick = j.Args.Name, j.RunAt
			emit(e)
			return nil
		})
		return w, nil
	case roleCapped:
		w := hopper.NewWorker(store, cfg)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			n, err := rdb.Incr(ctx, s.Probe).Result()
			if err != nil {
				emit(procEvent{Ev: "error", Job: j.ID, Err: err.Error()})
				return err
			}
			e := started(j.JobRecord)
			e.Running = n
			emit(e)
			select { // the job's work
			case <-time.After(s.Work):
			case <-ctx.Done():
			}
			if err := rdb.Decr(context.WithoutCancel(ctx), s.Probe).Err(); err != nil {
				emit(procEvent{Ev: "error", Job: j.ID, Err: err.Error()})
				return err
			}
			emit(procEvent{Ev: "end", Job: j.ID})
			return nil
		})
		return w, nil
	case roleGrouped:
		w := hopper.NewWorker(store, cfg)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			key := s.Probe + ":" + j.Group
			n, err := rdb.Incr(ctx, key).Result()
			var seq int64
			if err == nil {
				seq, err = rdb.Incr(ctx, s.Probe+":seq").Result()
			}
			if err != nil {
				emit(procEvent{Ev: "error", Job: j.ID, Err: err.Error()})
				return err
			}
			e := started(j.JobRecord)
			e.Running, e.Group, e.Seq = n, j.Group, seq
			emit(e)
			if s.Work > 0 {
				select { // the job's work
				case <-time.After(s.Work):
				case <-ctx.Done():
				}
			}
			if err := rdb.Decr(context.WithoutCancel(ctx), key).Err(); err != nil {
				emit(procEvent{Ev: "error", Job: j.ID, Err: err.Error()})
				return err
			}
			emit(procEvent{Ev: "end", Job: j.ID})
			return nil
		})
		return w, nil
	case roleLimited:
		w := hopper.NewWorker(store, cfg)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			emit(started(j.JobRecord))
			return nil
		})
		return w, nil
	case roleTarget:
		w := hopper.NewWorker(store, cfg)
		hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
			emit(started(j.JobRecord))
			<-ctx.Done()
			emit(procEvent{Ev: "end", Job: j.ID, Err: context.Cause(ctx).Error()})
			return ctx.Err()
		})
		return w, nil
	}
	return nil, fmt.Errorf("unknown role %q", s.Role)
}

// childEnqueuer answers each "go <round>" with Goroutines concurrent
// enqueues of one unique job, one "enqueued" event each.
func childEnqueuer(ctx context.Context, s childSpec, store hopper.Store, cmds <-chan string, emit func(procEvent)) error {
	client := hopper.NewClient(store, nil)
	opts := &hopper.EnqueueOpts{Queue: s.Queue, Unique: &hopper.UniqueOpts{}}
	emit(procEvent{Ev: "ready"})
	for cmd := range commands(ctx, cmds) {
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
					emit(procEvent{Ev: "error", Round: round, Err: err.Error()})
					return
				}
				emit(procEvent{Ev: "enqueued", Round: round, Job: info.ID, Dup: info.Duplicate})
			})
		}
		close(start)
		wg.Wait()
	}
	return nil
}

// commands yields the commands from cmds until it closes (stdin ended) or
// ctx is done (SIGTERM).
func commands(ctx context.Context, cmds <-chan string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			select {
			case <-ctx.Done():
				return
			case cmd, ok := <-cmds:
				if !ok || !yield(cmd) {
					return
				}
			}
		}
	}
}

// childCanceller answers each "cancel <id>" with Store.Cancel; the event's
// At is the moment just before the call.
func childCanceller(ctx context.Context, s childSpec, store hopper.Store, cmds <-chan string, emit func(procEvent)) error {
	emit(procEvent{Ev: "ready"})
	for cmd := range commands(ctx, cmds) {
		id, ok := strings.CutPrefix(cmd, "cancel ")
		if !ok {
			return fmt.Errorf("command %q: want cancel <id>", cmd)
		}
		at := time.Now()
		st, err := hopper.NewInspector(store).Cancel(ctx, s.Queue, id)
		e := procEvent{Ev: "cancelled", At: at, Job: id, State: st}
		if err != nil {
			e.Ev, e.Err = "error", err.Error()
		}
		emit(e)
	}
	return nil
}

// procLog collects the events of a test's children.
type procLog struct {
	mu     sync.Mutex
	events []procEvent
}

func (l *procLog) add(e procEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// filter returns the events keep accepts, in arrival order.
func (l *procLog) filter(keep func(procEvent) bool) []procEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []procEvent
	for _, e := range l.events {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// count returns how many events keep accepts.
func (l *procLog) count(keep func(procEvent) bool) int { return len(l.filter(keep)) }

// evIs accepts the events named ev.
func evIs(ev string) func(procEvent) bool { return func(e procEvent) bool { return e.Ev == ev } }

// child is a running child process.
type child struct {
	t      *testing.T
	spec   childSpec
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr bytes.Buffer // written by exec's copier until Wait returns
	read   chan struct{}
	once   sync.Once
}

// startChild starts a child process with spec, adding its events to log.
// An "error" event fails the test. The caller stops it (stopChildren),
// normally in a t.Cleanup registered before the child started.
func startChild(t *testing.T, log *procLog, spec childSpec) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	c := &child{t: t, spec: spec, cmd: exec.Command(exe), read: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), childEnv+"="+string(js))
	c.cmd.Stderr = &c.stderr
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(c.read)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var e procEvent
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Errorf("child %s pid %d wrote %q: %v", spec.Role, c.cmd.Process.Pid, sc.Text(), err)
				continue
			}
			if e.Ev == "error" {
				t.Errorf("child %s pid %d: %s", spec.Role, e.PID, e.Err)
			}
			log.add(e)
		}
	}()
	return c
}

// send writes one command line to the child.
func (c *child) send(cmd string) {
	c.t.Helper()
	if _, err := io.WriteString(c.stdin, cmd+"\n"); err != nil {
		c.t.Fatalf("command to child %s: %v", c.spec.Role, err)
	}
}

// stopChildren asks all of cs to shut down gracefully at once (they may
// each take a while: a race-enabled binary lingers a second at exit), then
// waits for each to exit; a child still running 20 s later is killed. A
// child that exits with an error, or is killed, fails the test. Stopping a
// child again does nothing.
func stopChildren(cs []*child) {
	for _, c := range cs {
		_ = c.stdin.Close() // a second Close only returns an error
	}
	for _, c := range cs {
		c.stop()
	}
}

// kill sends SIGKILL to the child and waits for it to die.
func (c *child) kill() {
	c.once.Do(func() {
		_ = c.cmd.Process.Kill()
		<-c.read
		_ = c.cmd.Wait()
	})
}

func (c *child) stop() {
	c.once.Do(func() {
		_ = c.stdin.Close()
		select {
		case <-c.read:
		case <-time.After(20 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.read
			c.t.Errorf("child %s pid %d did not stop within 20 s of its stdin closing; killed", c.spec.Role, c.cmd.Process.Pid)
		}
		if err := c.cmd.Wait(); err != nil {
			c.t.Errorf("child %s pid %d: %v", c.spec.Role, c.cmd.Process.Pid, err)
		}
		if c.t.Failed() {
			c.t.Logf("child %s pid %d stderr:\n%s", c.spec.Role, c.cmd.Process.Pid, tail(c.stderr.String(), 4000))
		}
	})
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
