// Package dashtest is the fixture the dashboard's tests share, the
// browser tests' module included: a store seeded with jobs in every state,
// the texts it plants, and small readers of job state.
package dashtest

import (
	"context"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
	"github.com/vmihailenco/msgpack/v5"
)

// EmailArgs are the args of the fixture's emails; Password is a field the
// dashboard must redact.
type EmailArgs struct {
	To       string `msgpack:"to"`
	Subject  string `msgpack:"subject"`
	Password string `msgpack:"password"`
}

// Kind implements hopper.Args.
func (EmailArgs) Kind() string { return "send_email" }

// ReportArgs are the args of the fixture's reports.
type ReportArgs struct {
	Month string `msgpack:"month"`
}

// Kind implements hopper.Args.
func (ReportArgs) Kind() string { return "build_report" }

// Texts the Fixture plants, which tests look for.
const (
	XSSText      = "<script>alert(1)</script>"
	SecretText   = "hunter2-very-secret"
	GarbageError = "smtp: 550 mailbox <unavailable>"
	StackText    = "goroutine 7 [running]:\nmain.send(0xc000010000)\n\t/app/send.go:42 +0x1d"
	Traceparent  = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ResultText   = "report-2026-11.pdf"
)

// Fixture is a store seeded with jobs in every state of queue "default",
// a ready job in "critical", a live worker and a schedule.
type Fixture struct {
	Store   hopper.Store
	Garbage []string // ids in default/garbage, oldest first; [0] has the XSS subject
	Retry   string
	Done    string
	Unack   string
	Pending string
	Ready   []string // ids in default/ready; [0] goes to alice@example.com
	Traced  string   // ready job with a Traceparent
	Crit    string   // ready in critical
}

// Seed fills s. Jobs that must leave ready are each enqueued and claimed
// before the next is enqueued, so the claim takes exactly that job.
func Seed(t *testing.T, s hopper.Store) *Fixture {
	t.Helper()
	ctx := context.Background()
	c := hopper.NewClient(s, nil)
	f := &Fixture{Store: s}
	enqueue := func(args hopper.Args, opts *hopper.EnqueueOpts) string {
		t.Helper()
		info, err := hopper.Enqueue(ctx, c, args, opts)
		if err != nil {
			t.Fatalf("Enqueue(%v): %v", args, err)
		}
		return info.ID
	}
	claim := func(id string) *hopper.JobRecord {
		t.Helper()
		res, err := s.Claim(ctx, store.ClaimOpts{Queue: "default", Max: 1, Lease: time.Hour, WorkerID: "test-worker"})
		if err != nil || len(res.Jobs) != 1 || res.Jobs[0].ID != id {
			t.Fatalf("Claim: got %v, %v; want job %s", res.Jobs, err, id)
		}
		return res.Jobs[0]
	}
	finish := func(j *hopper.JobRecord, req store.AttemptEnd) {
		t.Helper()
		req.Queue, req.ID, req.Token = j.Queue, j.ID, j.Token
		errs, err := s.Finish(ctx, []store.AttemptEnd{req})
		if err != nil || errs[0] != nil {
			t.Fatalf("Finish(%s, %v): %v %v", j.ID, req.Outcome, err, errs)
		}
	}
	fail := func(j *hopper.JobRecord, outcome hopper.Outcome, delay time.Duration) {
		finish(j, store.AttemptEnd{Outcome: outcome, Delay: delay,
			Error: &store.AttemptError{Attempt: j.Attempt, At: time.Now(), Error: GarbageError, Stack: StackText,
				StartedAt: time.Now().Add(-1200 * time.Millisecond), Worker: "worker-1"}})
	}

	for _, subject := range []string{XSSText, "Weekly digest"} {
		id := enqueue(EmailArgs{To: "bob@example.com", Subject: subject, Password: SecretText}, &hopper.EnqueueOpts{MaxRetries: hopper.NoRetry})
		fail(claim(id), hopper.OutcomeGarbage, 0)
		f.Garbage = append(f.Garbage, id)
	}
	f.Retry = enqueue(ReportArgs{Month: "2026-10"}, nil)
	fail(claim(f.Retry), hopper.OutcomeRetry, time.Hour)

	f.Done = enqueue(ReportArgs{Month: "2026-11"}, &hopper.EnqueueOpts{Retention: time.Hour})
	result, err := msgpack.Marshal(map[string]any{"file": ResultText, "pages": 12})
	if err != nil {
		t.Fatal(err)
	}
	finish(claim(f.Done), store.AttemptEnd{Outcome: hopper.OutcomeAck, Result: result, Retention: time.Hour})

	f.Unack = enqueue(ReportArgs{Month: "2026-09"}, nil)
	running := claim(f.Unack)

	f.Pending = enqueue(EmailArgs{To: "later@example.com", Subject: "Reminder"}, &hopper.EnqueueOpts{Delay: time.Hour})
	for _, to := range []string{"alice@example.com", "carol@example.com"} {
		f.Ready = append(f.Ready, enqueue(EmailArgs{To: to, Subject: "Welcome"}, nil))
	}
	f.Traced = enqueue(ReportArgs{Month: "traced"}, &hopper.EnqueueOpts{Meta: map[string]string{"traceparent": Traceparent, "api_token": SecretText}})
	f.Ready = append(f.Ready, f.Traced)
	f.Crit = enqueue(ReportArgs{Month: "critical"}, &hopper.EnqueueOpts{Queue: "critical"})

	err = s.Heartbeat(ctx, hopper.WorkerInfo{
		ID: "worker-1", Host: "host-a", PID: 4242, Queues: map[string]int{"default": 2, "critical": 5},
		Concurrency: 8, StartedAt: time.Now().Add(-time.Hour), Processed: 12345, Failed: 67,
		Running: []store.RunningJob{{Queue: "default", ID: running.ID, Kind: running.Kind, StartedAt: time.Now()}},
	}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	err = s.RegisterSchedules(ctx, []store.ScheduleInfo{{
		Name: "monthly-report", Spec: "0 3 1 * *", Queue: "default", Kind: "build_report", Next: time.Now().Add(24 * time.Hour),
	}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// JobState returns the state of a job, or "" when it is gone.
func JobState(t *testing.T, s hopper.Store, queue, id string) hopper.JobState {
	t.Helper()
	j, err := hopper.NewInspector(s).GetJob(context.Background(), queue, id)
	if err != nil {
		return ""
	}
	return j.State
}

// Counts returns the Counts of queue.
func Counts(t *testing.T, s hopper.Store, queue string) store.StateCounts {
	t.Helper()
	st, err := hopper.NewInspector(s).GetQueueStats(context.Background(), queue)
	if err != nil {
		t.Fatal(err)
	}
	return st.Counts
}
