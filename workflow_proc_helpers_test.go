package hopper_test

// The worker processes of TestProcWorkflowsSurviveKilledWorkers: this test
// binary re-executed with a childSpec of role roleWorkflow (started with
// startChild, like the children of proc_helpers_test.go). init takes that
// role before TestMain runs; every other role is left to runChildIfAsked.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/redisstore"
	"github.com/redis/go-redis/v9"
)

// roleWorkflow is a worker of the queues Queue names (comma-separated),
// Concurrency slots, a 2 s lease and its own scheduler, whose WfStep
// handler writes a ledger entry in the Redis list Probe at its start and
// at its end, each stamped with the server's TIME, and works up to Work.
const roleWorkflow = "workflow"

// WfStep is the args of every workflow task of the kill test.
type WfStep struct {
	// Fail makes the task fail permanently (after its work).
	Fail bool `msgpack:"fail,omitempty"`
	// Spawn makes the task add that many tasks d000, d001, ... to its
	// workflow (MoreTasks), each after it and before the task Before, in
	// the queues Queues in turn.
	Spawn  int      `msgpack:"spawn,omitempty"`
	Before string   `msgpack:"before,omitempty"`
	Queues []string `msgpack:"queues,omitempty"`
}

func (WfStep) Kind() string { return "wfstep" }

// spawnedName is the name of the k-th task a Spawn task adds.
func spawnedName(k int) string { return fmt.Sprintf("d%03d", k) }

// wfTaskOpts are the options of every task of the kill test, in queue.
func wfTaskOpts(queue string) *hopper.TaskOpts {
	// Done jobs are kept an hour, so that the test reads each one's ack
	// time (FinishedAt); the retries are many, so that no run of kills
	// uses them up.
	return &hopper.TaskOpts{Queue: queue, Retention: time.Hour, MaxRetries: 1000}
}

// ledgerScript appends ARGV[1] and the server's TIME ("|sec|usec") to the
// list KEYS[1], in one step.
var ledgerScript = redis.NewScript(`local t = redis.call('TIME')
redis.call('RPUSH', KEYS[1], ARGV[1] .. '|' .. t[1] .. '|' .. t[2])
return 1`)

// Ledger marks: an attempt started; it returned nil (it is acked next); it
// returned its permanent failure.
const (
	markStart = "s"
	markEnd   = "e"
	markFail  = "f"
)

// ledgerEntry is one line of the ledger.
type ledgerEntry struct {
	Mark    string
	Job     string
	Attempt int
	PID     int
	At      time.Time // the Redis server's TIME
}

func parseLedgerEntry(s string) (ledgerEntry, error) {
	f := strings.Split(s, "|")
	if len(f) != 6 {
		return ledgerEntry{}, fmt.Errorf("ledger entry %q: want 6 fields", s)
	}
	var e ledgerEntry
	var nums [4]int64
	for i, v := range []string{f[2], f[3], f[4], f[5]} {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return ledgerEntry{}, fmt.Errorf("ledger entry %q: %v", s, err)
		}
		nums[i] = n
	}
	e.Mark, e.Job, e.Attempt, e.PID = f[0], f[1], int(nums[0]), int(nums[1])
	e.At = time.Unix(nums[2], nums[3]*1000)
	return e, nil
}

func init() {
	spec := os.Getenv(childEnv)
	if spec == "" {
		return
	}
	var s childSpec
	if err := json.Unmarshal([]byte(spec), &s); err != nil || s.Role != roleWorkflow {
		return // runChildIfAsked reports a bad spec, and plays the other roles
	}
	if err := runWorkflowChild(s); err != nil {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", s.Role, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// runWorkflowChild runs the worker until stdin closes or SIGTERM.
func runWorkflowChild(s childSpec) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin) // takes no commands
		stop()                               // stdin closed: the parent is done or gone
	}()
	pid := os.Getpid()
	var mu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	emit := func(e procEvent) {
		e.PID, e.At = pid, time.Now()
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(e)
	}

	rdb := redis.NewClient(&redis.Options{Addr: s.Addr})
	defer rdb.Close()
	st := redisstore.New(rdb, &redisstore.Options{Prefix: s.Prefix, Logger: testutil.Logger()})
	cfg := testConfig(strings.Split(s.Queue, ",")...)
	cfg.Concurrency = s.Concurrency
	cfg.Lease = 2 * time.Second
	w := hopper.NewWorker(st, cfg) // with its scheduler: every worker process runs one
	client := hopper.NewClient(st, nil)
	mark := func(ctx context.Context, m string, j *hopper.JobRecord) error {
		err := ledgerScript.Run(ctx, rdb, []string{s.Probe}, fmt.Sprintf("%s|%s|%d|%d", m, j.ID, j.Attempt, pid)).Err()
		if err != nil {
			emit(procEvent{Ev: "error", Job: j.ID, Err: "ledger: " + err.Error()})
		}
		return err
	}
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[WfStep]) error {
		if err := mark(ctx, markStart, j.JobRecord); err != nil {
			return err
		}
		if n := j.Args.Spawn; n > 0 {
			_, self, ok := hopper.TaskOf(j.JobRecord)
			if !ok {
				err := fmt.Errorf("job %s is not a workflow task", j.ID)
				emit(procEvent{Ev: "error", Job: j.ID, Err: err.Error()})
				return err
			}
			more := hopper.MoreTasks(ctx)
			for k := range n {
				q := j.Args.Queues[k%len(j.Args.Queues)]
				hopper.AddTask(more, spawnedName(k), WfStep{}, wfTaskOpts(q)).AfterNamed(self).Before(j.Args.Before)
			}
			if err := hopper.SubmitTasks(ctx, client, more); err != nil {
				emit(procEvent{Ev: "error", Job: j.ID, Err: "SubmitTasks: " + err.Error()})
				return err
			}
		}
		// The task's work: half the tasks take a few milliseconds (many
		// acks, so kills often land between a job's end and its
		// workflow's update), the others up to Work.
		work := time.Millisecond + rand.N(5*time.Millisecond)
		if rand.N(2) == 0 {
			work = time.Millisecond + rand.N(s.Work)
		}
		select {
		case <-time.After(work):
		case <-ctx.Done():
			return ctx.Err()
		}
		if j.Args.Fail {
			if err := mark(ctx, markFail, j.JobRecord); err != nil {
				return err
			}
			return hopper.Permanent(errors.New("this task is designed to fail"))
		}
		return mark(ctx, markEnd, j.JobRecord)
	})
	emit(procEvent{Ev: "ready"})
	return w.Run(ctx)
}
