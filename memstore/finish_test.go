package memstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func TestFinishOutcomes(t *testing.T) {
	boom := &store.AttemptError{Error: "boom"}
	tests := []struct {
		name      string
		req       store.AttemptEnd
		cancelled bool // Cancel the job while it runs
		state     store.JobState
		attempt   int
		errors    []string
		runAt     time.Duration // from now; checked in pending and retry
		flag      bool          // Cancelled in the record
	}{
		{name: "ack", req: store.AttemptEnd{Outcome: store.OutcomeAck, Retention: time.Hour, Result: []byte("r")}, state: store.StateDone, attempt: 1},
		{name: "retry", req: store.AttemptEnd{Outcome: store.OutcomeRetry, Delay: 3 * time.Second, Error: boom}, state: store.StateRetry, attempt: 1, errors: []string{"boom"}, runAt: 3 * time.Second},
		{name: "garbage", req: store.AttemptEnd{Outcome: store.OutcomeGarbage, Error: boom}, state: store.StateGarbage, attempt: 1, errors: []string{"boom"}},
		{name: "snooze", req: store.AttemptEnd{Outcome: store.OutcomeSnooze, Delay: time.Minute, Error: boom}, state: store.StatePending, attempt: 0, runAt: time.Minute},
		{name: "release", req: store.AttemptEnd{Outcome: store.OutcomeRelease}, state: store.StateReady, attempt: 0},
		{name: "cancel", req: store.AttemptEnd{Outcome: store.OutcomeCancel}, state: store.StateGarbage, attempt: 1, errors: []string{store.ErrCancelled.Error()}, flag: true},
		{name: "cancelled then retry", req: store.AttemptEnd{Outcome: store.OutcomeRetry, Error: boom}, cancelled: true, state: store.StateGarbage, attempt: 1, errors: []string{"boom"}, flag: true},
		{name: "cancelled then snooze", req: store.AttemptEnd{Outcome: store.OutcomeSnooze}, cancelled: true, state: store.StateGarbage, attempt: 1, errors: []string{store.ErrCancelled.Error()}, flag: true},
		{name: "cancelled then release", req: store.AttemptEnd{Outcome: store.OutcomeRelease}, cancelled: true, state: store.StateGarbage, attempt: 1, errors: []string{store.ErrCancelled.Error()}, flag: true},
		{name: "cancelled then ack", req: store.AttemptEnd{Outcome: store.OutcomeAck, Retention: time.Hour}, cancelled: true, state: store.StateDone, attempt: 1, flag: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newClocked()
			ctx := context.Background()
			mustEnqueue(t, s, newJob("a"))
			c := claim(t, s, 1, time.Minute).Jobs[0]
			if tt.cancelled {
				if st, err := s.CancelJob(ctx, testQueue, "a"); st != store.StateUnack || err != nil {
					t.Fatalf("Cancel: %s %v", st, err)
				}
				ls, _ := s.Extend(ctx, []store.LeaseRef{{Queue: testQueue, ID: "a", Token: c.Token}}, time.Minute)
				if !ls[0].Held || !ls[0].Cancel {
					t.Fatalf("Extend after Cancel: %+v, want held and cancel", ls[0])
				}
			}
			req := tt.req
			req.Queue, req.ID, req.Token = testQueue, "a", c.Token
			if errs := finish(t, s, req); errs[0] != nil {
				t.Fatal(errs[0])
			}
			r := getJob(t, s, "a")
			var errs []string
			for _, e := range r.Errors {
				errs = append(errs, e.Error)
				if e.Attempt != 1 || !e.At.Equal(ms(0)) {
					t.Errorf("error %+v not stamped with attempt 1 at now", e)
				}
			}
			if r.State != tt.state || r.Attempt != tt.attempt || !slices.Equal(errs, tt.errors) || r.Cancelled != tt.flag {
				t.Fatalf("got %s attempt %d errors %q cancelled %v; want %s %d %q %v",
					r.State, r.Attempt, errs, r.Cancelled, tt.state, tt.attempt, tt.errors, tt.flag)
			}
			if r.Token != 0 || !r.Deadline.IsZero() {
				t.Errorf("token %d and deadline %v kept outside unack", r.Token, r.Deadline)
			}
			switch r.State {
			case store.StatePending, store.StateRetry:
				if !r.RunAt.Equal(ms(tt.runAt)) {
					t.Errorf("RunAt %v, want %v", r.RunAt, ms(tt.runAt))
				}
			case store.StateGarbage, store.StateDone:
				if !r.FinishedAt.Equal(ms(0)) {
					t.Errorf("FinishedAt %v, want now", r.FinishedAt)
				}
			}
			if tt.name == "ack" && string(r.Result) != "r" {
				t.Errorf("Result %q", r.Result)
			}
			// The claim is over: the same token cannot finish again, but
			// for an end that left the job where the same end sent again
			// (its reply lost) finds it applied: an ack's in done, a
			// retry's, death's or cancel's in retry or garbage.
			applied := r.State == store.StateDone && req.Outcome == store.OutcomeAck ||
				(r.State == store.StateRetry || r.State == store.StateGarbage) &&
					(req.Outcome == store.OutcomeRetry || req.Outcome == store.OutcomeGarbage || req.Outcome == store.OutcomeCancel)
			if err := finish(t, s, req)[0]; applied {
				if err != nil {
					t.Errorf("the %s sent again: %v, want nil (applied)", req.Outcome, err)
				}
			} else if !errors.Is(err, store.ErrLeaseLost) {
				t.Errorf("second finish: %v, want ErrLeaseLost", err)
			}
		})
	}
}

func TestFinishPerRequestErrors(t *testing.T) {
	s, _ := newClocked()
	mustEnqueue(t, s, newJob("a"), newJob("b"))
	jobs := claim(t, s, 2, time.Minute).Jobs
	errs := finish(t, s,
		store.AttemptEnd{Queue: testQueue, ID: "a", Token: jobs[0].Token, Outcome: store.OutcomeAck},
		store.AttemptEnd{Queue: testQueue, ID: "b", Token: jobs[0].Token + 1, Outcome: store.OutcomeAck},
		store.AttemptEnd{Queue: testQueue, ID: "nope", Token: 1, Outcome: store.OutcomeAck},
		store.AttemptEnd{Queue: "other", ID: "a", Token: 1, Outcome: store.OutcomeAck},
		store.AttemptEnd{Queue: "bad queue", ID: "a", Token: 1, Outcome: store.OutcomeAck},
		store.AttemptEnd{Queue: testQueue, ID: "b", Token: jobs[1].Token},
		store.AttemptEnd{Queue: testQueue, ID: "b", Token: jobs[1].Token, Outcome: store.OutcomeRetry},
	)
	checks := []func(error) bool{
		func(e error) bool { return e == nil },
		func(e error) bool { return errors.Is(e, store.ErrLeaseLost) },
		func(e error) bool { return errors.Is(e, store.ErrJobNotFound) },
		func(e error) bool { return errors.Is(e, store.ErrJobNotFound) },
		func(e error) bool { return errors.Is(e, store.ErrInvalidQueue) },
		func(e error) bool { return e != nil && !errors.Is(e, store.ErrLeaseLost) }, // no outcome
		func(e error) bool { return e == nil },
	}
	for i, ok := range checks {
		if !ok(errs[i]) {
			t.Errorf("request %d: error %v", i, errs[i])
		}
	}
}

func TestReleaseGoesToTheFrontOfReady(t *testing.T) {
	s, _ := newClocked()
	mustEnqueue(t, s, newJob("a"), newJob("b"), newJob("c"))
	a := claim(t, s, 1, time.Minute).Jobs[0]
	finish(t, s, store.AttemptEnd{Queue: testQueue, ID: "a", Token: a.Token, Outcome: store.OutcomeRelease})
	if got := ids(claim(t, s, 3, time.Minute).Jobs); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("claimed %v, want a first again", got)
	}
}

func TestErrorHistoryKeepsTheLatest(t *testing.T) {
	s, _ := newClocked()
	j := newJob("a")
	j.MaxRetries = store.MaxErrorHistory + 5
	mustEnqueue(t, s, j)
	for i := 1; i <= store.MaxErrorHistory+3; i++ {
		maintain(t, s, store.MaintainOpts{})
		c := claim(t, s, 1, time.Minute).Jobs[0]
		finish(t, s, store.AttemptEnd{Queue: testQueue, ID: "a", Token: c.Token, Outcome: store.OutcomeRetry,
			Error: &store.AttemptError{Error: fmt.Sprint(i)}})
	}
	r := getJob(t, s, "a")
	if len(r.Errors) != store.MaxErrorHistory || r.Errors[0].Error != "4" || r.Errors[len(r.Errors)-1].Error != fmt.Sprint(store.MaxErrorHistory+3) {
		t.Fatalf("%d errors from %q to %q", len(r.Errors), r.Errors[0].Error, r.Errors[len(r.Errors)-1].Error)
	}
	for i, e := range r.Errors {
		if e.Attempt != i+4 {
			t.Fatalf("error %d has attempt %d, want %d", i, e.Attempt, i+4)
		}
	}
}

func TestRetentionPrecedence(t *testing.T) {
	s, clock := newClocked()
	ctx := context.Background()
	if err := s.SetQueueConfig(ctx, testQueue, store.QueueConfig{Retention: time.Hour}); err != nil {
		t.Fatal(err)
	}
	own := newJob("own")
	own.Retention = time.Minute
	mustEnqueue(t, s, newJob("req"), own, newJob("queue"))
	for i, c := range claim(t, s, 3, time.Minute).Jobs {
		// As a worker does: the job's own retention, unless the request
		// says otherwise; zero leaves it to the queue's.
		r := store.AttemptEnd{Queue: testQueue, ID: c.ID, Token: c.Token, Outcome: store.OutcomeAck, Retention: c.Retention}
		if i == 0 {
			r.Retention = time.Second
		}
		finish(t, s, r)
	}
	for _, step := range []struct {
		at   time.Duration
		left int
	}{{time.Second, 2}, {time.Minute, 1}, {time.Hour - time.Millisecond, 1}, {time.Hour, 0}} {
		clock.Set(ms(step.at))
		maintain(t, s, store.MaintainOpts{})
		if st, _ := s.GetQueueStats(ctx, testQueue); st.Counts.Done != int64(step.left) {
			t.Fatalf("at %v: %d done, want %d", step.at, st.Counts.Done, step.left)
		}
	}
}
