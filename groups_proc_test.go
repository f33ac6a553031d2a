package hopper_test

// Groups on Redis with separate OS processes (proc_helpers_test.go): a cap
// per group holds across processes, a group's jobs start in order, and a
// group with a huge backlog does not starve the others.

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/proctest"
)

// enqueueGrouped enqueues, round after round, one job of each of groups
// in every round (IDs "<group>-<round>", zero-padded), in batches.
func enqueueGrouped(t *testing.T, p *procSetup, queue string, groups []string, rounds int) int {
	t.Helper()
	client := hopper.NewClient(p.store, nil)
	var batch []*hopper.PreparedJob
	n := 0
	flush := func() {
		if _, err := hopper.EnqueuePrepared(t.Context(), client, batch); err != nil {
			t.Fatal(err)
		}
		batch = batch[:0]
	}
	for r := range rounds {
		for _, g := range groups {
			j, err := hopper.Prepare(client, Echo{}, &hopper.EnqueueOpts{Queue: queue, Group: g, ID: fmt.Sprintf("%s-%06d", g, r)})
			if err != nil {
				t.Fatal(err)
			}
			batch = append(batch, j)
			n++
			if len(batch) == 1000 {
				flush()
			}
		}
	}
	if len(batch) > 0 {
		flush()
	}
	return n
}

// groupNames returns n group names g00, g01, ...
func groupNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("g%02d", i)
	}
	return out
}

// checkGroupCap runs rounds jobs of each of ngroups groups on 4 processes
// of 8 slots with a cap of limit per group, and checks what the handlers
// measured: never more than limit of a group at once (the cap reached,
// with a backlog), each job once, and with a cap of 1 every group's jobs
// in order.
func checkGroupCap(t *testing.T, limit, ngroups, rounds int) {
	p := newProcSetup(t)
	ctx := t.Context()
	if err := hopper.NewInspector(p.store).SetQueueConfig(ctx, "grouped", hopper.QueueConfig{GroupMaxRunning: limit}); err != nil {
		t.Fatal(err)
	}
	groups := groupNames(ngroups)
	jobs := enqueueGrouped(t, p, "grouped", groups, rounds)
	p.start(4, childSpec{Role: roleGrouped, Queue: "grouped", Concurrency: 8, Work: 10 * time.Millisecond,
		Probe: "probe:{" + p.prefix + "}:group"})
	p.EventuallyTrue(120*time.Second, "all jobs handled", func() bool { return p.Count(proctest.Is("end")) == jobs })

	starts := p.Filter(proctest.Is("start"))
	slices.SortFunc(starts, func(a, b proctest.Event) int { return int(a.Seq - b.Seq) })
	peak := map[string]int64{}
	last := map[string]string{}
	unordered, pids := 0, map[int]int{}
	for _, e := range starts {
		peak[e.Group] = max(peak[e.Group], e.Running)
		if l, ok := last[e.Group]; ok && e.Job < l {
			unordered++
		}
		last[e.Group] = e.Job
		pids[e.PID]++
	}
	most := slices.Max(slices.Collect(maps.Values(peak)))
	t.Logf("%d starts of %d jobs in %d groups on %d processes (jobs per process %v); most of one group at once: %d (cap %d); %d starts before an earlier job of their group",
		len(starts), jobs, len(peak), len(pids), slices.Collect(maps.Values(pids)), most, limit, unordered)
	if len(starts) != jobs {
		t.Errorf("%d starts for %d jobs, want one each", len(starts), jobs)
	}
	for g, n := range peak {
		if n > int64(limit) {
			t.Errorf("group %s ran %d jobs at once across the processes, cap %d", g, n, limit)
		}
	}
	if most < int64(limit) {
		t.Errorf("no group ran more than %d at once with a backlog of %d each, want the cap of %d used", most, rounds, limit)
	}
	if limit == 1 && unordered > 0 {
		t.Errorf("%d jobs started before an earlier job of their group, want each group first in first out with a cap of 1", unordered)
	}
}

// TestProcGroupCapOne: 50 groups of 12 jobs on 4 processes of 8 slots,
// one at a time per group.
func TestProcGroupCapOne(t *testing.T) { checkGroupCap(t, 1, 50, 12) }

// TestProcGroupCapThree: 10 groups of 30 jobs, up to 3 at a time per
// group (30 at most running, for 32 slots).
func TestProcGroupCapThree(t *testing.T) { checkGroupCap(t, 3, 10, 30) }

// TestProcGroupFairness: group big has 100,000 jobs waiting and 20 small
// groups 50 each, all enqueued before 4 processes of 8 slots start: every
// small group finishes before big has started 5,000.
func TestProcGroupFairness(t *testing.T) {
	p := newProcSetup(t)
	enqueueGrouped(t, p, "fair", []string{"big"}, 100000)
	small := groupNames(20)
	enqueueGrouped(t, p, "fair", small, 50)
	p.start(4, childSpec{Role: roleGrouped, Queue: "fair", Concurrency: 8, Probe: "probe:{" + p.prefix + "}:fair"})
	doneSmall := func() int {
		n := 0
		for _, e := range p.Filter(proctest.Is("start")) {
			if e.Group != "big" {
				n++
			}
		}
		return n
	}
	p.EventuallyTrue(120*time.Second, "every job of the small groups started", func() bool { return doneSmall() == 20*50 })

	lastSmall := map[string]int64{}
	var bigSeqs []int64
	for _, e := range p.Filter(proctest.Is("start")) {
		if e.Group == "big" {
			bigSeqs = append(bigSeqs, e.Seq)
		} else {
			lastSmall[e.Group] = max(lastSmall[e.Group], e.Seq)
		}
	}
	slices.Sort(bigSeqs)
	worst, worstGroup := 0, ""
	for g, s := range lastSmall {
		// The big group's starts before this group's last one.
		n, _ := slices.BinarySearch(bigSeqs, s)
		if n > worst {
			worst, worstGroup = n, g
		}
	}
	t.Logf("the last small group to finish (%s) did so when big had started %d of its 100,000 jobs", worstGroup, worst)
	if len(lastSmall) != 20 {
		t.Fatalf("%d small groups ran, want 20", len(lastSmall))
	}
	if worst >= 5000 {
		t.Errorf("small group %s finished after big had started %d jobs, want every small group done before 5,000", worstGroup, worst)
	}
}
