package hopper_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestNilClient: every function that takes a *Client, and every method of
// Client that returns an error, returns an error wrapping ErrInvalidConfig
// for a nil one (Subscribe yields it once and ends), where it panicked
// with a nil dereference; Store returns nil, and Use panics at once with
// a message naming the nil *Client. A zero Client (a field nobody set,
// not made by NewClient) gets the same error: Enqueue said "invalid queue
// name: empty" or panicked, and WaitJob "not supported by this store".
func TestNilClient(t *testing.T) {
	var zero hopper.Client
	for _, tc := range []struct {
		name string
		c    *hopper.Client
	}{{"nil", nil}, {"zero", &zero}} {
		t.Run(tc.name, func(t *testing.T) { testUnmadeClient(t, tc.c, tc.name == "nil") })
	}
}

// testUnmadeClient is TestNilClient for nc, a nil Client when isNil, else
// a zero one.
func testUnmadeClient(t *testing.T, nc *hopper.Client, isNil bool) {
	ctx := t.Context()
	p, err := hopper.Prepare(hopper.NewClient(newStore(), nil), Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	wf := hopper.NewWorkflow("nil client", nil)
	hopper.AddTask(wf, "a", Echo{}, nil)
	cases := []struct {
		name string
		do   func() error
	}{
		{"Enqueue", func() error { _, err := hopper.Enqueue(ctx, nc, Echo{}, nil); return err }},
		{"Enqueue to a queue", func() error {
			_, err := hopper.Enqueue(ctx, nc, Echo{}, &hopper.EnqueueOpts{Queue: "q"})
			return err
		}},
		{"EnqueueMany", func() error { _, err := hopper.EnqueueMany(ctx, nc, []Echo{{}}, nil); return err }},
		{"EnqueueAndWait", func() error { _, _, err := hopper.EnqueueAndWait[int](ctx, nc, Echo{}, nil); return err }},
		{"WaitResult", func() error { _, err := hopper.WaitResult[int](ctx, nc, "default", "id"); return err }},
		{"Prepare", func() error { _, err := hopper.Prepare(nc, Echo{}, nil); return err }},
		{"PrepareMany", func() error { _, err := hopper.PrepareMany(nc, []Echo{{}}, nil); return err }},
		{"EnqueuePrepared", func() error { _, err := hopper.EnqueuePrepared(ctx, nc, []*hopper.PreparedJob{p}); return err }},
		{"EnqueueWorkflow", func() error { _, err := hopper.EnqueueWorkflow(ctx, nc, wf); return err }},
		{"EnqueueTasks", func() error { return hopper.EnqueueTasks(ctx, nc, hopper.MoreTasks(context.Background())) }},
		{"WaitJob", func() error { _, err := nc.WaitJob(ctx, "default", "id"); return err }},
		{"WaitWorkflow", func() error { _, err := nc.WaitWorkflow(ctx, "id"); return err }},
		{"Subscribe", func() error {
			var errs []error
			for _, err := range nc.Subscribe(ctx, []string{"default"}, nil) {
				errs = append(errs, err)
				if len(errs) > 1 {
					break
				}
			}
			if len(errs) != 1 {
				return fmt.Errorf("yielded %d errors (%v), want one and the end", len(errs), errs)
			}
			return errs[0]
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if p := panicText(func() { err = tc.do() }); p != "" {
				t.Fatalf("panicked: %s", p)
			}
			if !errors.Is(err, hopper.ErrInvalidConfig) || !strings.Contains(err.Error(), "nil or zero *Client (make one with NewClient)") {
				t.Fatalf("got %v, want ErrInvalidConfig naming the nil or zero *Client", err)
			}
		})
	}
	if !isNil {
		return
	}
	t.Run("Store", func(t *testing.T) {
		var st hopper.Store
		if p := panicText(func() { st = nc.Store() }); p != "" || st != nil {
			t.Fatalf("Store on a nil *Client: %v (panic %q), want nil", st, p)
		}
	})
	t.Run("Use", func(t *testing.T) {
		mw := func(next hopper.EnqueueFunc) hopper.EnqueueFunc { return next }
		if p := panicText(func() { nc.Use(mw) }); !strings.Contains(p, "hopper: Client.Use on a nil *Client") {
			t.Fatalf("Use on a nil *Client panicked with %q, want a message naming the nil *Client", p)
		}
	})
}

// TestAddTaskToNilWorkflow: AddTask on a nil *Workflow does not panic (it
// did, as did its task's methods): as for AddTask's other bad input, the
// error comes from EnqueueWorkflow, here for the nil workflow, and from
// a workflow whose task depends on the stray task.
func TestAddTaskToNilWorkflow(t *testing.T) {
	ctx := t.Context()
	c := hopper.NewClient(newStore(), nil)
	var nilWf *hopper.Workflow
	var stray *hopper.Task
	if p := panicText(func() {
		stray = hopper.AddTask(nilWf, "stray", Echo{}, nil)
		stray.After(stray).AllowFailure().AnyOutcome()
	}); p != "" {
		t.Fatalf("AddTask on a nil workflow panicked: %s", p)
	}
	if stray.Name() != "stray" {
		t.Errorf("the task is named %q, want stray", stray.Name())
	}
	if _, err := hopper.EnqueueWorkflow(ctx, c, nilWf); !errors.Is(err, hopper.ErrInvalidWorkflow) {
		t.Errorf("EnqueueWorkflow of the nil workflow: %v, want ErrInvalidWorkflow", err)
	}
	wf := hopper.NewWorkflow("real", nil)
	hopper.AddTask(wf, "b", Echo{}, nil).After(stray)
	if _, err := hopper.EnqueueWorkflow(ctx, c, wf); !errors.Is(err, hopper.ErrInvalidWorkflow) || !strings.Contains(err.Error(), `depends on task "stray" of another workflow`) {
		t.Errorf("EnqueueWorkflow of a workflow whose task depends on the stray task: %v, want ErrInvalidWorkflow naming it", err)
	}
}
