package faulttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/store"
)

// TestClockSkew is scenario 5: two workers whose clocks are 5 minutes
// ahead and 5 minutes behind (injected through SchedulerConfig.Now, the only
// wall clock hopper reads for due times) run delayed jobs that outlast
// their lease, and both run a periodic schedule. No job runs before it is
// due by Redis time, and no live lease is taken: every job runs once.
func TestClockSkew(t *testing.T) {
	const (
		jobs  = 100
		lease = time.Second
		skew  = 5 * time.Minute
	)
	srv := redistest.Start(t, redistest.Private())
	r := newRun(t, srv.Client(t), "default", "tick")
	ctx := t.Context()
	var ws []*proctest.Proc
	for i, s := range []time.Duration{skew, -skew} {
		w := r.startWorker(fmt.Sprintf("skew%d", i), workerOpts{
			Addr: srv.Addr, Prefix: r.prefix, Queues: "default,tick", Concurrency: 20, Lease: lease,
			Sleep: 1500 * time.Millisecond, Skew: s, Every: time.Second, EveryQueue: "tick",
		})
		w.WaitReady()
		ws = append(ws, w)
	}
	// Due in 1 to 2 s by the store's clock, spread over the interval.
	for i := range 10 {
		if err := r.enqueue(ctx, "default", jobs/10, jobs/10, &hopper.EnqueueOpts{Delay: time.Second + time.Duration(i)*100*time.Millisecond}); err != nil {
			t.Fatal(err)
		}
	}
	// The worker ahead enqueues its ticks 5 minutes early; wait for one.
	r.procs.Eventually(30*time.Second, func() error {
		st, err := r.store.GetQueueStats(ctx, "tick")
		if err != nil {
			return err
		}
		if st.Counts.Pending == 0 {
			return fmt.Errorf("no periodic job pending yet: %+v", st.Counts)
		}
		return nil
	})
	r.queues = []string{"default"}
	r.waitQuiet(60 * time.Second)
	for _, w := range ws {
		w.Stop()
	}

	// No claim before the job was due, by the store's clock.
	claims := map[jobKey]int{}
	for _, e := range r.ledgers() {
		if e.Ev != "claim" {
			continue
		}
		claims[keyOf(e)]++
		if e.AttemptedAt.Before(e.RunAt) {
			t.Errorf("job %s/%s claimed by %s at %d, %d ms before it was due", e.Queue, e.Job, e.Child, e.AttemptedAt.UnixMilli(), e.RunAt.Sub(e.AttemptedAt).Milliseconds())
		}
	}
	// No live lease taken: the jobs outlast the lease, yet each was
	// claimed once.
	for k := range r.acked {
		if claims[k] != 1 {
			t.Errorf("job %s/%s claimed %d times, want once", k.queue, k.id, claims[k])
		}
	}
	// The early ticks wait for their time: pending, due about 5 minutes
	// from now by Redis time, and none ran.
	page, err := r.store.ListJobs(ctx, store.ListJobsOpts{Queue: "tick", State: hopper.StatePending, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	now, err := r.rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range page.Jobs {
		if ahead := j.RunAt.Sub(now); ahead < skew-time.Minute {
			t.Errorf("periodic job %s due %v from now by Redis time, want about %v (the skewed worker's tick)", j.ID, ahead, skew)
		}
		if claims[jobKey{"tick", j.ID}] != 0 {
			t.Errorf("periodic job %s due at %v ran", j.ID, j.RunAt)
		}
	}
	if _, err := r.store.DeleteJobs(ctx, "tick", hopper.StatePending, nil); err != nil {
		t.Fatal(err)
	}
	r.queues = []string{"default", "tick"}
	t.Logf("%d delayed jobs each claimed once, none early; %d periodic jobs enqueued early wait for their tick", len(r.acked), len(page.Jobs))
	r.check(1)
}
