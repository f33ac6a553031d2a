// Package evidence is what the rolling-upgrade test's programs write to
// Redis and the test reads back, and the queue names they share: which jobs were produced, which ran to
// success and how often, and what order they ran in. Its keys live
// outside hopper's prefix, under "upgradetest:", so no hopper version and
// no migration ever touches them.
//
// The package is copied into the old tree with the program, so it uses
// nothing of hopper: only go-redis, whose API both trees share.
package evidence

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// The queues the programs use, one per kind of job, so that a queue's
// counts say something on their own (garbage holds only the doomed jobs of
// QueueDead).
const (
	QueueMain   = "ut_main"   // plain, delayed and retried jobs
	QueueDead   = "ut_dead"   // doomed jobs
	QueueGroups = "ut_groups" // grouped jobs, one at a time per group
	QueueFlow   = "ut_flow"   // workflow tasks
	QueueTick   = "ut_tick"   // the schedule's ticks
)

// Queues lists every queue.
var Queues = []string{QueueMain, QueueDead, QueueGroups, QueueFlow, QueueTick}

// The queue settings the setup writes, before any job: rate limits far
// above the load (they never hold a job back), so that the upgrade
// carries settings the migration rewrites, and groups capped at one
// running job. The test checks they survive the upgrade.
const (
	MainRateLimit   = 2000 // QueueMain: RateLimit a second
	FlowRateLimit   = 200  // QueueFlow: RateLimit a second, RateSmooth
	GroupMaxRunning = 1    // QueueGroups: GroupMaxRunning
	GroupRateLimit  = 50   // QueueGroups: GroupRateLimit a second
)

// Classes of produced jobs, each a set of payload IDs (Produced).
const (
	Plain    = "plain"    // succeeds at once
	Delayed  = "delayed"  // succeeds, 0.5 to 5 s after its enqueue
	Retried  = "retried"  // fails its first attempt, then succeeds
	Doomed   = "doomed"   // always fails: ends in garbage
	Grouped  = "grouped"  // one at a time in its group, in enqueue order
	Task     = "task"     // a workflow's task
	Workflow = "workflow" // a workflow (its ID)
)

// Classes lists every class.
var Classes = []string{Plain, Delayed, Retried, Doomed, Grouped, Task, Workflow}

const root = "upgradetest:"

// Keys.
const (
	// KeyOK counts the successful runs of each payload ID (a hash): a
	// handler that returned nil. A failed attempt is not a run to success.
	KeyOK = root + "ok"
	// KeyFailed counts the failed attempts of each payload ID.
	KeyFailed = root + "failed"
	// KeyEarly holds, per payload ID, how many milliseconds before its
	// NotBefore a delayed job ran.
	KeyEarly = root + "early"
	// KeyRan counts runs (successes and failures) by program version.
	KeyRan = root + "ran"
	// KeyWorker counts runs by worker name.
	KeyWorker = root + "worker"
	// KeyOverlap counts, per group, starts that found another job of the
	// group running (the group is capped at one).
	KeyOverlap = root + "overlap"
	// KeyEarlyTask counts, per task payload ID, the dependencies that had
	// not completed when it started.
	KeyEarlyTask = root + "earlytask"
	// KeyTicks counts the runs of each schedule tick (Unix ms of the tick).
	KeyTicks = root + "ticks"
	// KeyEnqueued counts the jobs and workflows enqueued, by producer.
	KeyEnqueued = root + "enqueued"
	// KeyEnqueueErrors counts failed enqueue calls by producer (each was
	// retried under the same ID until it succeeded).
	KeyEnqueueErrors = root + "enqueue_errors"
)

// Produced is the set of payload IDs a producer enqueued of class.
func Produced(class string) string { return root + "produced:" + class }

// GroupOrder is the list of a group's sequence numbers in the order its
// jobs completed.
func GroupOrder(group string) string { return root + "grp:" + group }

// groupRunning counts a group's running jobs.
func groupRunning(group string) string { return root + "grun:" + group }

// Recorder writes the evidence of one process.
type Recorder struct {
	rdb     *redis.Client
	version string
	worker  string
}

// NewRecorder returns a Recorder writing with rdb as program version
// version and process name worker.
func NewRecorder(rdb *redis.Client, version, worker string) *Recorder {
	return &Recorder{rdb: rdb, version: version, worker: worker}
}

// Produced records that the job id of class was enqueued (the enqueue
// returned).
func (r *Recorder) Produced(ctx context.Context, class, id string) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, Produced(class), id)
		p.HIncrBy(ctx, KeyEnqueued, r.worker, 1)
		return nil
	})
	return err
}

// ProducedWorkflow records that the workflow id, with the tasks of
// payload IDs tasks, was enqueued.
func (r *Recorder) ProducedWorkflow(ctx context.Context, id string, tasks ...string) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.SAdd(ctx, Produced(Workflow), id)
		for _, task := range tasks {
			p.SAdd(ctx, Produced(Task), task)
		}
		p.HIncrBy(ctx, KeyEnqueued, r.worker, 1)
		return nil
	})
	return err
}

// EnqueueError counts one failed enqueue call of producer.
func (r *Recorder) EnqueueError(ctx context.Context) {
	r.rdb.HIncrBy(ctx, KeyEnqueueErrors, r.worker, 1)
}

// Succeeded records a run of id that succeeded; with a group, the job's
// place seq in its group's order.
func (r *Recorder) Succeeded(ctx context.Context, id, group string, seq int) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HIncrBy(ctx, KeyOK, id, 1)
		r.ran(ctx, p)
		if group != "" {
			p.RPush(ctx, GroupOrder(group), seq)
		}
		return nil
	})
	return err
}

// Failed records a failed attempt of id.
func (r *Recorder) Failed(ctx context.Context, id string) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HIncrBy(ctx, KeyFailed, id, 1)
		r.ran(ctx, p)
		return nil
	})
	return err
}

// Ticked records a run of the schedule's tick.
func (r *Recorder) Ticked(ctx context.Context, tick time.Time) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HIncrBy(ctx, KeyTicks, strconv.FormatInt(tick.UnixMilli(), 10), 1)
		r.ran(ctx, p)
		return nil
	})
	return err
}

func (r *Recorder) ran(ctx context.Context, p redis.Pipeliner) {
	p.HIncrBy(ctx, KeyRan, r.version, 1)
	p.HIncrBy(ctx, KeyWorker, r.worker, 1)
}

// Early records that id ran ms milliseconds before it was allowed to.
func (r *Recorder) Early(ctx context.Context, id string, ms int64) error {
	return r.rdb.HSet(ctx, KeyEarly, id, ms).Err()
}

// EnterGroup marks a job of group as running and counts an overlap when
// another one was; LeaveGroup undoes it.
func (r *Recorder) EnterGroup(ctx context.Context, group string) error {
	n, err := r.rdb.Incr(ctx, groupRunning(group)).Result()
	if err == nil && n > 1 {
		err = r.rdb.HIncrBy(ctx, KeyOverlap, group, 1).Err()
	}
	return err
}

// LeaveGroup marks a job of group as no longer running.
func (r *Recorder) LeaveGroup(ctx context.Context, group string) error {
	return r.rdb.Decr(ctx, groupRunning(group)).Err()
}

// CheckDeps counts, for task id, the dependencies that have not
// completed (KeyEarlyTask).
func (r *Recorder) CheckDeps(ctx context.Context, id string, deps []string) error {
	if len(deps) == 0 {
		return nil
	}
	vals, err := r.rdb.HMGet(ctx, KeyOK, deps...).Result()
	if err != nil {
		return err
	}
	missing := 0
	for _, v := range vals {
		if v == nil {
			missing++
		}
	}
	if missing > 0 {
		return r.rdb.HIncrBy(ctx, KeyEarlyTask, id, int64(missing)).Err()
	}
	return nil
}
