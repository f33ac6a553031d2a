package hoppertest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/hoppertest"
	"github.com/hopperq/hopper/memstore"
)

// recordingT records a failure instead of stopping the test, so that the
// helpers' failures themselves can be checked.
type recordingT struct {
	failed string
}

func (r *recordingT) Helper()        {}
func (r *recordingT) Cleanup(func()) {}
func (r *recordingT) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	panic(r)
}

// fails runs f with a recording T and returns the failure message ("" when
// f did not fail).
func fails(f func(t hoppertest.T)) (msg string) {
	r := &recordingT{}
	defer func() {
		if p := recover(); p != nil && p != r {
			panic(p)
		}
		msg = r.failed
	}()
	f(r)
	return ""
}

func TestRequireEnqueuedSaysWhatItFound(t *testing.T) {
	ctx := t.Context()
	s := memstore.New(nil)
	c := hopper.NewClient(s, nil)
	if err := signup(ctx, c, 1, "ada@example.com"); err != nil {
		t.Fatal(err)
	}
	msg := fails(func(ft hoppertest.T) {
		hoppertest.RequireEnqueued(ctx, ft, s, SendWelcome{UserID: 1, Email: "bob@example.com"}, nil)
	})
	if !strings.Contains(msg, "no job of kind \"send_welcome\"") || !strings.Contains(msg, "ada@example.com") {
		t.Fatalf("failure %q, want it to name the kind and list the job it saw", msg)
	}
	if msg := fails(func(ft hoppertest.T) {
		hoppertest.RequireEnqueued(ctx, ft, s, SendWelcome{UserID: 1, Email: "ada@example.com"}, &hoppertest.RequireOpts{Queue: "other"})
	}); msg == "" {
		t.Fatal("RequireEnqueued found the job in a queue it is not in")
	}
	if msg := fails(func(ft hoppertest.T) {
		hoppertest.RequireNotEnqueued(ctx, ft, s, SendWelcome{UserID: 1, Email: "ada@example.com"}, nil)
	}); !strings.Contains(msg, "want none") {
		t.Fatalf("RequireNotEnqueued of an enqueued job: failure %q", msg)
	}
}

func TestWorkOutcomes(t *testing.T) {
	ctx := t.Context()
	boom := errors.New("boom")
	cases := []struct {
		name    string
		fn      func(context.Context, *hopper.Job[SendWelcome]) error
		opts    *hoppertest.WorkOpts
		outcome hopper.Outcome
		state   hopper.JobState
	}{
		{"ack deletes", func(context.Context, *hopper.Job[SendWelcome]) error { return nil }, nil, hopper.OutcomeAck, ""},
		{"error retries", func(context.Context, *hopper.Job[SendWelcome]) error { return boom }, nil, hopper.OutcomeRetry, hopper.StateRetry},
		{"last attempt dies", func(context.Context, *hopper.Job[SendWelcome]) error { return boom },
			&hoppertest.WorkOpts{Enqueue: &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry}}, hopper.OutcomeGarbage, hopper.StateGarbage},
		{"panic retries with its stack", func(context.Context, *hopper.Job[SendWelcome]) error { panic("bug") }, nil, hopper.OutcomeRetry, hopper.StateRetry},
		{"snooze", func(context.Context, *hopper.Job[SendWelcome]) error { return hopper.Snooze(time.Minute) }, nil, hopper.OutcomeSnooze, hopper.StatePending},
		{"timeout", func(ctx context.Context, _ *hopper.Job[SendWelcome]) error { <-ctx.Done(); return ctx.Err() },
			&hoppertest.WorkOpts{Enqueue: &hopper.EnqueueOpts{Timeout: 10 * time.Millisecond}}, hopper.OutcomeRetry, hopper.StateRetry},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := hoppertest.Work(ctx, t, c.fn, SendWelcome{UserID: 1}, c.opts)
			if res.Outcome != c.outcome {
				t.Fatalf("outcome %v, want %v (handler returned %v)", res.Outcome, c.outcome, res.Err)
			}
			if c.state == "" {
				if res.Job != nil {
					t.Fatalf("job %+v left in the store, want it gone", res.Job)
				}
				return
			}
			if res.Job == nil || res.Job.State != c.state {
				t.Fatalf("job after the attempt: %+v, want state %s", res.Job, c.state)
			}
			if c.name == "panic retries with its stack" && (len(res.Job.Errors) != 1 || res.Job.Errors[0].Stack == "") {
				t.Fatalf("errors %+v, want the panic with its stack", res.Job.Errors)
			}
		})
	}
}

// Drain with a Clock: a failed job waits in retry for its backoff and runs
// again only once the clock passes it.
func TestDrainFollowsTheClock(t *testing.T) {
	ctx := t.Context()
	clock := hoppertest.NewClock(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	s := memstore.New(&memstore.Config{Clock: clock.Now})
	if _, err := hopper.Enqueue(ctx, hopper.NewClient(s, nil), SendWelcome{UserID: 3}, nil); err != nil {
		t.Fatal(err)
	}
	w := hopper.NewWorker(s, &hopper.WorkerConfig{Backoff: func(int, error) time.Duration { return time.Minute }})
	attempts := 0
	hopper.Handle(w, func(ctx context.Context, job *hopper.Job[SendWelcome]) error {
		attempts++
		if attempts == 1 {
			return errors.New("first try fails")
		}
		return nil
	})
	if n := hoppertest.Drain(ctx, t, w, s); n != 1 || attempts != 1 {
		t.Fatalf("first drain ran %d attempts (handler %d), want 1", n, attempts)
	}
	clock.Advance(59 * time.Second)
	if n := hoppertest.Drain(ctx, t, w, s); n != 0 {
		t.Fatalf("drain before the backoff passed ran %d attempts, want 0", n)
	}
	clock.Advance(time.Second)
	if n := hoppertest.Drain(ctx, t, w, s); n != 1 || attempts != 2 {
		t.Fatalf("drain after the backoff ran %d attempts (handler %d), want the retry", n, attempts)
	}
}
