package hopper_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
)

// TestProcGroupOrderAcrossACrash: a group with a cap of 1 and 200 jobs;
// the worker process running them is SIGKILLed mid-job and another takes
// over. The killed job, redelivered when its lease expires, runs before
// the group's later jobs: the successful runs happen in enqueue order, and
// the group resumes within a second of the lease's expiry (the Scheduler
// reclaims at the deadline; the job is then at the head of its group).
func TestProcGroupOrderAcrossACrash(t *testing.T) {
	p := newTimedProcSetup(t)
	ctx := t.Context()
	if err := hopper.NewInspector(p.store).SetQueueConfig(ctx, "order", hopper.QueueConfig{GroupMaxRunning: 1}); err != nil {
		t.Fatal(err)
	}
	const jobs = 200
	enqueueGrouped(t, p, "order", []string{"t"}, jobs)
	// The 80th start works until its process dies: a kill after it lands
	// mid-job. (Killing when a start had no end yet raced the job's 20 ms
	// of work on a slow machine, and the kill came between two jobs.)
	spec := childSpec{Role: roleGrouped, Queue: "order", Concurrency: 4, Work: 20 * time.Millisecond,
		Probe: "probe:{" + p.prefix + "}:order", HangSeq: 80}
	first := p.start(1, spec)[0]
	p.EventuallyTrue(60*time.Second, "80 jobs started, the last one running", func() bool {
		return len(p.Filter(proctest.Is("start"))) >= 80
	})
	// The worker that takes over runs before the kill (the hung job holds
	// the group, so it waits): starting a process under the race detector
	// on a slow machine took longer than the lease.
	p.start(1, spec)
	first.Kill()
	// Its lease as the kill left it: the worker extended it while the job
	// hung, past the deadline its start reported.
	hung := p.Filter(func(e proctest.Event) bool { return e.Ev == "start" && e.Seq == spec.HangSeq })
	if len(hung) != 1 {
		t.Fatalf("%d starts numbered %d, want 1", len(hung), spec.HangSeq)
	}
	rec, err := hopper.NewInspector(p.store).GetJob(ctx, "order", hung[0].Job)
	if err != nil || rec.State != hopper.StateUnack {
		t.Fatalf("the hung job after the kill: %+v, %v; want it running (unack)", rec, err)
	}
	ended := func() map[string]bool {
		m := map[string]bool{}
		for _, e := range p.Filter(proctest.Is("end")) {
			m[e.Job] = true
		}
		return m
	}
	p.EventuallyTrue(60*time.Second, "every job ran to its end", func() bool { return len(ended()) == jobs })

	// The runs that ended (those that returned), in the order they started
	// (Seq, one counter across the processes); the killed one never ended.
	endOf := map[string]int{} // "<child>/<job>" → runs that ended
	for _, e := range p.Filter(proctest.Is("end")) {
		endOf[e.Child+"/"+e.Job]++
	}
	starts := p.Filter(proctest.Is("start"))
	slices.SortFunc(starts, func(a, b proctest.Event) int { return int(a.Seq - b.Seq) })
	var killed *proctest.Event
	var runs []proctest.Event
	for i, e := range starts {
		if endOf[e.Child+"/"+e.Job] > 0 {
			runs = append(runs, e)
		} else if e.Child == first.Name() {
			killed = &starts[i]
		}
	}
	if killed == nil {
		t.Fatalf("every job the killed process started ended: the kill came between two jobs, want one running")
	}
	// reordered: runs that started after a later job of the group;
	// overtaken: pairs of runs started in the reverse of enqueue order.
	reordered, overtaken, last := 0, 0, ""
	for i, e := range runs {
		if e.Job < last {
			reordered++
		}
		last = max(last, e.Job)
		for _, before := range runs[:i] {
			if before.Job > e.Job {
				overtaken++
			}
		}
	}
	var again *proctest.Event
	for i, e := range starts {
		if e.Job == killed.Job && e.Attempt == killed.Attempt+1 {
			again = &starts[i]
		}
	}
	if again == nil {
		t.Fatalf("job %s, running when its process was killed, never ran again", killed.Job)
	}
	if killed.Job != rec.ID {
		t.Fatalf("the killed process's unended start was %s, want the hung job %s", killed.Job, rec.ID)
	}
	resumed := again.AttemptedAt.Sub(rec.Deadline)
	t.Logf("killed during %s (attempt %d); %d successful runs of %d jobs, %d started after a later job of the group (%d pairs in reverse order); redelivered %v after its lease expired",
		killed.Job, killed.Attempt, len(runs), jobs, reordered, overtaken, resumed)
	if reordered != 0 {
		t.Errorf("%d successful runs started after a later job of their group, want 0: the killed job keeps its place", reordered)
	}
	if resumed < 0 || resumed > time.Second {
		t.Errorf("job %s claimed again %v after its lease deadline, want within 1s of it (never before)", killed.Job, resumed)
	}
}
