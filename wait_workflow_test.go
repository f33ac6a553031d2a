package hopper_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// TestWaitWorkflow: Client.WaitWorkflow returns a workflow as it ended on
// both stores: nil for one that succeeded, ErrWorkflowFailed for one that
// failed, with ErrCancelled for one cancelled; at once for one that has
// ended; ErrWorkflowNotFound for an unknown one; ctx's error first.
func TestWaitWorkflow(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		s := open()
		c := hopper.NewClient(s, nil)
		squareWorker(t, s)
		enqueue := func(n int, delay time.Duration) string {
			t.Helper()
			wf := hopper.NewWorkflow("square", nil)
			wf.Chain(hopper.AddTask(wf, "first", Square{N: 2}, nil), hopper.AddTask(wf, "second", Square{N: n}, &hopper.TaskOpts{MaxRetries: hopper.NoRetry, Delay: delay}))
			info, err := hopper.EnqueueWorkflow(ctx, c, wf)
			if err != nil {
				t.Fatal(err)
			}
			return info.ID
		}

		ok := enqueue(3, 0)
		rec, err := c.WaitWorkflow(ctx, ok)
		if err != nil || rec.State != hopper.WorkflowSucceeded || len(rec.Tasks) != 2 {
			t.Fatalf("a workflow that succeeds: %+v, %v; want succeeded with its 2 tasks", rec, err)
		}
		if again, err := c.WaitWorkflow(ctx, ok); err != nil || again.State != hopper.WorkflowSucceeded {
			t.Fatalf("waiting again for an ended workflow: %+v, %v; want it at once", again, err)
		}

		failed := enqueue(-1, 0)
		rec, err = c.WaitWorkflow(ctx, failed)
		if !errors.Is(err, hopper.ErrWorkflowFailed) || errors.Is(err, hopper.ErrCancelled) || rec == nil || rec.State != hopper.WorkflowFailed {
			t.Fatalf("a workflow whose task fails: %+v, %v; want it failed with ErrWorkflowFailed", rec, err)
		}
		if !strings.HasSuffix(err.Error(), `: task "second" failed`) {
			t.Errorf("a workflow whose task fails: %q, want the error to name the task (it named the workflow alone)", err)
		}

		held := enqueue(4, time.Hour) // its second task waits an hour
		waited := make(chan error, 1)
		go func() {
			_, err := c.WaitWorkflow(ctx, held)
			waited <- err
		}()
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, err := c.WaitWorkflow(short, held); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("waiting past ctx's deadline: %v, want context.DeadlineExceeded", err)
		}
		if err := hopper.NewInspector(s).CancelWorkflow(ctx, held); err != nil {
			t.Fatal(err)
		}
		// It said "hopper: workflow failed (hopper: job cancelled)".
		if err := <-waited; !errors.Is(err, hopper.ErrWorkflowFailed) || !errors.Is(err, hopper.ErrCancelled) ||
			err.Error() != `hopper: workflow failed (cancelled): workflow "`+held+`"` {
			t.Fatalf("a cancelled workflow: %v, want ErrWorkflowFailed and ErrCancelled, \"hopper:\" once", err)
		}

		if _, err := c.WaitWorkflow(ctx, "no-such-workflow"); !errors.Is(err, hopper.ErrWorkflowNotFound) {
			t.Fatalf("an unknown workflow: %v, want ErrWorkflowNotFound", err)
		}
	})
}
