package redisstore_test

import (
	"context"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
)

// TestWorkflowCancelledBeforeItsFirstTasksAreEnqueued: on one server, a
// workflow whose cancel began between its creation's last step and the
// enqueue of its first tasks (staged or not) has none of them run: the
// tasks being released that the cancel's first step cancelled get no job,
// and once the cancel is done no job of the workflow is left ready and
// every task is cancelled.
func TestWorkflowCancelledBeforeItsFirstTasksAreEnqueued(t *testing.T) {
	for _, stage := range []int{0, 2} {
		t.Run(map[int]string{0: "in one step", 2: "staged"}[stage], func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			rdb := redistest.Start(t).Client(t)
			prefix := redistest.Prefix(t)
			s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
			if stage > 0 {
				redisstore.StageWorkflowTasks(s, stage)
			}
			other := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
			redisstore.BeforeWorkflowRelease(s, func() {
				if err := redisstore.CancelWorkflowStep(ctx, other, "w"); err != nil {
					t.Errorf("CancelWorkflow's first step: %v", err)
				}
			})
			if dup, err := s.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb")); err != nil || dup {
				t.Fatalf("EnqueueWorkflow: dup %v, %v", dup, err)
			}
			// The rest of the cancel: the jobs of the tasks enqueued before
			// it began.
			if err := other.CancelWorkflow(ctx, "w"); err != nil {
				t.Fatalf("CancelWorkflow: %v", err)
			}
			if got := append(readyIDs(t, s, "qa"), readyIDs(t, s, "qb")...); len(got) != 0 {
				t.Fatalf("ready after the workflow was cancelled: %v", got)
			}
			rec, err := s.GetWorkflow(ctx, "w")
			if err != nil {
				t.Fatal(err)
			}
			if rec.State != store.WorkflowCancelled {
				t.Fatalf("workflow %s, want cancelled", rec.State)
			}
			for _, task := range rec.Tasks {
				if task.State != store.TaskCancelled {
					t.Errorf("task %s %s, want cancelled", task.Name, task.State)
				}
			}
			if n := rdb.Exists(ctx, "{"+prefix+":wf:w}:rel").Val(); n != 0 {
				t.Fatal("tasks left being released")
			}
		})
	}
}

// TestWorkflowWhoseFirstTasksASweeperEnqueuedFirst: on one server, when a
// sweeper enqueued a new workflow's first tasks before the process that
// created it did (it was frozen past the release lease), the process
// enqueues none of them again: each runs once.
func TestWorkflowWhoseFirstTasksASweeperEnqueuedFirst(t *testing.T) {
	ctx, prefix, rdb := leaseServer(t)
	s := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	redisstore.StageWorkflowTasks(s, 2)
	sweeper := storeOn(t, rdb, &redisstore.Config{Prefix: prefix})
	redisstore.BeforeWorkflowRelease(s, func() {
		sweepUntil(t, sweeper, "the nine first tasks are ready", func() bool {
			return len(readyIDs(t, sweeper, "qa"))+len(readyIDs(t, sweeper, "qb")) == 9
		})
	})
	if dup, err := s.EnqueueWorkflow(ctx, stagedWorkflow("w", "qa", "qb")); err != nil || dup {
		t.Fatalf("EnqueueWorkflow: dup %v, %v", dup, err)
	}
	if got := append(readyIDs(t, s, "qa"), readyIDs(t, s, "qb")...); len(got) != 9 {
		t.Fatalf("ready: %v, want the nine first tasks once each", got)
	}
	ran := runAll(t, s, "w", "qa", "qb")
	if len(ran) != 11 {
		t.Fatalf("tasks ran %v, want each of the 11 once", ran)
	}
}
