package hopper_test

// The worker processes of TestProcWorkflowsSurviveKilledWorkers: children
// (proc_helpers_test.go) of role roleWorkflow.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/redis/go-redis/v9"
)

// roleWorkflow is a worker of the queues Queue names (comma-separated),
// Concurrency slots, a 2 s lease and its own scheduler, whose WfStep
// handler reports a ledger mark at its start and at its end, each stamped
// with the Redis server's TIME (StoreAt), and works up to Work.
const roleWorkflow = "workflow"

func init() { proctest.Register(roleWorkflow, storeRole(runWorkflowChild)) }

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

// Ledger marks, the Ev of the events: an attempt started; it returned nil
// (it is acked next); it returned its permanent failure.
const (
	markStart = "start"
	markEnd   = "end"
	markFail  = "fail"
)

// runWorkflowChild runs the worker until the child is stopped.
func runWorkflowChild(ctx context.Context, c *proctest.Child, s childSpec, rdb *redis.Client, st hopper.Store) error {
	cfg := testConfig(strings.Split(s.Queue, ",")...)
	cfg.Concurrency = s.Concurrency
	cfg.Lease = 2 * time.Second
	w := hopper.NewWorker(st, cfg) // with its scheduler: every worker process runs one
	client := hopper.NewClient(st, nil)
	// mark reports a ledger mark with the server's time: taken before the
	// handler goes on, and reported before it returns (so before its ack).
	mark := func(ctx context.Context, m string, j *hopper.JobRecord) error {
		now, err := rdb.Time(ctx).Result()
		if err != nil {
			return c.Error(j.ID, fmt.Errorf("ledger: %w", err))
		}
		c.Emit(proctest.Event{Ev: m, Job: j.ID, Attempt: j.Attempt, StoreAt: now})
		return nil
	}
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[WfStep]) error {
		if err := mark(ctx, markStart, j.JobRecord); err != nil {
			return err
		}
		if n := j.Args.Spawn; n > 0 {
			_, self, ok := hopper.TaskOf(j.JobRecord)
			if !ok {
				return c.Error(j.ID, fmt.Errorf("job %s is not a workflow task", j.ID))
			}
			more := hopper.MoreTasks(ctx)
			for k := range n {
				q := j.Args.Queues[k%len(j.Args.Queues)]
				hopper.AddTask(more, spawnedName(k), WfStep{}, wfTaskOpts(q)).AfterNamed(self).Before(j.Args.Before)
			}
			if err := hopper.EnqueueTasks(ctx, client, more); err != nil {
				return c.Error(j.ID, fmt.Errorf("EnqueueTasks: %w", err))
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
	c.Ready()
	return w.Run(ctx)
}
