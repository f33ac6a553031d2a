package hopper_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

// TestJobDeadMessageCountsAttempts: ErrJobDead's message says "after 1
// attempt" (it said "1 attempts"), and "after 2 attempts".
func TestJobDeadMessageCountsAttempts(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	w := hopper.NewWorker(s, testConfig("default"))
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error { return errors.New("boom") })
	startWorker(t, w)
	for retries, want := range map[int]string{hopper.NoRetry: "after 1 attempt: boom", 1: "after 2 attempts: boom"} {
		_, _, err := hopper.EnqueueAndWait[string](t.Context(), c, Echo{}, &hopper.EnqueueOpts{MaxRetries: retries})
		if !errors.Is(err, hopper.ErrJobDead) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("MaxRetries %d: %v, want ErrJobDead ending %q", retries, err, want)
		}
	}
}

// TestSelfDependencyMessage: a task that depends on itself is reported as
// the other cycles are, naming the task, without "task 0:" before it.
func TestSelfDependencyMessage(t *testing.T) {
	c := hopper.NewClient(newStore(), nil)
	for want, build := range map[string]func(wf *hopper.Workflow){
		"hopper: invalid workflow: dependency cycle a -> a": func(wf *hopper.Workflow) {
			a := hopper.AddTask(wf, "a", Echo{}, nil)
			a.After(a)
		},
		"hopper: invalid workflow: dependency cycle a -> b -> a": func(wf *hopper.Workflow) {
			a, b := hopper.AddTask(wf, "a", Echo{}, nil), hopper.AddTask(wf, "b", Echo{}, nil)
			a.After(b)
			b.After(a)
		},
	} {
		wf := hopper.NewWorkflow("cycle", nil)
		hopper.AddTask(wf, "first", Echo{}, nil)
		build(wf)
		if _, err := hopper.EnqueueWorkflow(t.Context(), c, wf); !errors.Is(err, hopper.ErrInvalidWorkflow) || err.Error() != want {
			t.Errorf("EnqueueWorkflow: %v, want %q", err, want)
		}
	}
}

// TestOnDeadCancelledErrorIsOneLine: the error OnDead gets for a running
// job that was cancelled reads on one line (it was errors.Join's "hopper:
// job cancelled\ncontext canceled") and still wraps both.
func TestOnDeadCancelledErrorIsOneLine(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	cfg := testConfig("default")
	dead := make(chan error, 1)
	cfg.Hooks.OnDead = func(ctx context.Context, job *hopper.JobRecord, err error) { dead <- err }
	w := hopper.NewWorker(s, cfg)
	started := make(chan struct{}, 1)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})
	startWorker(t, w)
	info, err := hopper.Enqueue(t.Context(), c, Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := hopper.NewInspector(s).CancelJob(t.Context(), "default", info.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-dead:
		if want := "hopper: job cancelled: context canceled"; err == nil || err.Error() != want ||
			!errors.Is(err, hopper.ErrCancelled) || !errors.Is(err, context.Canceled) {
			t.Errorf("OnDead got %q, want %q wrapping ErrCancelled and context.Canceled", err, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnDead did not run within 10s of the cancel")
	}
}

// TestEnqueueIntoAPartitionName: a queue named as a partition ("q~1") is
// refused by the client with ErrInvalidQueue, its message said once, and
// nothing is stored: memstore stored the job in a queue of that name, and
// redisstore refused it with "hopper: enqueue: hopper: invalid queue
// name: ...".
func TestEnqueueIntoAPartitionName(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		ctx := t.Context()
		st := open()
		c := hopper.NewClient(st, nil)
		const q = "q~1"
		wf := hopper.NewWorkflow("partition", nil)
		hopper.AddTask(wf, "a", Echo{}, &hopper.TaskOpts{Queue: q})
		for name, do := range map[string]func() error{
			"Enqueue": func() error { _, err := hopper.Enqueue(ctx, c, Echo{}, &hopper.EnqueueOpts{Queue: q}); return err },
			"EnqueueMany": func() error {
				_, err := hopper.EnqueueMany(ctx, c, []Echo{{}}, &hopper.EnqueueOpts{Queue: q})
				return err
			},
			"Prepare": func() error { _, err := hopper.Prepare(c, Echo{}, &hopper.EnqueueOpts{Queue: q}); return err },
			"AddTask": func() error { _, err := hopper.EnqueueWorkflow(ctx, c, wf); return err },
		} {
			err := do()
			if !errors.Is(err, hopper.ErrInvalidQueue) || !strings.Contains(err.Error(), `"q~1" names a partition of queue "q"`) ||
				strings.Count(err.Error(), "hopper: ") != 1 {
				t.Errorf("%s into %q: %v; want one ErrInvalidQueue message naming the partition", name, q, err)
			}
		}
		if p := panicOf(func() { hopper.NewClient(st, &hopper.ClientConfig{Queue: q}) }); !errors.Is(p, hopper.ErrInvalidConfig) || !errors.Is(p, hopper.ErrInvalidQueue) {
			t.Errorf("NewClient with ClientConfig.Queue %q panicked with %v, want ErrInvalidConfig wrapping ErrInvalidQueue", q, p)
		}
		if qs, err := st.ListQueues(ctx); err != nil || len(qs) != 0 {
			t.Errorf("queues %q, %v after only refused enqueues", qs, err)
		}
	})
}

// TestCancelledJobDeadMessage: Wait on a cancelled job says "hopper:" and
// "cancelled" once, with the cancellation's cause when it had one; it said
// `hopper: job died (hopper: job cancelled): job "…" of queue "default":
// hopper: job cancelled: context canceled`. It still wraps ErrJobDead and
// ErrCancelled.
func TestCancelledJobDeadMessage(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	in := hopper.NewInspector(s)
	w := hopper.NewWorker(s, testConfig("default"))
	started := make(chan struct{}, 1)
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Echo]) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	})
	startWorker(t, w)
	check := func(what string, err error, want string) {
		t.Helper()
		if !errors.Is(err, hopper.ErrJobDead) || !errors.Is(err, hopper.ErrCancelled) || err.Error() != want {
			t.Errorf("%s: %v, want %q wrapping ErrJobDead and ErrCancelled", what, err, want)
		}
	}

	waiting, err := hopper.Enqueue(t.Context(), c, Echo{}, &hopper.EnqueueOpts{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := in.CancelJob(t.Context(), "default", waiting.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.WaitJob(t.Context(), "default", waiting.ID)
	check("a waiting job cancelled", err, `hopper: job died (cancelled): job "`+waiting.ID+`" of queue "default"`)

	running, err := hopper.Enqueue(t.Context(), c, Echo{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if _, err := in.CancelJob(t.Context(), "default", running.ID); err != nil {
		t.Fatal(err)
	}
	_, err = c.WaitJob(t.Context(), "default", running.ID)
	check("a running job cancelled", err, `hopper: job died (cancelled): job "`+running.ID+`" of queue "default": context canceled`)
}

// TestSetGroupLimitBadGroupMessage: SetGroupLimit with an invalid group
// says "hopper:" once (it said `hopper: invalid config: hopper: invalid
// job: Group "a b" ...`), on both stores, still wrapping ErrInvalidConfig
// and ErrInvalidJob.
func TestSetGroupLimitBadGroupMessage(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func() hopper.Store) {
		err := hopper.NewInspector(open()).SetGroupLimit(t.Context(), "default", "a b", 1)
		want := `hopper: invalid config: Group "a b" has " " at byte 1 (allowed: printable ASCII, no spaces or commas)`
		if err == nil || err.Error() != want {
			t.Errorf("SetGroupLimit: %v, want %q", err, want)
		}
		checkSaidOnce(t, "SetGroupLimit", err, hopper.ErrInvalidConfig, hopper.ErrInvalidJob)
	})
}
