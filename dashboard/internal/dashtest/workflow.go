package dashtest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// StepArgs are the args of the workflow fixture's tasks.
type StepArgs struct {
	Step string `msgpack:"step"`
}

// Kind implements hopper.Args.
func (StepArgs) Kind() string { return "etl_step" }

// ChunkArgs are the args of the fan-out's chunks.
type ChunkArgs struct {
	Chunk int `msgpack:"chunk"`
}

// Kind implements hopper.Args.
func (ChunkArgs) Kind() string { return "process_chunk" }

// Fixture workflows' IDs, names and sizes.
const (
	FailedWF    = "etl-1"
	RunningWF   = "fanout-1"
	SucceededWF = "ping-1"
	FanOutWidth = 5
)

// WorkflowFixture is a store seeded with a workflow in each of the
// states failed, running and succeeded. Each runs in queues of its own
// ("etl", "fan", "ping"), so it combines with Seed's jobs, and every task
// job is kept an hour after it succeeds, so its page exists.
type WorkflowFixture struct {
	Store hopper.Store
	// Failed is FailedWF, "nightly etl", a chain in queue "etl": extract
	// succeeded, transform failed (its job is in garbage), load and
	// report were skipped.
	Failed string
	// Running is RunningWF, a fan-out in queue "fan": split succeeded,
	// FanOutWidth chunks enqueued (RunningTask claimed and running, the
	// others ready), merge waiting for them.
	Running     string
	RunningTask string
	RunningJob  *hopper.JobRecord // the claimed chunk's job, to finish it
	// Succeeded is SucceededWF, a single task in queue "ping", acked; its
	// name is XSSText.
	Succeeded string
}

// SeedWorkflows adds the fixture's workflows to s.
func SeedWorkflows(t *testing.T, s hopper.Store) *WorkflowFixture {
	t.Helper()
	ctx := context.Background()
	c := hopper.NewClient(s, nil)
	f := &WorkflowFixture{Store: s, Failed: FailedWF, Running: RunningWF, Succeeded: SucceededWF}
	opts := func(queue string) *hopper.TaskOpts {
		return &hopper.TaskOpts{Queue: queue, Retention: time.Hour, MaxRetries: hopper.NoRetry}
	}
	enqueue := func(wf *hopper.Workflow) {
		t.Helper()
		if _, err := hopper.EnqueueWorkflow(ctx, c, wf); err != nil {
			t.Fatalf("EnqueueWorkflow: %v", err)
		}
	}

	etl := hopper.NewWorkflow("nightly etl", &hopper.WorkflowOpts{ID: FailedWF})
	etl.Chain(
		hopper.AddTask(etl, "extract", StepArgs{Step: "extract"}, opts("etl")),
		hopper.AddTask(etl, "transform", StepArgs{Step: "transform"}, opts("etl")),
		hopper.AddTask(etl, "load", StepArgs{Step: "load"}, opts("etl")),
		hopper.AddTask(etl, "report", StepArgs{Step: "report"}, opts("etl")),
	)
	enqueue(etl)
	RunTask(t, s, "etl", FailedWF, "extract", hopper.OutcomeAck)
	RunTask(t, s, "etl", FailedWF, "transform", hopper.OutcomeGarbage)

	fan := hopper.NewWorkflow("thumbnails", &hopper.WorkflowOpts{ID: RunningWF})
	split := hopper.AddTask(fan, "split", StepArgs{Step: "split"}, opts("fan"))
	merge := hopper.AddTask(fan, "merge", StepArgs{Step: "merge"}, opts("fan"))
	for i := range FanOutWidth {
		chunk := hopper.AddTask(fan, fmt.Sprintf("chunk-%d", i), ChunkArgs{Chunk: i}, opts("fan")).After(split)
		merge.After(chunk)
	}
	enqueue(fan)
	RunTask(t, s, "fan", RunningWF, "split", hopper.OutcomeAck)
	f.RunningJob = Claim(t, s, "fan")
	_, f.RunningTask, _ = hopper.TaskOf(f.RunningJob)

	ping := hopper.NewWorkflow(XSSText, &hopper.WorkflowOpts{ID: SucceededWF})
	hopper.AddTask(ping, "ping", StepArgs{Step: "ping"}, opts("ping"))
	enqueue(ping)
	RunTask(t, s, "ping", SucceededWF, "ping", hopper.OutcomeAck)
	return f
}

// Claim claims the next job of queue, which must have one.
func Claim(t *testing.T, s hopper.Store, queue string) *hopper.JobRecord {
	t.Helper()
	res, err := s.Claim(context.Background(), store.ClaimOpts{Queue: queue, Max: 1, Lease: time.Hour, WorkerID: "test-worker"})
	if err != nil || len(res.Jobs) != 1 {
		t.Fatalf("Claim(%s): %v, %v; want one job", queue, res.Jobs, err)
	}
	return res.Jobs[0]
}

// Finish ends a claimed job with outcome (an error for a failure).
func Finish(t *testing.T, s hopper.Store, j *hopper.JobRecord, outcome hopper.Outcome) {
	t.Helper()
	req := store.AttemptEnd{Queue: j.Queue, ID: j.ID, Token: j.Token, Outcome: outcome, Retention: time.Hour}
	if outcome != hopper.OutcomeAck {
		req.Error = &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: "step failed: " + GarbageError}
	}
	errs, err := s.Finish(context.Background(), []store.AttemptEnd{req})
	if err != nil || errs[0] != nil {
		t.Fatalf("Finish(%s, %v): %v %v", j.ID, outcome, err, errs)
	}
}

// RunTask claims the next job of queue, which must be task of workflow
// wf, and ends it with outcome.
func RunTask(t *testing.T, s hopper.Store, queue, wf, task string, outcome hopper.Outcome) {
	t.Helper()
	j := Claim(t, s, queue)
	if j.ID != store.TaskJobID(wf, task) {
		t.Fatalf("claimed %s from %s, want task %s of %s", j.ID, queue, task, wf)
	}
	Finish(t, s, j, outcome)
}

// TaskStates returns the state of every task of workflow id.
func TaskStates(t *testing.T, s hopper.Store, id string) map[string]hopper.TaskState {
	t.Helper()
	rec, err := hopper.NewInspector(s).GetWorkflow(context.Background(), id)
	if err != nil {
		t.Fatalf("Workflow(%s): %v", id, err)
	}
	out := make(map[string]hopper.TaskState, len(rec.Tasks))
	for _, task := range rec.Tasks {
		out[task.Name] = task.State
	}
	return out
}

// WorkflowState returns the state of workflow id.
func WorkflowState(t *testing.T, s hopper.Store, id string) hopper.WorkflowState {
	t.Helper()
	rec, err := hopper.NewInspector(s).GetWorkflow(context.Background(), id)
	if err != nil {
		t.Fatalf("Workflow(%s): %v", id, err)
	}
	return rec.State
}
