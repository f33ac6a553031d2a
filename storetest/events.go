package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper/store"
)

func eventsCases() []eventsCase {
	return []eventsCase{
		{name: "Enqueued", fn: testEventEnqueued},
		{name: "WorkflowTasksEnqueued", fn: testEventWorkflowTasks},
		{name: "DuplicateEmitsNothing", fn: testEventDuplicate},
		{name: "Started", fn: testEventStarted},
		{name: "Outcomes", sub: outcomeEventCases()},
		{name: "FinishWithoutKindOrAttempt", fn: testEventFinishBare},
		{name: "StaleFinishEmitsNothing", fn: testEventStaleFinish},
		{name: "AckSentAgainEmitsNothing", fn: testEventAckSentAgain},
		{name: "Promoted", fn: testEventPromoted},
		{name: "ReclaimRetries", fn: func(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
			testEventReclaim(t, s, r, a, 1, store.EventRetried)
		}},
		{name: "ReclaimKillsOnLastAttempt", fn: func(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
			testEventReclaim(t, s, r, a, 0, store.EventDead)
		}},
		{name: "LifecycleInOrder", fn: testEventLifecycle},
		{name: "Progress", fn: testEventProgress},
		{name: "ProgressOfLostLeaseIgnored", fn: testEventProgressLost},
		{name: "Requeued", fn: testEventRequeued},
		{name: "Deleted", fn: testEventDeleted},
		{name: "CancelWaiting", fn: testEventCancelWaiting},
		{name: "CancelRunning", fn: testEventCancelRunning},
		{name: "FromNow", fn: testEventFromNow},
		{name: "ResumeFromEveryPosition", fn: testEventResume},
		{name: "ManyQueuesOneRead", fn: testEventManyQueues},
		{name: "BlockingReadWakes", fn: testEventBlockWakes},
		{name: "BlockEndsEmpty", fn: testEventBlockEnds},
		{name: "ContextEndsRead", fn: testEventContextEnds},
		{name: "FellBehindIsReported", fn: testEventFellBehind},
		{name: "KeptPositionsOfATrimmedStream", fn: testEventKeptPositions},
		{name: "Off", fn: testEventsOff},
		{name: "InvalidRequests", fn: testEventInvalid},
	}
}

func testEventEnqueued(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "now"), delayed(q, "later", long))
	evs := allEvents(t, r, q)
	requireEvents(t, q, evs, want{store.EventEnqueued, "now", 0}, want{store.EventEnqueued, "later", 0})
	if evs[0].State != store.StateReady || evs[1].State != store.StatePending {
		t.Fatalf("enqueued events: State %q and %q, want ready and pending", evs[0].State, evs[1].State)
	}
}

// testEventWorkflowTasks: a reader sees a workflow task's job enqueued as
// any job, with its kind: when the workflow is created, for a task that
// waits for nothing, and when the task it waits for succeeds.
func testEventWorkflowTasks(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	w, ok := store.As[store.Workflows](s)
	if !ok {
		t.Skip("the store keeps no workflows")
	}
	q := newQueue(t)
	reading(t, r, q)
	wf := newWorkflowID(t)
	enqueueWorkflow(t, w, newWorkflow(wf, wfTask(wf, q, "first"), wfTask(wf, q, "second", "first")))
	first, second := store.TaskJobID(wf, "first"), store.TaskJobID(wf, "second")
	evs := allEvents(t, r, q)
	requireEvents(t, q, evs, want{store.EventEnqueued, first, 0})
	if evs[0].State != store.StateReady {
		t.Fatalf("enqueued event of the first task: State %q, want ready", evs[0].State)
	}
	ack(t, s, claimOne(t, s, q, first, long), nil)
	var got []store.Event
	for _, ev := range allEvents(t, r, q) {
		if ev.ID == second {
			got = append(got, ev)
		}
	}
	requireEvents(t, q, got, want{store.EventEnqueued, second, 0})
	if got[0].State != store.StateReady {
		t.Fatalf("enqueued event of the task released: State %q, want ready", got[0].State)
	}
}

func testEventDuplicate(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"))
	pos := startPos(t, r, q)
	if res := enqueue(t, s, job(q, "a")); !res[0].Duplicate {
		t.Fatalf("Enqueue of an ID already there: %+v, want a duplicate", res[0])
	}
	if evs := newEvents(t, r, q, &pos); len(evs) != 0 {
		t.Fatalf("a duplicate enqueue emitted %s, want nothing", describe(evs))
	}
}

func testEventStarted(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"))
	pos := startPos(t, r, q)
	claimOne(t, s, q, "a", long)
	evs := newEvents(t, r, q, &pos)
	requireEvents(t, q, evs, want{store.EventStarted, "a", 1})
	if evs[0].Worker != "storetest" {
		t.Fatalf("started event: Worker %q, want the claim's WorkerID %q", evs[0].Worker, "storetest")
	}
}

// outcomeEventCases checks the event of each outcome of Finish.
func outcomeEventCases() []eventsCase {
	cases := []struct {
		name    string
		o       store.Outcome
		typ     store.EventType
		attempt int    // after the outcome
		err     string // the event's Error
	}{
		{"AckSucceeded", store.OutcomeAck, store.EventSucceeded, 1, ""},
		{"RetryRetried", store.OutcomeRetry, store.EventRetried, 1, "boom"},
		{"GarbageDead", store.OutcomeGarbage, store.EventDead, 1, "boom"},
		{"SnoozeSnoozed", store.OutcomeSnooze, store.EventSnoozed, 0, ""},
		{"ReleaseReleased", store.OutcomeRelease, store.EventReleased, 0, ""},
		{"CancelCancelled", store.OutcomeCancel, store.EventCancelled, 1, "boom"},
	}
	out := make([]eventsCase, len(cases))
	for i, c := range cases {
		out[i] = eventsCase{name: c.name, fn: func(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
			q := newQueue(t)
			reading(t, r, q)
			add(t, s, withRetries(q, "a", 3))
			j := claimOne(t, s, q, "a", long)
			pos := startPos(t, r, q)
			req := outcome(j, c.o)
			if c.err != "" {
				req = failed(j, c.o, c.err, long)
			} else if c.o == store.OutcomeSnooze {
				req.Delay = long
			}
			finishOK(t, s, req)
			evs := newEvents(t, r, q, &pos)
			requireEvents(t, q, evs, want{c.typ, "a", c.attempt})
			if evs[0].Error != c.err {
				t.Fatalf("%s event: Error %q, want %q", c.typ, evs[0].Error, c.err)
			}
		}}
	}
	return out
}

// testEventFinishBare: a AttemptEnd without the claim's Kind and
// Attempt still emits events that name them.
func testEventFinishBare(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, withRetries(q, "a", 3), job(q, "b"))
	got := claim(t, s, q, 2, long).Jobs
	pos := startPos(t, r, q)
	// The ack first: a store may apply plain acks before other outcomes.
	reqs := []store.AttemptEnd{outcome(got[1], store.OutcomeAck), failed(got[0], store.OutcomeRetry, "boom", long)}
	for i := range reqs {
		reqs[i].Kind, reqs[i].Attempt = "", 0
	}
	finishOK(t, s, reqs...)
	requireEvents(t, q, newEvents(t, r, q, &pos), want{store.EventSucceeded, "b", 1}, want{store.EventRetried, "a", 1})
}

func testEventStaleFinish(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"))
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(j, store.OutcomeRelease))
	pos := startPos(t, r, q)
	if err := finish(t, s, outcome(j, store.OutcomeAck))[0]; !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("ack with a released claim's token: %v, want ErrLeaseLost", err)
	}
	if evs := newEvents(t, r, q, &pos); len(evs) != 0 {
		t.Fatalf("a refused ack emitted %s, want nothing", describe(evs))
	}
}

// testEventAckSentAgain: an ack sent again after it applied (its reply
// lost), in one call with a fresh ack, reports nil and emits nothing of
// its own: one succeeded event a job. (The queue keeps acked jobs, so
// the first ack left the job in done.)
func testEventAckSentAgain(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	if err := a.SetQueueConfig(t.Context(), q, store.QueueConfig{Retention: long}); err != nil {
		t.Fatal(err)
	}
	reading(t, r, q)
	add(t, s, job(q, "a"), job(q, "b"))
	ja := claimOne(t, s, q, "a", long)
	jb := claimOne(t, s, q, "b", long)
	finishOK(t, s, outcome(ja, store.OutcomeAck))
	pos := startPos(t, r, q)
	finishOK(t, s, outcome(ja, store.OutcomeAck), outcome(jb, store.OutcomeAck))
	requireEvents(t, q, newEvents(t, r, q, &pos), want{store.EventSucceeded, "b", 1})
}

func testEventPromoted(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, delayed(q, "a", 50*time.Millisecond))
	maintainUntil(t, s, q, store.MaintainOpts{}, func(sum store.MaintainResult) error {
		if sum.Promoted == 0 {
			return fmt.Errorf("Maintain of %q promoted nothing, want the delayed job promoted", q)
		}
		return nil
	})
	requireEvents(t, q, allEvents(t, r, q), want{store.EventEnqueued, "a", 0}, want{store.EventPromoted, "a", 0})
}

// testEventReclaim checks the event of a reclaimed lease: retried with
// attempts left, dead on the last attempt.
func testEventReclaim(t *testing.T, s store.Store, r store.EventReader, _ store.Admin, retries int, typ store.EventType) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, withRetries(q, "a", retries))
	claimOne(t, s, q, "a", store.MinLease)
	awaitReclaim(t, s, q)
	evs := allEvents(t, r, q)
	if len(evs) > 3 && typ == store.EventRetried {
		// The job retried at once may already be promoted.
		requireEvents(t, q, evs[3:], want{store.EventPromoted, "a", 1})
		evs = evs[:3]
	}
	requireEvents(t, q, evs, want{store.EventEnqueued, "a", 0}, want{store.EventStarted, "a", 1}, want{typ, "a", 1})
	if got := evs[2].Error; got != store.ErrLeaseExpired.Error() {
		t.Fatalf("%s event of a reclaimed lease: Error %q, want %q", typ, got, store.ErrLeaseExpired.Error())
	}
}

func testEventLifecycle(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, withRetries(q, "a", 2))
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, failed(j, store.OutcomeRetry, "boom", 0))
	j = claimWhenDue(t, s, q, long)
	finishOK(t, s, outcome(j, store.OutcomeAck))
	requireEvents(t, q, allEvents(t, r, q),
		want{store.EventEnqueued, "a", 0}, want{store.EventStarted, "a", 1}, want{store.EventRetried, "a", 1},
		want{store.EventPromoted, "a", 1}, want{store.EventStarted, "a", 2}, want{store.EventSucceeded, "a", 2})
}

// extendOne calls Store.Extend with one ref and fails unless it returns
// one status without an error.
func extendOne(t *testing.T, s store.Store, ref store.LeaseRef) store.LeaseStatus {
	t.Helper()
	st := extend(t, s, long, ref)[0]
	if st.Err != nil {
		t.Fatalf("Extend(%+v): %v, want no error", ref, st.Err)
	}
	return st
}

// logLines returns n log lines named prefix0, prefix1, ... at times from
// at on, a millisecond apart.
func logLines(prefix string, n int, at time.Time) []store.LogLine {
	out := make([]store.LogLine, n)
	for i := range out {
		out[i] = store.LogLine{At: at.Add(time.Duration(i) * time.Millisecond), Text: fmt.Sprintf("%s%d", prefix, i)}
	}
	return out
}

// requireProgress fails unless got has percent, data and exactly the log
// lines want (times to the millisecond).
func requireProgress(t *testing.T, what string, got *store.Progress, percent float64, data string, want []store.LogLine) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no progress, want %v%% %q with %d lines", what, percent, data, len(want))
	}
	if got.Percent != percent || string(got.Data) != data || len(got.Log) != len(want) {
		t.Fatalf("%s: %v%% %q with %d lines, want %v%% %q with %d lines", what, got.Percent, got.Data, len(got.Log), percent, data, len(want))
	}
	for i, l := range got.Log {
		if l.Text != want[i].Text || l.At.Sub(want[i].At).Abs() > msSlack {
			t.Fatalf("%s: log line %d is %q at %v, want %q at %v", what, i, l.Text, l.At, want[i].Text, want[i].At)
		}
	}
}

func testEventProgress(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"))
	j := claimOne(t, s, q, "a", long)
	pos := startPos(t, r, q)
	now := time.Now()
	first := logLines("first", 2, now)
	ref := store.LeaseRef{Queue: q, ID: "a", Token: j.Token, Progress: &store.Progress{Percent: 40, Data: []byte("d1"), Log: first}}
	if !extendOne(t, s, ref).Held {
		t.Fatal("Extend of a current claim with progress: not held")
	}
	second := logLines("second", store.MaxLogLines, now.Add(time.Second))
	ref.Progress = &store.Progress{Percent: 80.5, Data: []byte("d2"), Log: second}
	extendOne(t, s, ref)
	ref.Progress = &store.Progress{Percent: -1}
	extendOne(t, s, ref)
	evs := newEvents(t, r, q, &pos)
	requireEvents(t, q, evs, want{store.EventProgress, "a", 1}, want{store.EventProgress, "a", 1}, want{store.EventProgress, "a", 1})
	requireProgress(t, "first progress event", evs[0].Progress, 40, "d1", first)
	requireProgress(t, "second progress event", evs[1].Progress, 80.5, "d2", second)
	requireProgress(t, "third progress event", evs[2].Progress, -1, "", nil)
	if a != nil {
		// The job keeps the latest percentage and data and its last
		// MaxLogLines lines: the first report's lines were dropped.
		requireProgress(t, "GetJob after three reports", getJob(t, a, q, "a").Progress, -1, "", second)
	}
	finishOK(t, s, outcome(j, store.OutcomeAck))
}

func testEventProgressLost(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"))
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(j, store.OutcomeRelease))
	pos := startPos(t, r, q)
	ref := store.LeaseRef{Queue: q, ID: "a", Token: j.Token, Progress: &store.Progress{Percent: 10}}
	if extendOne(t, s, ref).Held {
		t.Fatal("Extend with a released claim's token: held, want not held")
	}
	if evs := newEvents(t, r, q, &pos); len(evs) != 0 {
		t.Fatalf("progress of a lost lease emitted %s, want nothing", describe(evs))
	}
	if a != nil {
		if p := getJob(t, a, q, "a").Progress; p != nil {
			t.Fatalf("progress of a lost lease was stored: %+v", p)
		}
	}
}

func testEventRequeued(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	reading(t, r, q)
	put(t, s, a, job(q, "a"), store.StateGarbage)
	pos := startPos(t, r, q)
	requeue(t, a, q, store.StateGarbage, []string{"a"}, 1)
	claimOne(t, s, q, "a", long)
	requireEvents(t, q, newEvents(t, r, q, &pos), want{store.EventRequeued, "a", 1}, want{store.EventStarted, "a", 2})
}

func testEventDeleted(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, delayed(q, "a", long), delayed(q, "b", long))
	pos := startPos(t, r, q)
	if n, err := a.DeleteJobs(t.Context(), q, store.StatePending, []string{"b"}); err != nil || n != 1 {
		t.Fatalf("Delete of pending job b: %d, %v; want 1, nil", n, err)
	}
	requireEvents(t, q, newEvents(t, r, q, &pos), want{store.EventDeleted, "b", 0})
}

func testEventCancelWaiting(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"))
	pos := startPos(t, r, q)
	cancel(t, a, q, "a", store.StateReady)
	evs := newEvents(t, r, q, &pos)
	requireEvents(t, q, evs, want{store.EventCancelled, "a", 0})
	if evs[0].Error != store.ErrCancelled.Error() {
		t.Fatalf("cancelled event of a waiting job: Error %q, want %q", evs[0].Error, store.ErrCancelled.Error())
	}
}

func testEventCancelRunning(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, withRetries(q, "a", 3))
	j := claimOne(t, s, q, "a", long)
	pos := startPos(t, r, q)
	cancel(t, a, q, "a", store.StateUnack)
	if evs := newEvents(t, r, q, &pos); len(evs) != 0 {
		t.Fatalf("Cancel of a running job emitted %s, want nothing until it ends", describe(evs))
	}
	finishOK(t, s, failed(j, store.OutcomeRetry, "boom", 0))
	requireEvents(t, q, newEvents(t, r, q, &pos), want{store.EventCancelled, "a", 1})
}

func testEventFromNow(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"))
	pos := startPos(t, r, q)
	add(t, s, job(q, "b"))
	requireEvents(t, q, newEvents(t, r, q, &pos), want{store.EventEnqueued, "b", 0})
}

func testEventResume(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"), job(q, "b"), job(q, "c")) // one step, three events
	got := claim(t, s, q, 2, long).Jobs              // one step, two events
	finishOK(t, s, outcome(got[0], store.OutcomeAck), outcome(got[1], store.OutcomeAck))
	all := allEvents(t, r, q)
	if len(all) != 7 {
		t.Fatalf("events of 3 enqueues, 2 claims and 2 acks: got %s, want 7", describe(all))
	}
	// One at a time, from the start: the same events.
	one, _ := eventsAfter(t, r, q, store.FromStart, 1)
	if describe(one) != describe(all) {
		t.Fatalf("reading one event at a time: %s, want %s", describe(one), describe(all))
	}
	// After every event's position: exactly the events that follow it.
	for i, ev := range all {
		rest, _ := eventsAfter(t, r, q, ev.Pos, 2)
		if describe(rest) != describe(all[i+1:]) {
			t.Fatalf("reading after event %d (%s %s, position %q): %s, want %s", i, ev.Type, ev.ID, ev.Pos, describe(rest), describe(all[i+1:]))
		}
	}
}

func testEventManyQueues(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q1, q2 := newQueue(t), newQueue(t)
	reading(t, r, q1, q2)
	add(t, s, job(q1, "a"))
	add(t, s, job(q2, "b"))
	claimOne(t, s, q1, "a", long)
	from := map[string]string{q1: store.FromStart, q2: store.FromStart}
	var got []store.Event
	for {
		evs, next, lost := readEvents(t, r, from, 2)
		if len(lost) > 0 {
			t.Fatalf("ReadEvents of two queues reported lost events %v", lost)
		}
		if len(evs) == 0 {
			break
		}
		got = append(got, evs...)
		from = next
	}
	per := map[string][]store.Event{}
	for _, ev := range got {
		per[ev.Queue] = append(per[ev.Queue], ev)
	}
	requireEvents(t, q1, per[q1], want{store.EventEnqueued, "a", 0}, want{store.EventStarted, "a", 1})
	requireEvents(t, q2, per[q2], want{store.EventEnqueued, "b", 0})
}

func testEventBlockWakes(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	pos := startPos(t, r, q)
	type read struct {
		evs []store.Event
		err error
	}
	done := make(chan read, 1)
	go func() {
		evs, _, _, err := r.ReadEvents(t.Context(), map[string]string{q: pos}, 10, waitFor)
		done <- read{evs, err}
	}()
	add(t, s, job(q, "a"))
	got := <-done
	if got.err != nil {
		t.Fatalf("blocking ReadEvents: %v", got.err)
	}
	requireEvents(t, q, got.evs, want{store.EventEnqueued, "a", 0})
}

func testEventBlockEnds(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	add(t, s, job(q, "a"))
	pos := startPos(t, r, q)
	evs, next, lost, err := r.ReadEvents(t.Context(), map[string]string{q: pos}, 10, 20*time.Millisecond)
	if err != nil || len(evs) != 0 || len(lost) != 0 || next[q] != pos {
		t.Fatalf("ReadEvents of a quiet queue blocking 20ms: %s, %v, lost %v, %v; want no event, the same position, no error", describe(evs), next, lost, err)
	}
}

func testEventContextEnds(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, _, _, err := r.ReadEvents(ctx, map[string]string{q: store.FromNow}, 10, waitFor)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadEvents whose context was cancelled: %v, want context.Canceled", err)
	}
}

func testEventFellBehind(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	reading(t, r, q)
	setQueueConfig(t, a, q, store.QueueConfig{EventsMaxLen: 10})
	pos := startPos(t, r, q)
	const steps = 300
	for i := range steps {
		add(t, s, job(q, fmt.Sprintf("j%03d", i)))
	}
	evs, next, lost := readEvents(t, r, map[string]string{q: pos}, readMax)
	if len(lost) != 1 || lost[0] != q {
		t.Fatalf("reading after %d steps with EventsMaxLen 10 from before the first: lost %v, want [%s]", steps, lost, q)
	}
	if len(evs) == 0 || len(evs) >= steps || evs[len(evs)-1].ID != fmt.Sprintf("j%03d", steps-1) {
		t.Fatalf("reading a trimmed stream: %d events ending %s, want the newest kept (fewer than %d), up to the last", len(evs), describe(evs[max(len(evs)-1, 0):]), steps)
	}
	add(t, s, job(q, "after"))
	more, _, lost := readEvents(t, r, next, readMax)
	if len(lost) != 0 {
		t.Fatalf("reading on after catching up: lost %v, want none", lost)
	}
	requireEvents(t, q, more, want{store.EventEnqueued, "after", 0})
	if _, _, lost := readEvents(t, r, map[string]string{q: store.FromStart}, readMax); len(lost) != 0 {
		t.Fatalf("reading a trimmed stream FromStart: lost %v, want none", lost)
	}
}

// testEventKeptPositions reads from positions still kept in a stream that
// has been trimmed many times over: each read returns exactly what came
// after its position, a partly read step's rest first.
func testEventKeptPositions(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	reading(t, r, q)
	const maxLen = 10
	setQueueConfig(t, a, q, store.QueueConfig{EventsMaxLen: maxLen})
	pos := startPos(t, r, q)
	const steps = 200
	var at []string // at[i]: the position after step i's events
	for i := range steps {
		// Every fourth step enqueues three jobs in one call: one entry of
		// three events.
		if i%4 == 3 {
			add(t, s, job(q, fmt.Sprintf("j%03da", i)), job(q, fmt.Sprintf("j%03db", i)), job(q, fmt.Sprintf("j%03dc", i)))
		} else {
			add(t, s, job(q, fmt.Sprintf("j%03d", i)))
		}
		var evs []store.Event
		evs, pos = eventsAfter(t, r, q, pos, readMax)
		if len(evs) == 0 {
			t.Fatalf("step %d: no events read", i)
		}
		at = append(at, pos)
	}
	// The last maxLen/2 steps are kept whatever the store trims (Redis
	// trims approximately, keeping at least maxLen).
	for i := steps - maxLen/2; i < steps-1; i++ {
		evs, _, lost := readEvents(t, r, map[string]string{q: at[i]}, readMax)
		if len(lost) != 0 {
			t.Fatalf("reading after step %d of %d (EventsMaxLen %d): lost %v, want none", i, steps, maxLen, lost)
		}
		var wants []want
		for k := i + 1; k < steps; k++ {
			if k%4 == 3 {
				for _, suffix := range []string{"a", "b", "c"} {
					wants = append(wants, want{store.EventEnqueued, fmt.Sprintf("j%03d%s", k, suffix), 0})
				}
			} else {
				wants = append(wants, want{store.EventEnqueued, fmt.Sprintf("j%03d", k), 0})
			}
		}
		requireEvents(t, q, evs, wants...)
	}
	// A read of one event inside the last three-event step, then the
	// rest of it.
	last := steps - 1
	for last%4 != 3 {
		last--
	}
	one, next, _ := readEvents(t, r, map[string]string{q: at[last-1]}, 1)
	requireEvents(t, q, one, want{store.EventEnqueued, fmt.Sprintf("j%03da", last), 0})
	rest, _, lost := readEvents(t, r, next, 2)
	if len(lost) != 0 {
		t.Fatalf("reading the rest of a partly read step: lost %v, want none", lost)
	}
	requireEvents(t, q, rest, want{store.EventEnqueued, fmt.Sprintf("j%03db", last), 0}, want{store.EventEnqueued, fmt.Sprintf("j%03dc", last), 0})
}

func testEventsOff(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	needAdmin(t, a)
	q := newQueue(t)
	reading(t, r, q)
	setQueueConfig(t, a, q, store.QueueConfig{EventsMaxLen: -1})
	add(t, s, job(q, "a"))
	j := claimOne(t, s, q, "a", long)
	finishOK(t, s, outcome(j, store.OutcomeAck))
	if evs := allEvents(t, r, q); len(evs) != 0 {
		t.Fatalf("events of a queue with EventsMaxLen -1: %s, want none", describe(evs))
	}
}

func testEventInvalid(t *testing.T, s store.Store, r store.EventReader, a store.Admin) {
	q := newQueue(t)
	reading(t, r, q)
	ctx := t.Context()
	_, _, _, err := r.ReadEvents(ctx, map[string]string{q: store.FromStart}, 0, 0)
	requireErrIs(t, "ReadEvents with max 0", err, store.ErrInvalidConfig)
	_, _, _, err = r.ReadEvents(ctx, map[string]string{q: "not a position"}, 1, 0)
	requireErrIs(t, "ReadEvents from a position no store wrote", err, store.ErrInvalidConfig)
	_, _, _, err = r.ReadEvents(ctx, map[string]string{"bad queue": store.FromStart}, 1, 0)
	requireErrIs(t, "ReadEvents of an invalid queue name", err, store.ErrInvalidQueue)
}
