package hopper_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hopperq/hopper"
)

type Square struct{ N int }

func (Square) Kind() string { return "square" }

// squareWorker runs a worker whose handler records N² as the result, fails
// for N < 0 (permanently for N = -1) and for N = 0 runs until the test
// ends.
func squareWorker(t *testing.T, s hopper.Store) {
	w := hopper.NewWorker(s, testConfig("default"))
	hold := make(chan struct{})
	hopper.Handle(w, func(ctx context.Context, j *hopper.Job[Square]) error {
		switch n := j.Args.N; {
		case n == -1:
			return hopper.Permanent(errors.New("negative"))
		case n < 0:
			return errors.New("negative")
		case n == 0:
			<-hold
			return nil
		default:
			return hopper.RecordResult(ctx, n*n)
		}
	})
	stop := startWorker(t, w)
	t.Cleanup(func() {
		close(hold)
		stop()
	})
}

func TestEnqueueAndWaitReturnsTheResult(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	squareWorker(t, s)
	for n := 1; n <= 20; n++ {
		got, job, err := hopper.EnqueueAndWait[int](t.Context(), c, Square{N: n}, nil)
		if err != nil || got != n*n {
			t.Fatalf("EnqueueAndWait(Square{%d}): %d, %v; want %d", n, got, err, n*n)
		}
		requireWaitedJob(t, s, job, hopper.StateDone, n*n)
	}
}

// requireWaitedJob fails unless job, as EnqueueAndWait returned it, names
// the job that ran: the Inspector finds it in state with result.
func requireWaitedJob(t *testing.T, s hopper.Store, job *hopper.JobInfo, state hopper.JobState, result int) {
	t.Helper()
	if job == nil || job.ID == "" {
		t.Fatalf("EnqueueAndWait returned job %+v, want the job's ID and queue", job)
	}
	rec := getJob(t, s, job.Queue, job.ID)
	if rec == nil || rec.State != state || rec.Kind != "square" {
		t.Fatalf("the Inspector's job %q of queue %q: %+v; want a square job in %s", job.ID, job.Queue, rec, state)
	}
	if got, err := hopper.DecodeResult[int](rec); err != nil || got != result {
		t.Fatalf("DecodeResult of job %q: %d, %v; want %d", job.ID, got, err, result)
	}
}

func TestEnqueueAndWaitReportsADeadJob(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	squareWorker(t, s)
	_, job, err := hopper.EnqueueAndWait[int](t.Context(), c, Square{N: -1}, nil)
	if !errors.Is(err, hopper.ErrJobDead) || errors.Is(err, hopper.ErrCancelled) {
		t.Fatalf("EnqueueAndWait of a job that fails permanently: %v, want ErrJobDead (not cancelled)", err)
	}
	requireWaitedJob(t, s, job, hopper.StateGarbage, 0)
	_, job, err = hopper.EnqueueAndWait[int](t.Context(), c, Square{N: -2}, &hopper.EnqueueOpts{MaxRetries: 2})
	if !errors.Is(err, hopper.ErrJobDead) {
		t.Fatalf("EnqueueAndWait of a job that fails three times: %v, want ErrJobDead", err)
	}
	requireWaitedJob(t, s, job, hopper.StateGarbage, 0)
}

func TestWaitReportsACancelledJob(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	info, err := hopper.Enqueue(t.Context(), c, Square{N: 3}, &hopper.EnqueueOpts{Delay: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.WaitJob(t.Context(), info.Queue, info.ID)
		done <- err
	}()
	if _, err := hopper.NewInspector(s).CancelJob(t.Context(), info.Queue, info.ID); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, hopper.ErrJobDead) || !errors.Is(err, hopper.ErrCancelled) {
		t.Fatalf("Wait of a cancelled job: %v, want ErrJobDead and ErrCancelled", err)
	}
}

func TestEnqueueAndWaitHonoursTheDeadline(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	squareWorker(t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, job, err := hopper.EnqueueAndWait[int](ctx, c, Square{N: 0}, nil) // runs until its context ends
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("EnqueueAndWait past its deadline: %v, want context.DeadlineExceeded", err)
	}
	if job == nil || getJob(t, s, job.Queue, job.ID) == nil {
		t.Fatalf("EnqueueAndWait past its deadline returned job %+v, want one the Inspector finds", job)
	}
}

func TestWaitErrors(t *testing.T) {
	s := newStore()
	c := hopper.NewClient(s, nil)
	if _, err := c.WaitJob(t.Context(), "default", "never-enqueued"); !errors.Is(err, hopper.ErrJobNotFound) {
		t.Errorf("Wait of a job never enqueued: %v, want ErrJobNotFound", err)
	}
	if _, err := c.WaitJob(t.Context(), "bad queue", "x"); !errors.Is(err, hopper.ErrInvalidQueue) {
		t.Errorf("Wait on a bad queue name: %v, want ErrInvalidQueue", err)
	}
	if _, err := hopper.NewClient(engineOnly{s}, nil).WaitJob(t.Context(), "default", "x"); !errors.Is(err, hopper.ErrNotSupported) {
		t.Errorf("Wait on a store that cannot wait: %v, want ErrNotSupported", err)
	}
	squareWorker(t, s)
	// The result is an int: it does not decode into a struct.
	type Res struct{ A []string }
	if _, _, err := hopper.EnqueueAndWait[Res](t.Context(), c, Square{N: 4}, nil); !errors.Is(err, hopper.ErrDecode) {
		t.Errorf("EnqueueAndWait with a result of another type: %v, want ErrDecode", err)
	}
}
