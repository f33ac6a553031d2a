package hopper_test

// Events, waiting and progress across processes on Redis (issue 16): the
// children are this test binary re-executed (proc_helpers_test.go).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/testutil"
	"github.com/hopperq/hopper/store"
	"github.com/redis/go-redis/v9"
)

// childSubscriber reports every event of its queue from when it is ready
// (StoreAt is the event's time).
func childSubscriber(ctx context.Context, c *proctest.Child, s childSpec, _ *redis.Client, st hopper.Store) error {
	// Where the stream ends now: the subscription starts there, so that
	// every event after "ready" is seen.
	_, next, _, err := st.(store.EventReader).ReadEvents(ctx, map[string]string{s.Queue: hopper.FromNow}, 1, 0)
	if err != nil {
		return err
	}
	c.Ready()
	for ev, err := range hopper.NewClient(st, nil).Subscribe(ctx, []string{s.Queue}, &hopper.SubscribeOpts{From: next}) {
		if err != nil {
			_ = c.Error("", err)
			continue
		}
		c.Emit(proctest.Event{Ev: "event", Type: ev.Type, Job: ev.ID, Attempt: ev.Attempt, StoreAt: ev.At})
	}
	return nil
}

// childWaiter answers "wait <id>" by watching the job ("watching" once the
// watch is in place) in one of Goroutines goroutines, and reports
// "waited" when it ended.
func childWaiter(ctx context.Context, c *proctest.Child, s childSpec, _ *redis.Client, st hopper.Store) error {
	w := st.(store.JobWaiter)
	ids := make(chan string)
	for range s.Goroutines {
		go func() {
			for id := range ids {
				ch, err := w.WatchJob(ctx, s.Queue, id)
				if err != nil {
					_ = c.Error(id, err)
					continue
				}
				c.Emit(proctest.Event{Ev: "watching", Job: id})
				end := <-ch
				at := time.Now()
				if end.Err != nil {
					_ = c.Error(id, end.Err)
					continue
				}
				c.Emit(proctest.Event{Ev: "waited", At: at, Job: id, State: end.Job.State, FinishedAt: end.Job.FinishedAt})
			}
		}()
	}
	c.Ready()
	defer close(ids)
	for cmd := range c.Commands(ctx) {
		id, ok := strings.CutPrefix(cmd, "wait ")
		if !ok {
			return fmt.Errorf("command %q: want wait <id>", cmd)
		}
		ids <- id
	}
	return nil
}

// eventsOf returns the events a subscriber child reported, by job.
func eventsOf(g *proctest.Group) map[string][]proctest.Event {
	out := map[string][]proctest.Event{}
	for _, e := range g.Filter(proctest.Is("event")) {
		out[e.Job] = append(out[e.Job], e)
	}
	return out
}

// TestProcSubscriberSeesEveryJob: a subscriber in another process sees
// the start and the success of each of 10,000 jobs, run by two worker
// processes, exactly once.
func TestProcSubscriberSeesEveryJob(t *testing.T) {
	p := newProcSetup(t)
	const n = 10_000
	p.start(1, childSpec{Role: roleSubscribe, Queue: "events"})
	p.start(2, childSpec{Role: roleLimited, Queue: "events", Concurrency: 32})
	c := hopper.NewClient(p.store, nil)
	args := make([]Echo, 0, 500)
	var ids []string
	for len(ids) < n {
		args = args[:0]
		for i := range 500 {
			args = append(args, Echo{N: len(ids) + i})
		}
		infos, err := hopper.EnqueueMany(t.Context(), c, args, &hopper.EnqueueOpts{Queue: "events"})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range infos {
			ids = append(ids, in.ID)
		}
	}
	p.EventuallyTrue(120*time.Second, fmt.Sprintf("the subscriber to see %d successes", n), func() bool {
		return p.Count(func(e proctest.Event) bool { return e.Ev == "event" && e.Type == hopper.EventSucceeded }) >= n
	})
	byJob := eventsOf(p.Group)
	for _, id := range ids {
		var types []string
		for _, e := range byJob[id] {
			types = append(types, fmt.Sprintf("%s/%d", e.Type, e.Attempt))
		}
		if got := strings.Join(types, " "); got != "enqueued/0 started/1 succeeded/1" {
			t.Fatalf("job %s: the subscriber saw %q, want each of enqueued, started and succeeded once", id, got)
		}
	}
	if extra := len(byJob) - n; extra != 0 {
		t.Fatalf("the subscriber saw events of %d jobs never enqueued", extra)
	}
}

// TestProcWaitReturnsAtTheAck: Wait in 100 goroutines of another process
// returns for each job within 10 ms (p99) of its ack, by the store's clock
// at the ack (FinishedAt) and the waiter's clock at the return, the same
// machine's.
func TestProcWaitReturnsAtTheAck(t *testing.T) {
	p := newTimedProcSetup(t)
	const rounds, per = 10, 100
	waiter := p.start(1, childSpec{Role: roleWaiter, Queue: "waited", Goroutines: per})[0]
	p.start(1, childSpec{Role: roleLimited, Queue: "waited", Concurrency: 32})
	c := hopper.NewClient(p.store, nil)
	ins := hopper.NewInspector(p.store)
	var lat []time.Duration
	for r := range rounds {
		// The queue is paused until every waiter watches: each wait is in
		// place before its job can run.
		if err := ins.PauseQueue(t.Context(), "waited"); err != nil {
			t.Fatal(err)
		}
		args := make([]Echo, per)
		infos, err := hopper.EnqueueMany(t.Context(), c, args, &hopper.EnqueueOpts{Queue: "waited", Retention: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		round := map[string]bool{}
		for _, in := range infos {
			round[in.ID] = true
			waiter.Send("wait " + in.ID)
		}
		inRound := func(ev string) func(proctest.Event) bool {
			return func(e proctest.Event) bool { return e.Ev == ev && round[e.Job] }
		}
		p.EventuallyTrue(30*time.Second, fmt.Sprintf("round %d: %d watches", r, per), func() bool { return p.Count(inRound("watching")) == per })
		if err := ins.ResumeQueue(t.Context(), "waited"); err != nil {
			t.Fatal(err)
		}
		p.EventuallyTrue(30*time.Second, fmt.Sprintf("round %d: %d waits returned", r, per), func() bool { return p.Count(inRound("waited")) == per })
		for _, e := range p.Filter(inRound("waited")) {
			if e.State != hopper.StateDone || e.FinishedAt.IsZero() {
				t.Fatalf("wait of %s returned %s finished at %v, want done", e.Job, e.State, e.FinishedAt)
			}
			lat = append(lat, e.At.Sub(e.FinishedAt))
		}
	}
	slices.Sort(lat)
	p99, worst := lat[len(lat)*99/100], lat[len(lat)-1]
	t.Logf("%d waits: from the ack to the return p50 %v, p99 %v, max %v (FinishedAt has millisecond precision)", len(lat), lat[len(lat)/2], p99, worst)
	// 10 ms at the p99 is the bound asked for, and a quiet run measures
	// about 3 ms. Under the race detector a quiet run measures a median of
	// 3.9 ms and a p99 of 10.9 ms; with the other packages' tests (the
	// fault suite's processes among them) running beside this one on two
	// CPUs, the scheduler's delays reach the median too: medians of
	// 11.6 ms and 12.5 ms were seen in CI, p99s up to 51 ms. There the
	// median is held to 25 ms and the p99 to 100 ms, which a wait that
	// polled or batched its notices every 50 ms or more would still miss.
	p50 := lat[len(lat)/2]
	if testutil.Race {
		if p50 > 25*time.Millisecond || p99 > 100*time.Millisecond {
			t.Errorf("from the ack to Wait's return: p50 %v, p99 %v; want at most 25 ms and 100 ms under the race detector", p50, p99)
		}
		return
	}
	if p99 > 10*time.Millisecond {
		t.Errorf("p99 from the ack to Wait's return is %v, want at most 10ms", p99)
	}
}

// TestProcKilledWorkerEvents: the job of a worker killed with SIGKILL
// shows, to a subscriber in another process, its start, the expiry of the
// lease, its start again as attempt 2 on another worker, and its success.
func TestProcKilledWorkerEvents(t *testing.T) {
	p := newProcSetup(t)
	p.start(1, childSpec{Role: roleSubscribe, Queue: "killed"})
	victim := p.start(1, childSpec{Role: roleTarget, Queue: "killed", Concurrency: 1})[0]
	info, err := hopper.Enqueue(t.Context(), hopper.NewClient(p.store, nil), Echo{}, &hopper.EnqueueOpts{Queue: "killed"})
	if err != nil {
		t.Fatal(err)
	}
	p.EventuallyTrue(30*time.Second, "the victim to start the job", func() bool { return p.Count(proctest.Is("start")) == 1 })
	victim.Kill()
	p.start(1, childSpec{Role: roleLimited, Queue: "killed", Concurrency: 1})
	p.EventuallyTrue(60*time.Second, "the job's success", func() bool {
		return p.Count(func(e proctest.Event) bool { return e.Ev == "event" && e.Type == hopper.EventSucceeded }) == 1
	})
	var got []string
	for _, e := range eventsOf(p.Group)[info.ID] {
		got = append(got, fmt.Sprintf("%s/%d", e.Type, e.Attempt))
	}
	want := "enqueued/0 started/1 retried/1 promoted/1 started/2 succeeded/2"
	if strings.Join(got, " ") != want {
		t.Fatalf("events of the killed worker's job: %q, want %q", strings.Join(got, " "), want)
	}
}
